package dev.tern.inprocess;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Attributes;
import dev.tern.Grpc;
import dev.tern.SecurityLevel;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.spi.ManagedClientTransport;
import dev.tern.spi.TransportServer;
import dev.tern.testing.AbstractTransportTest;
import org.junit.jupiter.api.Test;

/** The SPI conformance suite run against the in-process transport. */
class InProcessTransportTest extends AbstractTransportTest {
  private String name;

  @Override
  protected TransportServer newServer() {
    name = InProcessServerBuilder.generateName();
    return new InProcessServer(name);
  }

  @Override
  protected ManagedClientTransport newClientTransport(TransportServer server) {
    return new InProcessTransport(
        new InProcessSocketAddress(name),
        "in-process-authority",
        "tern-test",
        GrpcHeaders.DEFAULT_MAX_HEADER_LIST_SIZE);
  }

  @Test
  void serverTransportAttributesNameTheServerAndClaimPrivacy() {
    Attributes attrs = serverTransport().awaitReady();
    assertThat(attrs.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR))
        .isEqualTo(new InProcessSocketAddress(name));
    assertThat(attrs.get(Grpc.TRANSPORT_ATTR_LOCAL_ADDR))
        .isEqualTo(new InProcessSocketAddress(name));
    assertThat(attrs.get(Grpc.TRANSPORT_ATTR_SECURITY_LEVEL))
        .isEqualTo(SecurityLevel.PRIVACY_AND_INTEGRITY);
    assertThat(attrs.get(Grpc.TRANSPORT_ATTR_SSL_SESSION)).isNull();
  }

  @Test
  void serverStreamSeesTheClientsAuthority() {
    StreamPair pair = startStream();
    assertThat(pair.serverStream().getAuthority()).isEqualTo("in-process-authority");
    pair.clientStream().cancel(dev.tern.Status.CANCELLED);
    pair.serverListener().awaitClosed();
  }
}
