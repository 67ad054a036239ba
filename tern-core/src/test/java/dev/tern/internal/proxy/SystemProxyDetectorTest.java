package dev.tern.internal.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.HttpConnectProxiedSocketAddress;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.PasswordAuthentication;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.SocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The default detector's order and sources, with the environment, the proxy selector, the
 * authenticator and the proxy's name look-up injected (the process's own are never touched).
 */
class SystemProxyDetectorTest {
  private static final InetSocketAddress TARGET =
      InetSocketAddress.createUnresolved("api.example.com", 443);

  private final List<URI> selected = new ArrayList<>();
  private final List<String> prompted = new ArrayList<>();
  private PasswordAuthentication authenticatorAnswer;

  /** A selector that answers {@code proxy} (null: DIRECT) and records what it was asked. */
  private ProxySelector selector(InetSocketAddress proxy) {
    return new ProxySelector() {
      @Override
      public List<Proxy> select(URI uri) {
        selected.add(uri);
        return List.of(proxy == null ? Proxy.NO_PROXY : new Proxy(Proxy.Type.HTTP, proxy));
      }

      @Override
      public void connectFailed(URI uri, SocketAddress sa, IOException ioe) {}
    };
  }

  private SystemProxyDetector detector(Map<String, String> env, ProxySelector selector) {
    return new SystemProxyDetector(
        env,
        () -> selector,
        (host, address, port) -> {
          prompted.add(host + ":" + port);
          return authenticatorAnswer;
        },
        SystemProxyDetectorTest::fakeLookup);
  }

  /** Names of the test resolve to 10.0.0.N; "missing.example" does not resolve. */
  private static InetAddress fakeLookup(String host) throws UnknownHostException {
    if (host.equals("missing.example")) {
      throw new UnknownHostException(host);
    }
    byte[] literal = NoProxyRules.addressLiteral(host);
    return InetAddress.getByAddress(host, literal != null ? literal : new byte[] {10, 0, 0, 3});
  }

  @Test
  void httpsProxyFromTheEnvironmentWithCredentialsFromItsUrl() throws Exception {
    HttpConnectProxiedSocketAddress proxied =
        detector(Map.of("HTTPS_PROXY", "http://alice:p%40ss+word@proxy.corp:3128"), selector(null))
            .proxyFor(TARGET);

    assertThat(proxied.getProxyAddress().getPort()).isEqualTo(3128);
    assertThat(proxied.getProxyAddress().getAddress().getHostAddress()).isEqualTo("10.0.0.3");
    assertThat(proxied.getTargetAddress()).isSameAs(TARGET);
    assertThat(proxied.getUsername()).isEqualTo("alice");
    assertThat(proxied.getPassword()).isEqualTo("p@ss+word");
    assertThat(selected).as("the environment decides alone").isEmpty();
    assertThat(prompted).isEmpty();
  }

  @Test
  void lowerCaseVariablesWorkAndUpperCaseWins() throws Exception {
    assertThat(
            detector(Map.of("https_proxy", "proxy.corp:8080"), selector(null))
                .proxyFor(TARGET)
                .getProxyAddress()
                .getPort())
        .isEqualTo(8080);
    assertThat(
            detector(
                    Map.of("HTTPS_PROXY", "proxy.corp:1111", "https_proxy", "proxy.corp:2222"),
                    selector(null))
                .proxyFor(TARGET)
                .getProxyAddress()
                .getPort())
        .isEqualTo(1111);
  }

  @Test
  void aUrlWithoutAPortUsesPort80() throws Exception {
    assertThat(
            detector(Map.of("HTTPS_PROXY", "http://proxy.corp"), selector(null))
                .proxyFor(TARGET)
                .getProxyAddress()
                .getPort())
        .isEqualTo(80);
  }

  @Test
  void noProxyExemptsATargetAndTheSelectorIsNotAsked() throws Exception {
    SystemProxyDetector detector =
        detector(
            Map.of("HTTPS_PROXY", "proxy.corp:3128", "no_proxy", ".example.com"),
            selector(new InetSocketAddress("10.0.0.9", 8080)));

    assertThat(detector.proxyFor(TARGET)).isNull();
    assertThat(detector.proxyFor(InetSocketAddress.createUnresolved("api.other.org", 443)))
        .isNotNull();
    assertThat(selected).isEmpty();
  }

  @Test
  void withoutTheEnvironmentTheJvmSelectorIsAskedForAnHttpsUri() throws Exception {
    HttpConnectProxiedSocketAddress proxied =
        detector(Map.of(), selector(InetSocketAddress.createUnresolved("jvm-proxy.corp", 8443)))
            .proxyFor(TARGET);

    assertThat(selected).containsExactly(URI.create("https://api.example.com:443"));
    assertThat(proxied.getProxyAddress().isUnresolved()).isFalse();
    assertThat(proxied.getProxyAddress().getPort()).isEqualTo(8443);
    assertThat(proxied.getUsername()).isNull();
    assertThat(prompted)
        .as("the authenticator is asked about the proxy")
        .containsExactly("jvm-proxy.corp:8443");
  }

