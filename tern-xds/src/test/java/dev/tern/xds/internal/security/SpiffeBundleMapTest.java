package dev.tern.xds.internal.security;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.testing.LogCapture;
import dev.tern.testtools.TestPems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Checking peers against a SPIFFE bundle map (A87), with generated certificates. */
class SpiffeBundleMapTest {
  private static TestPems orders; // spiffe://a.test/ns/shop/sa/orders
  private static TestPems billing; // spiffe://b.test/billing
  private static TestPems impostor; // claims a.test, not in a.test's bundle
  private static TestPems noSpiffe;
  private static TestPems twoUris;

  @TempDir Path dir;

  @BeforeAll
  static void certificates() throws Exception {
    orders = TestPems.generate("orders", "uri:spiffe://a.test/ns/shop/sa/orders");
    billing = TestPems.generate("billing", "uri:spiffe://b.test/billing,dns:billing.b.test");
    impostor = TestPems.generate("impostor", "uri:spiffe://a.test/ns/shop/sa/orders");
    noSpiffe = TestPems.generate("plain", "dns:plain.test");
    twoUris = TestPems.generate("two", "uri:spiffe://a.test/one,uri:spiffe://a.test/two");
  }

  private static String x5c(TestPems pems) throws Exception {
    return Base64.getEncoder().encodeToString(pems.certificate.getEncoded());
  }

  private static String key(TestPems pems) throws Exception {
    return "{\"use\": \"x509-svid\", \"kty\": \"EC\", \"x5c\": [\"" + x5c(pems) + "\"]}";
  }

  /** a.test trusts orders and two; b.test trusts billing (and has a JWT key to skip). */
  private static String twoDomains() throws Exception {
    return "{\"trust_domains\": {"
        + "\"a.test\": {\"spiffe_sequence\": 1, \"keys\": ["
        + key(orders)
        + ", "
        + key(twoUris)
        + "]},"
        + "\"b.test\": {\"keys\": [{\"use\": \"jwt-svid\", \"kty\": \"EC\", \"kid\": \"j\"}, "
        + key(billing)
        + "]}}}";
  }

  private static SpiffeBundleMap map(String json) {
    return SpiffeBundleMap.parse(json.getBytes(UTF_8), "bundles.json");
  }

  private static void check(SpiffeBundleMap map, TestPems peer, boolean client)
      throws CertificateException {
    map.check(new X509Certificate[] {peer.certificate}, "ECDHE_ECDSA", client);
  }

  @Test
  void peersOfEachTrustDomain_areCheckedAgainstTheirOwnDomainsBundle() throws Exception {
    SpiffeBundleMap map = map(twoDomains());
    assertThat(map.trustDomains()).containsExactlyInAnyOrder("a.test", "b.test");
    assertThatCode(() -> check(map, orders, false)).doesNotThrowAnyException();
    assertThatCode(() -> check(map, orders, true)).doesNotThrowAnyException();
    assertThatCode(() -> check(map, billing, true)).doesNotThrowAnyException();
    assertThat(map.acceptedIssuers()).hasSize(3);
  }

  @Test
  void aPeerSignedOutsideItsDomainsBundle_isRefused() throws Exception {
    SpiffeBundleMap map = map(twoDomains());
    assertThatThrownBy(() -> check(map, impostor, false))
        .isInstanceOf(CertificateException.class)
        .hasMessageStartingWith(SpiffeBundleMap.FAILED)
        .hasMessageContaining("does not lead to a root of the trust domain \"a.test\"");
  }

  @Test
  void aPeerOfAnotherDomainsRoots_isRefusedForTheDomainItClaims() throws Exception {
    // billing's own certificate is a root of b.test only; a map without b.test refuses it.
    SpiffeBundleMap onlyA =
        map("{\"trust_domains\": {\"a.test\": {\"keys\": [" + key(billing) + "]}}}");
    assertThatThrownBy(() -> check(onlyA, billing, true))
        .hasMessageContaining("bundles.json has no bundle for the trust domain \"b.test\"")
        .hasMessageContaining("spiffe://b.test/billing");
  }

  @Test
  void aPeerWithoutASpiffeId_orWithTwoUriSans_isRefused() throws Exception {
    SpiffeBundleMap map = map(twoDomains());
    assertThatThrownBy(() -> check(map, noSpiffe, false))
        .hasMessageContaining("has 0 URI SANs [], it needs exactly one");
    assertThatThrownBy(() -> check(map, twoUris, false))
        .hasMessageContaining("has 2 URI SANs")
        .hasMessageContaining("spiffe://a.test/one");
    assertThatThrownBy(() -> map.check(new X509Certificate[0], "RSA", true))
        .hasMessageContaining("the peer sent no certificate");
  }

