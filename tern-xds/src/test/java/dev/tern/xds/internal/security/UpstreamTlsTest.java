package dev.tern.xds.internal.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.PerAddressChannelCredentials;
import dev.tern.testtools.TestPems;
import dev.tern.xds.Bootstrap;
import dev.tern.xds.XdsTlsContext;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.Test;

/** A cluster's TLS on the system's roots (A82) and with its server name (A101). */
class UpstreamTlsTest {
  private static final Bootstrap BOOTSTRAP =
      Bootstrap.parse(
          "{\"xds_servers\": [{\"server_uri\": \"127.0.0.1:1\","
              + " \"channel_creds\": [{\"type\": \"insecure\"}]}]}",
          "test");

  private static XdsTlsContext systemRoots(String sni, boolean sniSanValidation) {
    return systemRoots(sni, false, sniSanValidation);
  }

  private static XdsTlsContext systemRoots(
      String sni, boolean autoHostSni, boolean sniSanValidation) {
    return new XdsTlsContext(
        null, null, false, List.of(), sni, autoHostSni, sniSanValidation, true);
  }

  @Test
  void systemRootCerts_trustTheJdksRootsAndNothingElse() throws Exception {
    try (UpstreamTls tls = UpstreamTls.open(BOOTSTRAP, systemRoots("", false), true)) {
      X509TrustManager trust = (X509TrustManager) tls.credentials().getTrustManagers().get(0);
      assertThat(trust.getAcceptedIssuers()).isNotEmpty();
      TestPems selfSigned = TestPems.generate("not-a-root", "dns:orders.mesh.test");
      assertThatThrownBy(
              () ->
                  trust.checkServerTrusted(
                      new X509Certificate[] {selfSigned.certificate}, "ECDHE_ECDSA"))
          .isInstanceOf(CertificateException.class);
    }
  }

  @Test
  void serverName_isTheClustersSniOrNone_unlessTheSwitchIsOff() {
    try (UpstreamTls tls =
        UpstreamTls.open(BOOTSTRAP, systemRoots("orders.mesh.test", true), true)) {
      assertThat(tls.serverName(null)).isEqualTo("orders.mesh.test");
      assertThat(tls.serverName("host-1.mesh.test")).isEqualTo("orders.mesh.test");
    }
    try (UpstreamTls tls = UpstreamTls.open(BOOTSTRAP, systemRoots("", true), true)) {
      assertThat(tls.serverName(null)).isEqualTo(PerAddressChannelCredentials.NO_SERVER_NAME);
    }
    try (UpstreamTls tls =
        UpstreamTls.open(BOOTSTRAP, systemRoots("orders.mesh.test", true), false)) {
      assertThat(tls.serverName(null)).isNull();
    }
  }

  @Test
  void autoHostSni_sendsTheEndpointsHostName_elseTheClustersSni() {
    try (UpstreamTls tls =
        UpstreamTls.open(BOOTSTRAP, systemRoots("orders.mesh.test", true, true), true)) {
      assertThat(tls.serverName("host-1.mesh.test")).isEqualTo("host-1.mesh.test");
      assertThat(tls.serverName(null)).isEqualTo("orders.mesh.test");
      assertThat(tls.serverName("")).isEqualTo("orders.mesh.test");
    }
    try (UpstreamTls tls = UpstreamTls.open(BOOTSTRAP, systemRoots("", true, false), true)) {
      assertThat(tls.serverName(null)).isEqualTo(PerAddressChannelCredentials.NO_SERVER_NAME);
    }
    // GRPC_EXPERIMENTAL_XDS_SNI off: the channel's authority, whatever the endpoint's name.
    try (UpstreamTls tls =
        UpstreamTls.open(BOOTSTRAP, systemRoots("orders.mesh.test", true, true), false)) {
      assertThat(tls.serverName("host-1.mesh.test")).isNull();
    }
  }
}
