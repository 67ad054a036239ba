package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.testing.EchoService;
import dev.tern.testing.LogCapture;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import java.util.logging.Level;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The API-level conformance suite over mutual TLS: the server requires a trusted client key. */
@Tag("external-check") // long, or a rerun: -Pexternal-checks and CI (README.md#development)
class NettyMutualTlsChannelServerTest extends NettyTlsChannelServerTest {
  static TestCertificates clientCertificates;

  @BeforeAll
  static void generateClientCertificates() throws Exception {
    clientCertificates = TestCertificates.generate("tern-client");
  }

  @Override
  protected SslContext serverContext() throws Exception {
    return NettySslContexts.forServer(serverCertificates.key, serverCertificates.certificate)
        .trustManager(clientCertificates.certificate)
        .clientAuth(ClientAuth.REQUIRE)
        .build();
  }

  @Override
  protected SslContext clientContext() throws Exception {
    return NettySslContexts.forClient()
        .trustManager(serverCertificates.certificate)
        .keyManager(clientCertificates.key, clientCertificates.certificate)
        .build();
  }

  @Test
  void clientWithoutAKeyIsRefused() throws Exception {
    try (LogCapture tail = new LogCapture(PIPELINE_TAIL, null);
        LogCapture connections = new LogCapture(CONNECTIONS, Level.FINE)) {
      SslContext anonymous =
          NettySslContexts.forClient().trustManager(serverCertificates.certificate).build();
      ManagedChannel noKey =
          newChannel(server, builder -> ((NettyChannelBuilder) builder).sslContext(anonymous));
      Status status =
          unary(noKey, EchoService.UNARY, CallOptions.DEFAULT, new Metadata(), "hello")
              .awaitStatus();
      assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertHandshakeFailureLogged(
          connections,
          byProvider("Empty client certificate chain", "PEER_DID_NOT_RETURN_A_CERTIFICATE"));
      assertThat(tail.records()).isEmpty();
    }
  }
}
