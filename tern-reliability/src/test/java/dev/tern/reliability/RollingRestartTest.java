package dev.tern.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A rolling restart under load: three Tern servers on 127.0.0.2-4, a client with the docs'
 * recommended configuration ({@link ChaosService#SERVICE_CONFIG}: round_robin, health checking,
 * retries, hedging, keepalive) and the mixed workload; each server in turn is drained (a graceful
 * shutdown: GOAWAY, calls in flight finish) with a deadline after which it is shut down now, then
 * started again on the same port. No call may fail: every call ends as it does without a restart.
 */
class RollingRestartTest {
  /** The drain's deadline: the calls of the workload end within their 3 s deadlines. */
  private static final Duration DRAIN = Duration.ofSeconds(5);

  /** Successes in a row that show a restarted server's channel is serving again. */
  private static final int IN_A_ROW = 30;

  @Test
  @Timeout(120)
  void restartingEachServerInTurnFailsNoCall() throws Exception {
    List<Server> servers = new ArrayList<>();
    List<InetSocketAddress> addresses = new ArrayList<>();
    for (String host : ChaosRun.HOSTS) {
      Server server = TernPeer.startServer(new InetSocketAddress(host, 0));
      servers.add(server);
      addresses.add((InetSocketAddress) server.getListenSockets().get(0));
    }
    Peer.Client client = new TernPeer().newClient(addresses);
    try {
      Workload workload = Workload.start(client, 6);
      List<Outcome> outcomes;
      List<Boolean> drainedInTime = new ArrayList<>();
      try {
        assertThat(workload.awaitSuccesses(System.nanoTime(), IN_A_ROW, Duration.ofSeconds(20)))
            .as("calls succeed before the restarts")
            .isPositive();
        for (int i = 0; i < servers.size(); i++) {
          Server old = servers.get(i);
          old.shutdown();
          boolean drained = old.awaitTermination(DRAIN.toMillis(), TimeUnit.MILLISECONDS);
          drainedInTime.add(drained);
          if (!drained) {
            old.shutdownNow();
            old.awaitTermination(DRAIN.toMillis(), TimeUnit.MILLISECONDS);
          }
          long restarted = System.nanoTime();
          servers.set(i, TernPeer.startServer(addresses.get(i)));
          assertThat(workload.awaitSuccesses(restarted, IN_A_ROW, Duration.ofSeconds(20)))
              .as("calls succeed after restarting %s", addresses.get(i))
              .isPositive();
        }
      } finally {
        outcomes = workload.stop();
      }
      assertThat(drainedInTime).as("each server drained within %s", DRAIN).containsOnly(true);
      assertThat(outcomes.stream().filter(o -> !o.succeeded()).toList())
          .as("calls that failed during the rolling restart (of %d)", outcomes.size())
          .isEmpty();
    } finally {
      client.shutdown(Duration.ofSeconds(5));
      for (Server server : servers) {
        server.shutdownNow();
        server.awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }
}
