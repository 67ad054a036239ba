package dev.tern.inprocess;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.spi.ManagedClientTransport;
import dev.tern.testing.AbstractChannelServerTest;
import org.junit.jupiter.api.Test;

/** The API-level conformance suite run over the in-process transport. */
class InProcessChannelServerTest extends AbstractChannelServerTest {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return InProcessServerBuilder.forName(cleanup.uniqueName());
  }

  @Override
  protected ManagedChannelBuilder<?> newChannelBuilder(Server server) {
    return InProcessChannelBuilder.forAddress(address(server));
  }

  @Override
  protected ManagedClientTransport newClientTransport(Server server) {
    return new InProcessTransport(
        address(server), "in-process", "tern-test", GrpcHeaders.DEFAULT_MAX_HEADER_LIST_SIZE);
  }

  @Test
  void forTargetWithTheInProcessSchemeReachesTheNamedServer() {
    String name = address(server).getName();
    ManagedChannel byTarget =
        cleanup.register(ManagedChannelBuilder.forTarget("inprocess:" + name).build());

    assertThat(echo(byTarget, "via forTarget")).isEqualTo("via forTarget");
  }

  private static InProcessSocketAddress address(Server server) {
    return (InProcessSocketAddress) server.getListenSockets().get(0);
  }
}
