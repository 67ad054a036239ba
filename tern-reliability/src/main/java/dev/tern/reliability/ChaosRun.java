package dev.tern.reliability;

import dev.tern.testtools.Toxiproxy;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One peer's servers on 127.0.0.2-4, each behind its own Toxiproxy proxy, and a client over the
 * three proxies; {@link #run} puts one fault on under the workload, takes it off, and measures.
 * Reusable by later soak and overload runs: the workload and the results do not depend on the
 * fault.
 *
 * <p>Not thread-safe: one thread drives it.
 */
public final class ChaosRun implements AutoCloseable {
  /** The servers' hosts. */
  public static final List<String> HOSTS = List.of("127.0.0.2", "127.0.0.3", "127.0.0.4");

  /** Successes in a row that count as recovered. */
  static final int RECOVERED_AFTER = 5;

  private final Peer peer;
  private final Toxiproxy toxiproxy;
  private final List<String> proxies = new ArrayList<>();
  private final List<InetSocketAddress> ports = new ArrayList<>();
  private final int workers;
  private final Duration faultTime;
  private final Duration recoveryLimit;

  private ChaosRun(
      Peer peer, Toxiproxy toxiproxy, int workers, Duration faultTime, Duration recoveryLimit) {
    this.peer = peer;
    this.toxiproxy = toxiproxy;
    this.workers = workers;
    this.faultTime = faultTime;
    this.recoveryLimit = recoveryLimit;
  }

  /**
   * Starts {@code peer}'s servers and one proxy for each, named {@code <peer>-<n>}, on {@code
   * toxiproxy}.
   */
  public static ChaosRun start(
      Peer peer, Toxiproxy toxiproxy, int workers, Duration faultTime, Duration recoveryLimit)
      throws IOException, InterruptedException {
    ChaosRun run = new ChaosRun(peer, toxiproxy, workers, faultTime, recoveryLimit);
    try {
      List<InetSocketAddress> servers = peer.startServers(HOSTS);
      for (int i = 0; i < servers.size(); i++) {
        String name = peer.name().toLowerCase(java.util.Locale.ROOT).replace(' ', '-') + "-" + i;
        InetSocketAddress server = servers.get(i);
        int port =
            toxiproxy.createProxy(
                name, server.getAddress().getHostAddress() + ":" + server.getPort());
        run.ports.add(new InetSocketAddress("127.0.0.1", port));
        run.proxies.add(name);
      }
      return run;
    } catch (IOException | RuntimeException e) {
      run.close();
      throw e;
    }
  }

  /**
   * On a new client: the workload until it succeeds, then {@code fault} for the fault time, then
   * without it until {@link #RECOVERED_AFTER} calls in a row succeed (or the recovery limit).
   */
  public FaultResult run(Fault fault) throws IOException, InterruptedException {
    Peer.Client client = peer.newClient(ports);
    try {
      Workload workload = Workload.start(client, workers);
      List<Outcome> outcomes;
      long recovery;
      try {
        if (workload.awaitSuccesses(System.nanoTime(), RECOVERED_AFTER, recoveryLimit) < 0) {
          throw new IOException(
              peer.name() + ": no call succeeded before " + fault + " was applied");
        }
        fault.apply(toxiproxy, proxies);
        // How long the fault lasts: the harness's clock, not a synchronisation.
        Thread.sleep(faultTime.toMillis());
        fault.clear(toxiproxy, proxies);
        long cleared = System.nanoTime();
        long recovered = workload.awaitSuccesses(cleared, RECOVERED_AFTER, recoveryLimit);
        recovery = recovered < 0 ? -1 : Math.max(0, (recovered - cleared) / 1_000_000);
      } finally {
        outcomes = workload.stop();
      }
      return new FaultResult(peer.name(), fault, outcomes, recovery);
    } finally {
      client.shutdown(Duration.ofSeconds(5));
    }
  }

  /** Stops the servers (the proxies go with the Toxiproxy server). */
  @Override
  public void close() {
    try {
      peer.stopServers(Duration.ofSeconds(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
