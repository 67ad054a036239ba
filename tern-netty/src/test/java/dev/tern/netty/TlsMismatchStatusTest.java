package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.testing.EchoService;
import dev.tern.testing.LogCapture;
import dev.tern.testing.RecordingClientCallListener;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A client and a server that disagree about TLS fail the call with a status that says how: the
 * server expects TLS, the server speaks plaintext, the server requires a client certificate.
 */
class TlsMismatchStatusTest {
  private static TestCertificates serverCertificates;
  private static TestCertificates clientCertificates;

  private Server server;
  private ManagedChannel channel;

  @BeforeAll
  static void generateCertificates() throws Exception {
    serverCertificates = TestCertificates.generate("tern-server");
    clientCertificates = TestCertificates.generate("tern-client");
  }

  @AfterEach
  void shutDown() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    if (server != null) {
      server.shutdownNow();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void plaintextClientOnATlsServerHearsThatTheServerExpectsTls() throws Exception {
    server =
        start(
            NettySslContexts.forServer(serverCertificates.key, serverCertificates.certificate)
                .build());
    channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
    Status status = call();
    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(status.getDescription()).contains("the server may expect TLS");
  }

  @Test
  void tlsClientOnAPlaintextServerHearsThatTheServerSpeaksPlaintext() throws Exception {
    server = start(null);
    channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
            .sslContext(
                NettySslContexts.forClient().trustManager(serverCertificates.certificate).build())
            .build();
    Status status = call();
    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(status.getDescription()).contains("the server speaks plaintext");
  }

  @Test
  void clientWithoutACertificateHearsThatOneIsRequired() throws Exception {
    server =
        start(
            NettySslContexts.forServer(serverCertificates.key, serverCertificates.certificate)
                .trustManager(clientCertificates.certificate)
                .clientAuth(ClientAuth.REQUIRE)
                .build());
    channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
            .sslContext(
                NettySslContexts.forClient().trustManager(serverCertificates.certificate).build())
            .build();
    Status status = call();
    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(status.getDescription()).contains("client certificate required");
  }

  private static Server start(SslContext tls) throws Exception {
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(EchoService.definition());
    if (tls != null) {
      builder.sslContext(tls);
    }
    return builder.build().start();
  }

  /** Fails the test if Netty logged an exception no handler dealt with (a WARNING and a stack). */
  private Status call() throws Exception {
    try (LogCapture tail = new LogCapture("io.netty.channel.DefaultChannelPipeline", null)) {
      Status status = callOnce();
      assertThat(tail.records()).isEmpty();
      return status;
    }
  }

  private Status callOnce() {
    ClientCall<String, String> call = channel.newCall(EchoService.UNARY, CallOptions.DEFAULT);
    RecordingClientCallListener<String> listener = new RecordingClientCallListener<>();
    call.start(listener, new Metadata());
    call.request(2);
    call.sendMessage("hello");
    call.halfClose();
    return listener.awaitStatus();
  }
}
