package dev.tern.inprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.internal.SharedExecutors;
import dev.tern.spi.ServerListener;
import dev.tern.spi.ServerTransport;
import dev.tern.spi.ServerTransportListener;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;

class InProcessServerTest {
  private final String name = "server-test-" + UUID.randomUUID();

  /** The runtime side of a server these tests never connect to. */
  private static final class NoConnections implements ServerListener {
    @Override
    public ServerTransportListener transportCreated(ServerTransport transport) {
      throw new AssertionError("no client connects in these tests");
    }

    @Override
    public void serverShutdown() {}
  }

  @Test
  void aNameInUseCannotBeRegisteredTwiceUntilReleased() throws IOException {
    InProcessServer first = new InProcessServer(name);
    first.start(new NoConnections());
    InProcessServer second = new InProcessServer(name);

    assertThatThrownBy(() -> second.start(new NoConnections()))
        .isInstanceOf(IOException.class)
        .hasMessage("name already registered: " + name);

    first.shutdown();
    second.start(new NoConnections());
    second.shutdown();
  }

  @Test
  void startTwiceIsRejected() throws IOException {
    InProcessServer server = new InProcessServer(name);
    server.start(new NoConnections());
    try {
      assertThatThrownBy(() -> server.start(new NoConnections()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("already started");
    } finally {
      server.shutdown();
    }
  }

  @Test
  void listensOnItsNameAndUsesTheGivenOrSharedScheduler() {
    ScheduledExecutorService own = Executors.newSingleThreadScheduledExecutor();
    try {
      InProcessServer withOwn = new InProcessServer(name, own, 100, 100);
      InProcessServer withShared = new InProcessServer(name);

      List<SocketAddress> addresses = new ArrayList<>(withOwn.getListenSocketAddresses());
      assertThat(addresses).containsExactly(new InProcessSocketAddress(name));
      assertThat(withOwn.getScheduledExecutorService()).isSameAs(own);
      assertThat(withShared.getScheduledExecutorService()).isSameAs(SharedExecutors.timer());
    } finally {
      own.shutdownNow();
    }
  }

  @Test
  void rejectsBadArguments() {
    assertThatThrownBy(() -> new InProcessServer(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("name");
    assertThatThrownBy(() -> new InProcessServer(name, null, -1, 100))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxInboundMessageSize");
    assertThatThrownBy(() -> new InProcessServer(name, null, 100, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxInboundMetadataSize");
    assertThatThrownBy(() -> new InProcessServer(name).start(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("listener");
  }

  @Test
  void socketAddressesAreEqualByName() {
    assertThat(new InProcessSocketAddress("a")).isEqualTo(new InProcessSocketAddress("a"));
    assertThat(new InProcessSocketAddress("a").hashCode())
        .isEqualTo(new InProcessSocketAddress("a").hashCode());
    assertThat(new InProcessSocketAddress("a")).isNotEqualTo(new InProcessSocketAddress("b"));
    assertThat(new InProcessSocketAddress("a")).hasToString("a");
    assertThatThrownBy(() -> new InProcessSocketAddress(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("name must not be empty");
    assertThatThrownBy(() -> new InProcessSocketAddress(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("name");
  }
}
