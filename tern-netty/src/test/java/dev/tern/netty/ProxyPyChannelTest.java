package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.HttpConnectProxiedSocketAddress;
import dev.tern.ManagedChannel;
import dev.tern.ProxyDetector;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.EchoService;
import dev.tern.testtools.ProxyPy;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Calls through a real HTTP CONNECT proxy, proxy.py (tern-test-tools' {@link ProxyPy}; skipped
 * where it is not installed, failed then under {@code CI=true}): plaintext and TLS calls succeed
 * and the proxy logs the tunnel it opened; Basic credentials the proxy accepts let calls through,
 * wrong ones fail them UNAVAILABLE naming the proxy and its 407.
 */
class ProxyPyChannelTest {
  /** Fails the test if a buffer leaked (the build runs Netty's detector at paranoid). */
  @RegisterExtension final LeakWatch leaks = new LeakWatch();

  private static TestCertificates certificates;

  private final List<AutoCloseable> toClose = new ArrayList<>();
  private Server server;
  private ManagedChannel channel;

  @BeforeAll
  static void generateCertificates() throws Exception {
    certificates = TestCertificates.generate("tern-server");
  }

  @AfterEach
  void shutDown() throws Exception {
    if (channel != null) {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    if (server != null) {
      server.shutdownNow();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    for (AutoCloseable c : toClose) {
      c.close();
    }
  }

  private ProxyPy proxy(ProxyPy proxy) {
    toClose.add(proxy);
    return proxy;
  }

  private void startServer(boolean tls) throws Exception {
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(EchoService.definition());
    if (tls) {
      builder.sslContext(
          NettySslContexts.forServer(certificates.key, certificates.certificate).build());
    }
    server = builder.build().start();
  }

  /** A detector that sends every target through {@code proxy}, with {@code user} if not null. */
  private static ProxyDetector through(ProxyPy proxy, String user, String password) {
    InetSocketAddress proxyAddress = new InetSocketAddress("127.0.0.1", proxy.port());
    return target ->
        target instanceof InetSocketAddress server
            ? HttpConnectProxiedSocketAddress.newBuilder()
                .setProxyAddress(proxyAddress)
                .setTargetAddress(server)
                .setUsername(user)
                .setPassword(password)
                .build()
            : null;
  }

  /**
   * A channel to the server (TLS if it has it) whose detector sends every target through {@code
   * proxy}, with {@code user} and {@code password} if not null.
   */
  private void channelThrough(ProxyPy proxy, boolean tls, String user, String password)
      throws Exception {
    NettyChannelBuilder builder =
        NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
            .proxyDetector(through(proxy, user, password));
    if (tls) {
      builder.sslContext(
          NettySslContexts.forClient().trustManager(certificates.certificate).build());
    } else {
      builder.usePlaintext();
    }
    channel = builder.build();
  }

  private String echo(String message) {
    return ClientCalls.blockingUnaryCall(
        channel,
        EchoService.UNARY,
        CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
        message);
  }

  private String target() {
    return "127.0.0.1:" + server.getPort();
  }

  /** Shuts the channel down so that proxy.py, which logs a tunnel when it closes, logs it. */
  private void closeChannel() throws InterruptedException {
    channel.shutdownNow();
    assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aPlaintextCallGoesThroughTheProxy() throws Exception {
    ProxyPy proxy = proxy(ProxyPy.start());
    startServer(false);
    channelThrough(proxy, false, null, null);

    assertThat(echo("through the tunnel")).isEqualTo("through the tunnel");
    closeChannel();

    assertThat(proxy.connectsTo(target(), Duration.ofSeconds(10))).as(proxy.output()).isTrue();
    assertThat(proxy.connects()).containsOnly(target());
  }

  @Test
  void aTlsCallGoesThroughTheProxyCheckingTheServersName() throws Exception {
    ProxyPy proxy = proxy(ProxyPy.start());
    startServer(true);
    channelThrough(proxy, true, null, null);

    assertThat(echo("encrypted end to end")).isEqualTo("encrypted end to end");
    closeChannel();

    assertThat(proxy.connectsTo(target(), Duration.ofSeconds(10))).as(proxy.output()).isTrue();
  }

  @Test
  void basicCredentialsTheProxyAcceptsLetCallsThrough() throws Exception {
    ProxyPy proxy = proxy(ProxyPy.startWithBasicAuth("svc-orders", "s3cret:with:colons"));
    startServer(true);
    channelThrough(proxy, true, "svc-orders", "s3cret:with:colons");

    assertThat(echo("authenticated")).isEqualTo("authenticated");
  }

  @Test
  void wrongCredentialsFailTheCallNamingTheProxyAnd407() throws Exception {
    ProxyPy proxy = proxy(ProxyPy.startWithBasicAuth("svc-orders", "s3cret"));
    startServer(false);
    channelThrough(proxy, false, "svc-orders", "wrong");

    StatusRuntimeException e = callFails();

    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(e.getStatus().getDescription())
        .isEqualTo(
            "HTTP CONNECT proxy 127.0.0.1:"
                + proxy.port()
                + " refused to open a tunnel to "
                + target()
                + ": HTTP/1.1 407 Proxy Authentication Required (the proxy did not accept the"
                + " credentials of svc-orders)");
  }

  @Test
  void noCredentialsForAProxyThatWantsThemFailTheCallSayingSo() throws Exception {
    ProxyPy proxy = proxy(ProxyPy.startWithBasicAuth("svc-orders", "s3cret"));
    startServer(false);
    channelThrough(proxy, false, null, null);

    assertThat(callFails().getStatus().getDescription())
        .endsWith(
            "407 Proxy Authentication Required (the proxy wants credentials; none were configured)");
  }

  @Test
  void aTargetTheProxyCannotReachFailsWithItsBadGateway() throws Exception {
    ProxyPy proxy = proxy(ProxyPy.start());
    startServer(false);
    int port = server.getPort();
    server.shutdownNow();
    assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    channel =
        NettyChannelBuilder.forAddress("127.0.0.1", port)
            .usePlaintext()
            .proxyDetector(through(proxy, null, null))
            .build();

    assertThat(callFails().getStatus().getDescription())
        .isEqualTo(
            "HTTP CONNECT proxy 127.0.0.1:"
                + proxy.port()
                + " refused to open a tunnel to 127.0.0.1:"
                + port
                + ": HTTP/1.1 502 Bad Gateway");
  }

  @Test
  void aProxiedTargetsNameIsLeftForTheProxyToResolve() throws Exception {
    ProxyPy proxy = proxy(ProxyPy.start());
    // .invalid never resolves (RFC 6761): the client does not try, the proxy does and cannot.
    channel =
        NettyChannelBuilder.forTarget("dns:///no-such-host.invalid:443")
            .usePlaintext()
            .proxyDetector(through(proxy, null, null))
            .build();

    assertThat(callFails().getStatus().getDescription())
        .isEqualTo(
            "HTTP CONNECT proxy 127.0.0.1:"
                + proxy.port()
                + " refused to open a tunnel to no-such-host.invalid:443: HTTP/1.1 502 Bad"
                + " Gateway");
  }

  private StatusRuntimeException callFails() {
    try {
      echo("never answered");
    } catch (StatusRuntimeException e) {
      return e;
    }
    throw new AssertionError("the call succeeded");
  }
}