  @Test
  void theAuthenticatorSuppliesCredentialsWhenTheUrlHasNone() throws Exception {
    authenticatorAnswer = new PasswordAuthentication("bob", "secret".toCharArray());

    HttpConnectProxiedSocketAddress proxied =
        detector(Map.of("HTTPS_PROXY", "proxy.corp:3128"), selector(null)).proxyFor(TARGET);

    assertThat(proxied.getUsername()).isEqualTo("bob");
    assertThat(proxied.getPassword()).isEqualTo("secret");
    assertThat(proxied.toString()).doesNotContain("secret");
  }

  @Test
  void aDirectAnswerOrNoSelectorMeansNoProxy() throws Exception {
    assertThat(detector(Map.of(), selector(null)).proxyFor(TARGET)).isNull();
    assertThat(detector(Map.of(), null).proxyFor(TARGET)).isNull();
  }

  @Test
  void loopbackTargetsAreNeverProxiedByDefault() throws Exception {
    SystemProxyDetector detector =
        detector(
            Map.of("HTTPS_PROXY", "proxy.corp:3128"),
            selector(new InetSocketAddress("10.0.0.9", 8080)));

    for (String host :
        new String[] {
          "localhost", "LOCALHOST", "a.localhost", "127.0.0.1", "127.5.6.7", "::1", "[::1]"
        }) {
      assertThat(detector.proxyFor(InetSocketAddress.createUnresolved(host, 50051)))
          .as(host)
          .isNull();
    }
    assertThat(detector.proxyFor(InetSocketAddress.createUnresolved("128.0.0.1", 50051)))
        .isNotNull();
  }

  @Test
  void directAtOnceOnlyWhereTheAnswerIsNoProxyWithoutAskingAnything() throws Exception {
    SystemProxyDetector withEnv =
        detector(
            Map.of("HTTPS_PROXY", "proxy.corp:3128", "NO_PROXY", "10.1.0.0/16,.example.com"),
            selector(null));
    SystemProxyDetector withSelector =
        detector(Map.of(), selector(new InetSocketAddress("10.0.0.9", 8080)));

    for (SystemProxyDetector detector : List.of(withEnv, withSelector)) {
      for (String host : new String[] {"localhost", "127.0.0.1", "127.5.6.7", "::1", "[::1]"}) {
        assertThat(detector.isDirectAtOnce(host, 50051)).as(host).isTrue();
        assertThat(detector.proxyFor(InetSocketAddress.createUnresolved(host, 50051))).isNull();
      }
    }
    assertThat(withEnv.isDirectAtOnce("10.1.2.3", 443)).as("exempted by NO_PROXY").isTrue();
    assertThat(withEnv.isDirectAtOnce("api.example.com", 443)).isTrue();
    assertThat(withEnv.isDirectAtOnce("10.2.2.3", 443)).as("proxied by HTTPS_PROXY").isFalse();
    assertThat(withEnv.proxyFor(InetSocketAddress.createUnresolved("10.2.2.3", 443))).isNotNull();
    assertThat(withSelector.isDirectAtOnce("10.1.2.3", 443))
        .as("the JVM's selector decides, and may block")
        .isFalse();
    assertThat(selected).as("isDirectAtOnce never asks the selector").isEmpty();
  }

  @Test
  void unsupportedOrMalformedProxyUrlsFailNamingTheVariable() {
    assertThatThrownBy(
            () -> detector(Map.of("HTTPS_PROXY", "https://proxy.corp"), null).proxyFor(TARGET))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("HTTPS_PROXY")
        .hasMessageContaining("TLS to the proxy itself is not supported");
    assertThatThrownBy(
            () -> detector(Map.of("https_proxy", "socks5://proxy.corp"), null).proxyFor(TARGET))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("https_proxy names a socks5:// proxy");
    assertThatThrownBy(
            () -> detector(Map.of("HTTPS_PROXY", "http://pro xy"), null).proxyFor(TARGET))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("HTTPS_PROXY is not a proxy URL");
    assertThatThrownBy(
            () -> detector(Map.of("HTTPS_PROXY", "http://u:%zz@proxy"), null).proxyFor(TARGET))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("HTTPS_PROXY is not a proxy URL: Malformed escape pair at index 9")
        .hasMessageNotContaining("u:%zz");
    assertThatThrownBy(
            () -> detector(Map.of("HTTPS_PROXY", "http://u:pw@/"), null).proxyFor(TARGET))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("HTTPS_PROXY has no proxy host: \"http://***@/\"");
  }

  @Test
  void aProxyNameThatDoesNotResolveFailsNamingTheProxy() {
    assertThatThrownBy(
            () -> detector(Map.of("HTTPS_PROXY", "missing.example:3128"), null).proxyFor(TARGET))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("cannot resolve the proxy missing.example:3128 (from HTTPS_PROXY)");
  }

  @Test
  void nonInetAddressesAreNotProxied() throws Exception {
    SocketAddress other = new SocketAddress() {};
    assertThat(detector(Map.of("HTTPS_PROXY", "proxy.corp:3128"), selector(null)).proxyFor(other))
        .isNull();
  }
}
