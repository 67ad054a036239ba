package dev.tern.examples.loadbalance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The demo as a user runs it: three real servers over HTTP/2, one channel. */
class LoadBalancingDemoTest {
  private List<Server> servers = List.of();

  @AfterEach
  void stopServers() throws InterruptedException {
    for (Server server : servers) {
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void roundRobinSendsEachCallToTheNextServer() throws Exception {
    servers = LoadBalancingDemo.startServers(3);

    Map<String, Integer> answered =
        LoadBalancingDemo.greet(LoadBalancingDemo.ipv4Target(servers), "round_robin", 30);

    // Calls start once the first server is READY, so the first few may all go to one server; over
    // 30 calls each server answers some, and none answers most.
    assertThat(answered).containsOnlyKeys("server 1", "server 2", "server 3");
    assertThat(answered.values()).allSatisfy(count -> assertThat(count).isBetween(5, 20));
  }

  @Test
  void pickFirstSendsEveryCallToTheFirstServer() throws Exception {
    servers = LoadBalancingDemo.startServers(3);

    Map<String, Integer> answered =
        LoadBalancingDemo.greet(LoadBalancingDemo.ipv4Target(servers), "pick_first", 10);

    assertThat(answered).containsExactly(Map.entry("server 1", 10));
  }
}
