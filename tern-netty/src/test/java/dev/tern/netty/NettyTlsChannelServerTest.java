package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.Grpc;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Metadata;
import dev.tern.SecurityLevel;
import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.Status;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.netty.internal.client.NettyClientTransport;
import dev.tern.netty.internal.io.EventLoops;
import dev.tern.spi.ManagedClientTransport;
import dev.tern.testing.AbstractChannelServerTest;
import dev.tern.testing.EchoService;
import dev.tern.testing.LogCapture;
import dev.tern.testing.ProbeService;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslProvider;
import java.net.InetSocketAddress;
import java.text.MessageFormat;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The API-level conformance suite over HTTP/2 with TLS (server authentication only). */
@Tag("external-check") // long, or a rerun: -Pexternal-checks and CI (README.md#development)
class NettyTlsChannelServerTest extends AbstractChannelServerTest {
  /** Fails a test whose buffers Netty's (paranoid) leak detector reports. */
  @RegisterExtension final LeakWatch leaks = new LeakWatch();

  static TestCertificates serverCertificates;
  static TestCertificates otherCertificates;

  @BeforeAll
  static void generateCertificates() throws Exception {
    serverCertificates = TestCertificates.generate("tern-server");
    otherCertificates = TestCertificates.generate("tern-impostor");
  }

  /** The server's TLS context; subclasses add client authentication. */
  protected SslContext serverContext() throws Exception {
    return NettySslContexts.forServer(serverCertificates.key, serverCertificates.certificate)
        .build();
  }

  /** The client's TLS context, trusting the server's certificate. */
  protected SslContext clientContext() throws Exception {
    return NettySslContexts.forClient().trustManager(serverCertificates.certificate).build();
  }

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    try {
      return NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
          .sslContext(serverContext());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  protected ManagedChannelBuilder<?> newChannelBuilder(Server server) {
    try {
      return NettyChannelBuilder.forAddress("127.0.0.1", port(server)).sslContext(clientContext());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  protected ManagedClientTransport newClientTransport(Server server) {
    try {
      return new NettyClientTransport(
          new InetSocketAddress("127.0.0.1", port(server)),
          "127.0.0.1:" + port(server),
          "tern-test",
          new NettyClientTransport.TransportOptions(
              EventLoops.sharedWorkerGroup(),
              EventLoops.clientChannelFactory(EventLoops.sharedWorkerGroup()),
              NettyChannelBuilder.DEFAULT_FLOW_CONTROL_WINDOW,
              GrpcHeaders.DEFAULT_MAX_HEADER_LIST_SIZE,
              10_000,
              clientContext()));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static int port(Server server) {
    return ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
  }

  @Test
  void callsSeeTheTlsSessionAndPrivacy() {
    assertThat(
            unary(channel, ProbeService.ATTRIBUTES, CallOptions.DEFAULT, new Metadata(), "?")
                .awaitStatus()
                .isOk())
        .isTrue();
    Attributes attrs = probe.awaitAttributes();
    assertThat(attrs.get(Grpc.TRANSPORT_ATTR_SECURITY_LEVEL))
        .isEqualTo(SecurityLevel.PRIVACY_AND_INTEGRITY);
    SSLSession session = attrs.get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
    assertThat(session).isNotNull();
    assertThat(session.getProtocol()).isIn("TLSv1.3", "TLSv1.2");
  }

  @Test
  void clientThatDoesNotTrustTheServerFailsUnavailable() throws Exception {
    try (LogCapture tail = new LogCapture(PIPELINE_TAIL, null);
        LogCapture connections = new LogCapture(CONNECTIONS, Level.FINE)) {
      SslContext trustsSomeoneElse =
          NettySslContexts.forClient().trustManager(otherCertificates.certificate).build();
      ManagedChannel distrustful =
          newChannel(
              server, builder -> ((NettyChannelBuilder) builder).sslContext(trustsSomeoneElse));
      Status status =
          unary(distrustful, EchoService.UNARY, CallOptions.DEFAULT, new Metadata(), "hello")
              .awaitStatus();
      assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      // The server hears the client's alert after the client has given up: wait for its line.
      assertHandshakeFailureLogged(
          connections, byProvider("certificate_unknown", "TLSV1_ALERT_INTERNAL_ERROR"));
      assertThat(tail.records()).isEmpty();
    }
  }

  @Test
  void plaintextClientCannotTalkToATlsServer() throws Exception {
    try (LogCapture tail = new LogCapture(PIPELINE_TAIL, null);
        LogCapture connections = new LogCapture(CONNECTIONS, Level.FINE)) {
      ManagedChannel plaintext = newChannel(server, builder -> builder.usePlaintext());
      Status status =
          unary(plaintext, EchoService.UNARY, CallOptions.DEFAULT, new Metadata(), "hello")
              .awaitStatus();
      assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertHandshakeFailureLogged(connections, "not an SSL/TLS record");
      assertThat(tail.records()).isEmpty();
    }
  }

  /**
   * What the server's log says depends on the TLS implementation (both ends use the same one):
   * {@code jdk} under the JDK's, {@code openSsl} under OpenSSL (BoringSSL).
   */
  static String byProvider(String jdk, String openSsl) {
    return NettySslContexts.provider() == SslProvider.OPENSSL ? openSsl : jdk;
  }

  /** Where Netty logs a WARNING and a stack for an exception no handler dealt with. */
  static final String PIPELINE_TAIL = "io.netty.channel.DefaultChannelPipeline";

  /** Where Tern's Netty transport logs expected network failures. */
  static final String CONNECTIONS = "dev.tern.netty.connections";

  /**
   * Asserts that the server logged the failed handshake as one FINE line naming both addresses and
   * the cause, with no stack trace attached.
   */
  static void assertHandshakeFailureLogged(LogCapture connections, String cause)
      throws InterruptedException {
    LogRecord line =
        connections.awaitRecord(
            r -> format(r).contains("TLS handshake failed"), Duration.ofSeconds(10));
    assertThat(line.getLevel()).isEqualTo(Level.FINE);
    assertThat(line.getThrown()).isNull();
    assertThat(format(line)).contains("127.0.0.1:").contains(cause);
    assertThat(connections.records()).allMatch(r -> r.getLevel().equals(Level.FINE));
  }

  static String format(LogRecord record) {
    return MessageFormat.format(record.getMessage(), record.getParameters());
  }
}
