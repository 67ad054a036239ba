package dev.tern.netty;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.HttpConnectProxiedSocketAddress;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.ProxyDetector;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.testing.EchoService;
import dev.tern.testing.RecordingClientCallListener;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Proxies that refuse, against a real channel and server on loopback: a proxy that answers 403, one
 * that never answers, and a proxy address where nothing listens. Each call fails UNAVAILABLE naming
 * the proxy and what happened. (Tunnels that open, and a 407 for wrong credentials, run against a
 * real proxy server in {@code ProxyPyTest}.)
 */
class HttpConnectProxyFailuresTest {
  /** Fails the test if a buffer leaked (the build runs Netty's detector at paranoid). */
  @RegisterExtension final LeakWatch leaks = new LeakWatch();

  private Server server;
  private ManagedChannel channel;
  private FakeProxy proxy;

  @BeforeEach
  void startServer() throws IOException {
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(EchoService.definition())
            .build()
            .start();
  }

  @AfterEach
  void shutDown() throws Exception {
    if (channel != null) {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    server.shutdownNow();
    assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    if (proxy != null) {
      proxy.stop();
    }
  }

  /** A detector that sends every target through the proxy at {@code proxyPort}. */
  private static ProxyDetector through(int proxyPort) {
    InetSocketAddress proxyAddress = new InetSocketAddress("127.0.0.1", proxyPort);
    return target ->
        target instanceof InetSocketAddress server
            ? HttpConnectProxiedSocketAddress.newBuilder()
                .setProxyAddress(proxyAddress)
                .setTargetAddress(server)
                .build()
            : null;
  }

  private Status call(int proxyPort, long connectTimeoutMillis) {
    channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
            .usePlaintext()
            .connectTimeout(connectTimeoutMillis, TimeUnit.MILLISECONDS)
            .proxyDetector(through(proxyPort))
            .build();
    ClientCall<String, String> call = channel.newCall(EchoService.UNARY, CallOptions.DEFAULT);
    RecordingClientCallListener<String> listener = new RecordingClientCallListener<>();
    call.start(listener, new Metadata());
    call.request(1);
    call.sendMessage("hello");
    call.halfClose();
    return listener.awaitStatus();
  }

  @Test
  void aProxyThatAnswers403FailsTheCallWithItsStatusLine() throws Exception {
    proxy = new FakeProxy("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");

    Status status = call(proxy.port(), 10_000);

    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(status.getDescription())
        .isEqualTo(
            "HTTP CONNECT proxy 127.0.0.1:"
                + proxy.port()
                + " refused to open a tunnel to 127.0.0.1:"
                + server.getPort()
                + ": HTTP/1.1 403 Forbidden");
    assertThat(proxy.request.get(10, TimeUnit.SECONDS))
        .isEqualTo(
            "CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n"
                .formatted(server.getPort(), server.getPort()));
  }

  @Test
  void aProxyThatNeverAnswersFailsTheCallAfterTheConnectTimeout() throws Exception {
    proxy = new FakeProxy(null);

    Status status = call(proxy.port(), 300);

    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(status.getDescription())
        .startsWith(
            "HTTP CONNECT proxy 127.0.0.1:"
                + proxy.port()
                + " did not answer CONNECT 127.0.0.1:"
                + server.getPort()
                + " within ")
        .endsWith(" ms (the connect timeout)");
    assertThat(proxy.request.get(10, TimeUnit.SECONDS)).startsWith("CONNECT ");
  }

  @Test
  void aProxyThatRefusesTheConnectionFailsTheCallNamingIt() throws Exception {
    int nothingListens;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      nothingListens = socket.getLocalPort();
    }

    Status status = call(nothingListens, 10_000);

    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(status.getDescription())
        .startsWith(
            "Failed to connect to the HTTP CONNECT proxy /127.0.0.1:"
                + nothingListens
                + " (for 127.0.0.1:"
                + server.getPort()
                + "): ")
        .contains("Connection refused");
  }

  /**
   * A proxy on a free loopback port that reads one request head and answers {@code answer} (or
   * nothing, holding the connection open, when null). Stopped by {@link #stop}.
   */
  private static final class FakeProxy {
    final CompletableFuture<String> request = new CompletableFuture<>();
    private final ServerSocket socket;
    private final Thread thread;
    private volatile Socket accepted;

    FakeProxy(String answer) throws IOException {
      socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
      thread = new Thread(() -> serve(answer), "fake-proxy");
      thread.setDaemon(true);
      thread.start();
    }

    int port() {
      return socket.getLocalPort();
    }

    private void serve(String answer) {
      try (Socket s = socket.accept()) {
        accepted = s;
        InputStream in = s.getInputStream();
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(ISO_8859_1).endsWith("\r\n\r\n")) {
          int b = in.read();
          if (b < 0) {
            break;
          }
          head.write(b);
        }
        request.complete(head.toString(ISO_8859_1));
        if (answer != null) {
          s.getOutputStream().write(answer.getBytes(ISO_8859_1));
          s.getOutputStream().flush();
        }
        while (in.read() >= 0) {
          // Until the client closes the connection (or stop() does).
        }
      } catch (IOException e) {
        request.completeExceptionally(e);
      }
    }

    void stop() throws IOException, InterruptedException {
      socket.close();
      Socket s = accepted;
      if (s != null) {
        s.close();
      }
      thread.join(10_000);
    }
  }
}
