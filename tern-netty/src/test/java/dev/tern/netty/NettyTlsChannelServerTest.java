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
import dev.tern.netty.internal.EventLoops;
import dev.tern.netty.internal.NettyClientTransport;
import dev.tern.spi.ManagedClientTransport;
import dev.tern.testing.AbstractChannelServerTest;
import dev.tern.testing.EchoService;
import dev.tern.testing.ProbeService;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The API-level conformance suite over HTTP/2 with TLS (server authentication only). */
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
    SslContext trustsSomeoneElse =
        NettySslContexts.forClient().trustManager(otherCertificates.certificate).build();
    ManagedChannel distrustful =
        newChannel(
            server, builder -> ((NettyChannelBuilder) builder).sslContext(trustsSomeoneElse));
    Status status =
        unary(distrustful, EchoService.UNARY, CallOptions.DEFAULT, new Metadata(), "hello")
            .awaitStatus();
    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
  }

  @Test
  void plaintextClientCannotTalkToATlsServer() {
    ManagedChannel plaintext = newChannel(server, builder -> builder.usePlaintext());
    Status status =
        unary(plaintext, EchoService.UNARY, CallOptions.DEFAULT, new Metadata(), "hello")
            .awaitStatus();
    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
  }
}
