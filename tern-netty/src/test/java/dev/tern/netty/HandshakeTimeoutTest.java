package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.ServerTransportFilter;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.Await;
import dev.tern.testing.EchoService;
import dev.tern.testing.LogCapture;
import dev.tern.testing.TernCleanupExtension;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Connections that never become ready (no HTTP/2 preface, a preface trickled a byte at a time, a
 * TLS handshake never finished) are closed once the server's handshake timeout has passed, with one
 * FINE line each, while a well-behaved client's connection, older than the timeout, goes on being
 * served.
 */
@Tag("attack")
class HandshakeTimeoutTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  /** Short, so the tests are quick; long enough for a loopback client to get ready within it. */
  private static final Duration TIMEOUT = Duration.ofSeconds(1);

  /** How often the slowloris peer sends the next byte of its preface. */
  private static final Duration TRICKLE = Duration.ofMillis(100);

  private static final byte[] PREFACE =
      "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  private final AtomicInteger readyConnections = new AtomicInteger();
  private Server server;
  private ManagedChannel channel;

  @BeforeEach
  void startServerAndWellBehavedClient() throws IOException {
    server = start(loopbackServer());
    channel =
        cleanup.register(
            NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build());
    assertThat(unary("before")).isEqualTo("before");
    assertThat(readyConnections).hasValue(1);
  }

  @Test
  void connectionThatSendsNothingIsClosedAfterTheTimeout() throws Exception {
    // Taken before connecting: the server's timer starts once it has accepted the connection.
    long start = System.nanoTime();
    try (LogCapture log = new LogCapture("dev.tern.internal.server.ServerConnection", Level.FINE);
        Socket idle = connect(server.getPort())) {

      awaitClosedByServer(idle);

      assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(TIMEOUT);
      log.awaitRecord(r -> r.getMessage().contains("handshake timeout"), Await.TIMEOUT);
      assertThat(log.records()).hasSize(1);
      assertThat(log.records().get(0).getLevel()).isEqualTo(Level.FINE);
    }
    assertStillServingWellBehavedClient();
  }

  @Test
  void prefaceTrickledAByteAtATimeIsClosedAfterTheTimeout() throws Exception {
    ScheduledExecutorService trickler =
        cleanup.register(Executors.newSingleThreadScheduledExecutor());
    long start = System.nanoTime();
    try (LogCapture log = new LogCapture("dev.tern.internal.server.ServerConnection", Level.FINE);
        Socket slow = connect(server.getPort())) {
      OutputStream out = slow.getOutputStream();
      AtomicInteger sent = new AtomicInteger();
      // Each byte is news to the server, but the timeout counts from the connection's start.
      trickler.scheduleAtFixedRate(
          () -> {
            int next = sent.get();
            if (next < PREFACE.length) {
              try {
                out.write(PREFACE[next]);
                out.flush();
                sent.incrementAndGet();
              } catch (IOException e) {
                throw new IllegalStateException("the server closed the connection", e);
              }
            }
          },
          0,
          TRICKLE.toNanos(),
          TimeUnit.NANOSECONDS);

      awaitClosedByServer(slow);

      assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(TIMEOUT);
      assertThat(sent.get()).as("preface bytes sent").isLessThan(PREFACE.length);
      log.awaitRecord(r -> r.getMessage().contains("handshake timeout"), Await.TIMEOUT);
    }
    assertStillServingWellBehavedClient();
  }

  @Test
  void tlsHandshakeNeverFinishedIsClosedAfterTheTimeout() throws Exception {
    TestCertificates certificates = TestCertificates.generate("handshake-timeout");
    Server tlsServer =
        start(
            loopbackServer()
                .sslContext(
                    NettySslContexts.forServer(certificates.key, certificates.certificate)
                        .build()));
    long start = System.nanoTime();
    try (LogCapture log = new LogCapture("dev.tern.internal.server.ServerConnection", Level.FINE);
        Socket stalled = connect(tlsServer.getPort())) {
      // The start of a TLS record carrying a ClientHello, and nothing more.
      stalled.getOutputStream().write(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01});
      stalled.getOutputStream().flush();

      awaitClosedByServer(stalled);

      assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(TIMEOUT);
      log.awaitRecord(r -> r.getMessage().contains("handshake timeout"), Await.TIMEOUT);
    }
    assertStillServingWellBehavedClient();
  }

  private NettyServerBuilder loopbackServer() {
    return NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .handshakeTimeout(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .addTransportFilter(
            new ServerTransportFilter() {
              @Override
              public Attributes transportReady(Attributes transportAttrs) {
                readyConnections.incrementAndGet();
                return transportAttrs;
              }
            });
  }

  private Server start(NettyServerBuilder builder) throws IOException {
    return cleanup.register(builder.addService(EchoService.definition()).build().start());
  }

  private static Socket connect(int port) throws IOException {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress("127.0.0.1", port));
    socket.setSoTimeout((int) Await.TIMEOUT.toMillis());
    return socket;
  }

  /** Reads (and drops) what the server sends until it closes; fails after {@link Await#TIMEOUT}. */
  private static void awaitClosedByServer(Socket socket) throws IOException {
    InputStream in = socket.getInputStream();
    byte[] buffer = new byte[4096];
    try {
      while (in.read(buffer) >= 0) {
        // The server's SETTINGS, perhaps a GOAWAY: not what this test is about.
      }
    } catch (SocketTimeoutException e) {
      throw new AssertionError("the server kept the connection open for " + Await.TIMEOUT, e);
    } catch (IOException e) {
      // Reset by the server: closed as well.
    }
  }

  /**
   * The channel's connection, made ready before the test and older than the timeout by now, still
   * serves calls: the timer stopped when it became ready.
   */
  private void assertStillServingWellBehavedClient() {
    assertThat(unary("after")).isEqualTo("after");
    assertThat(readyConnections).as("connections made ready").hasValue(1);
  }

  private String unary(String message) {
    return ClientCalls.blockingUnaryCall(
        channel,
        EchoService.UNARY,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
        message);
  }
}
