package dev.tern.xds.internal.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.testtools.TestPems;
import dev.tern.xds.XdsTlsContext.Kind;
import dev.tern.xds.XdsTlsContext.SanMatcher;
import dev.tern.xds.XdsTlsContext.SanType;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A client's check of a server certificate with wildcard DNS, URI and IP names (A29). */
class SanCheckingTrustManagerTest {
  private static TestPems server;
  private static X509ExtendedTrustManager roots;

  @BeforeAll
  static void certificate() throws Exception {
    server =
        TestPems.generate(
            "mesh-server", "dns:*.mesh.example.com,uri:spiffe://mesh.example/ns/a/sa/b,ip:::1");
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setCertificateEntry("server", server.certificate);
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(store);
    roots = (X509ExtendedTrustManager) factory.getTrustManagers()[0];
  }

  private static void check(SanMatcher... matchers) throws CertificateException {
    new SanCheckingTrustManager(roots, List.of(matchers), false)
        .checkServerTrusted(new X509Certificate[] {server.certificate}, "ECDHE_ECDSA");
  }

  /**
   * The check with {@code auto_sni_san_validation}, of a connection whose engine was made for
   * {@code serverName} (the transport makes it with the server name it sends), or none when null.
   */
  private static void checkAgainst(String serverName, SanMatcher... matchers)
      throws CertificateException {
    SSLEngine engine;
    try {
      engine =
          serverName == null
              ? SSLContext.getDefault().createSSLEngine()
              : SSLContext.getDefault().createSSLEngine(serverName, 443);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
    new SanCheckingTrustManager(roots, List.of(matchers), true)
        .checkServerTrusted(new X509Certificate[] {server.certificate}, "ECDHE_ECDSA", engine);
  }

  @Test
  void certificateNames_areReadWithTheirTypes() throws Exception {
    assertThat(SanCheckingTrustManager.subjectAltNames(server.certificate))
        .containsExactlyInAnyOrder(
            new SanCheckingTrustManager.Name(SanType.DNS, "*.mesh.example.com"),
            new SanCheckingTrustManager.Name(SanType.URI, "spiffe://mesh.example/ns/a/sa/b"),
            new SanCheckingTrustManager.Name(SanType.IP_ADDRESS, "0:0:0:0:0:0:0:1"));
  }

  @Test
  void wildcardName_acceptsOneLabelAndNoMore() {
    assertThatCode(() -> check(new SanMatcher(Kind.EXACT, "orders.mesh.example.com", null, false)))
        .doesNotThrowAnyException();
    assertThatThrownBy(
            () -> check(new SanMatcher(Kind.EXACT, "a.orders.mesh.example.com", null, false)))
        .isInstanceOf(CertificateException.class)
        .hasMessageContaining(SanCheckingTrustManager.MISMATCH)
        .hasMessageContaining("*.mesh.example.com");
  }

  @Test
  void uriAndIpNames_match() {
    assertThatCode(() -> check(new SanMatcher(Kind.EXACT, "::1", null, false)))
        .doesNotThrowAnyException();
    assertThatCode(() -> check(new SanMatcher(Kind.SUFFIX, "/sa/b", null, false, SanType.URI)))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> check(new SanMatcher(Kind.SUFFIX, "/sa/b", null, false, SanType.DNS)))
        .hasMessageContaining("match_subject_alt_names [dns suffix \"/sa/b\"]");
  }

  @Test
  void sniSanValidation_checksTheServerNameInsteadOfTheMatchers() {
    SanMatcher elsewhere = new SanMatcher(Kind.EXACT, "elsewhere.test", null, false);
    assertThatCode(() -> checkAgainst("Orders.Mesh.Example.com", elsewhere))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> checkAgainst("orders.example.com", elsewhere))
        .hasMessageContaining(
            "matches the server name sent (auto_sni_san_validation) [exact (ignoring case)"
                + " \"orders.example.com\"]");
  }

  @Test
  void sniSanValidation_ofAConnectionThatSentNoName_checksTheMatchers() {
    assertThatCode(
            () -> checkAgainst(null, new SanMatcher(Kind.EXACT, "a.mesh.example.com", null, false)))
        .doesNotThrowAnyException();
    assertThatThrownBy(
            () -> checkAgainst(null, new SanMatcher(Kind.EXACT, "elsewhere.test", null, false)))
        .hasMessageContaining("the cluster's match_subject_alt_names");
  }
}
