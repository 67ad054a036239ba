package dev.tern.examples.nameresolve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.Server;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.testing.TernCleanupExtension;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The name-resolution example over HTTP/2: {@code example:///greeter} finds two real servers. */
class NameResolveTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();
  private final List<InetSocketAddress> addresses = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    for (Server server : NameResolveServer.start(List.of(0, 0))) {
      addresses.add(new InetSocketAddress("127.0.0.1", cleanup.register(server).getPort()));
    }
  }

  @Test
  void pickFirstSendsEveryCallToOneServer() throws Exception {
    Map<String, Integer> answered =
        NameResolveClient.greet(table(), NameResolveClient.TARGET, "pick_first", 6);

    // Usually the first resolved server; the second if the first was slow to connect (pick_first
    // tries the next address after 250 ms, gRFC A61).
    assertThat(answered).hasSize(1).containsValue(6);
    assertThat(answered).containsAnyOf(Map.entry("server 1", 6), Map.entry("server 2", 6));
  }

  @Test
  void roundRobinSpreadsTheCallsOverEveryResolvedServer() throws Exception {
    Map<String, Integer> answered =
        NameResolveClient.greet(table(), NameResolveClient.TARGET, "round_robin", 20);

    // The first calls may all go to the first server to be READY; over 20, both answer some.
    assertThat(answered).containsOnlyKeys("server 1", "server 2");
    assertThat(answered.values()).allSatisfy(count -> assertThat(count).isBetween(4, 16));
  }

  @Test
  void aServiceTheResolverDoesNotKnowFailsUnavailableNamingIt() {
    assertThatThrownBy(() -> NameResolveClient.greet(table(), "example:///nobody", "pick_first", 1))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
              assertThat(e.getStatus().getDescription()).contains("'nobody'");
            });
  }

  private Map<String, List<InetSocketAddress>> table() {
    return Map.of("greeter", addresses);
  }
}