  @Test
  void spiffeIds_followTheSpiffeRules() {
    assertThat(SpiffeId.parse("spiffe://a.test/ns/x_y/sa/z-1.2"))
        .isEqualTo(new SpiffeId("a.test", "/ns/x_y/sa/z-1.2"));
    assertThat(SpiffeId.parse("spiffe://a.test")).isEqualTo(new SpiffeId("a.test", ""));
    assertThatThrownBy(() -> SpiffeId.parse("https://a.test/x")).hasMessageContaining("spiffe://");
    assertThatThrownBy(() -> SpiffeId.parse("spiffe://A.test/x"))
        .hasMessageContaining("the trust domain has 'A'");
    assertThatThrownBy(() -> SpiffeId.parse("spiffe://a.test:8443/x"))
        .hasMessageContaining("no port");
    assertThatThrownBy(() -> SpiffeId.parse("spiffe://user@a.test/x"))
        .hasMessageContaining("the trust domain has '@'");
    assertThatThrownBy(() -> SpiffeId.parse("spiffe:///x")).hasMessageContaining("empty");
    assertThatThrownBy(() -> SpiffeId.parse("spiffe://a.test/x/")).hasMessageContaining("ends");
    assertThatThrownBy(() -> SpiffeId.parse("spiffe://a.test/x//y"))
        .hasMessageContaining("empty segment");
    assertThatThrownBy(() -> SpiffeId.parse("spiffe://a.test/x/../y"))
        .hasMessageContaining("'..' segment");
    assertThatThrownBy(() -> SpiffeId.parse("spiffe://a.test/x?q=1"))
        .hasMessageContaining("the path has '?'");
    assertThatThrownBy(() -> SpiffeId.parse("spiffe://a.test/" + "x".repeat(2048)))
        .hasMessageContaining("longer than 2048");
  }

  @Test
  void badBundleMaps_failNamingTheFileAndTheField() throws Exception {
    assertThatThrownBy(() -> map("{\"trust_domains\": "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("SPIFFE bundle map bundles.json: ");
    assertThatThrownBy(() -> map("{}")).hasMessageContaining("trust_domains must be an object");
    assertThatThrownBy(() -> map("{\"trust_domains\": {}}"))
        .hasMessageContaining("trust_domains is empty");
    assertThatThrownBy(() -> map("{\"trust_domains\": {\"A.test\": {\"keys\": []}}}"))
        .hasMessageContaining("trust_domains[\"A.test\"]: not a valid SPIFFE ID");
    assertThatThrownBy(() -> map("{\"trust_domains\": {\"a.test\": {}}}"))
        .hasMessageContaining("trust_domains[\"a.test\"].keys must be an array");
    assertThatThrownBy(() -> map("{\"trust_domains\": {\"a.test\": {\"keys\": []}}}"))
        .hasMessageContaining("trust_domains[\"a.test\"].keys has no x509-svid key");
    assertThatThrownBy(
            () ->
                map(
                    "{\"trust_domains\": {\"a.test\": {\"keys\": [{\"use\": \"x509-svid\","
                        + " \"x5c\": [\"bm90IGEgY2VydA==\"]}]}}}"))
        .hasMessageContaining(
            "trust_domains[\"a.test\"].keys[0].x5c[0] is not a base64 DER X.509 certificate");
    assertThatThrownBy(
            () ->
                map(
                    "{\"trust_domains\": {\"a.test\": {\"keys\": [{\"use\": \"x509-svid\","
                        + " \"x5c\": []}]}}}"))
        .hasMessageContaining("keys[0].x5c must be an array of exactly one certificate");
  }

  @Test
  void reload_takesAValidNewMap_andKeepsThePreviousOneWhenTheNewIsBad() throws Exception {
    Path file = dir.resolve("bundles.json");
    Files.writeString(file, "{\"trust_domains\": {\"a.test\": {\"keys\": [" + key(orders) + "]}}}");
    try (LogCapture log = new LogCapture(SpiffeBundleTrustManager.class);
        SpiffeBundleTrustManager manager =
            SpiffeBundleTrustManager.watch(file.toFile(), Duration.ofHours(1))) {
      X509Certificate[] billingChain = {billing.certificate};
      assertThatThrownBy(() -> manager.checkClientTrusted(billingChain, "ECDHE_ECDSA"))
          .hasMessageContaining("no bundle for the trust domain \"b.test\"");

      TestPems.replace(file, twoDomains());
      assertThat(manager.reload()).isTrue();
      manager.checkClientTrusted(billingChain, "ECDHE_ECDSA");

      TestPems.replace(file, "{\"trust_domains\": {\"b.test\": {\"keys\": [{\"use\": ");
      assertThat(manager.reload()).isFalse();
      assertThat(log.records())
          .filteredOn(r -> r.getLevel() == Level.WARNING)
          .singleElement()
          .extracting(LogRecord::getMessage, r -> r.getParameters()[0].toString())
          .satisfies(m -> assertThat(m.get(1).toString()).contains("SPIFFE bundle map " + file));
      manager.checkClientTrusted(billingChain, "ECDHE_ECDSA");
      manager.checkServerTrusted(new X509Certificate[] {orders.certificate}, "ECDHE_ECDSA");
    }
  }

  @Test
  void aBadFileAtStart_failsNamingTheFile() throws Exception {
    Path file = Files.writeString(dir.resolve("broken.json"), "[]");
    assertThatThrownBy(() -> SpiffeBundleTrustManager.watch(file.toFile(), Duration.ofHours(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("SPIFFE bundle map " + file);
  }
}
