package dev.tern.reliability;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A rolling restart under load, for one {@link Peer}: three servers on {@link ChaosRun#HOSTS}, a
 * client over them with {@link ChaosService#SERVICE_CONFIG} and the mixed {@link Workload}; each
 * server in turn is drained ({@link Peer#drainServer}) and started again on its address, and the
 * next one is drained once the restarted server serves the client's calls again, as a rollout waits
 * for a new instance to take traffic (or, to show why that matters, as soon as calls succeed). Not
 * thread-safe: one run at a time.
 */
public final class RollingRestartRun {
  /** Calls in a row that must succeed after each restart, and calls the restarted server serves. */
  static final int IN_A_ROW = 30;

  /** How long each step may take before the run reports it as not reached. */
  static final Duration STEP_LIMIT = Duration.ofSeconds(20);

  /**
   * What a run saw.
   *
   * @param peer the implementation's name
   * @param outcomes every call of the workload
   * @param drainedInTime per server, whether its graceful shutdown finished within the deadline
   * @param servingAgain per server, whether the client's calls succeeded (and, when waiting for
   *     traffic, reached it) again after its restart within {@link #STEP_LIMIT}
   * @param startNanos when the run started ({@link System#nanoTime})
   * @param warmedUpNanos when {@link #IN_A_ROW} calls in a row had succeeded, before the first
   *     drain: the calls started from then on are the ones measured
   * @param steps per server, when its drain started and ended and when it served again
   */
  public record Result(
      String peer,
      List<Outcome> outcomes,
      List<Boolean> drainedInTime,
      List<Boolean> servingAgain,
      long startNanos,
      long warmedUpNanos,
      List<String> steps) {
    /** The calls started after the warm-up: those the rolling restart may disturb. */
    public List<Outcome> measured() {
      return outcomes.stream().filter(o -> o.startNanos() - warmedUpNanos >= 0).toList();
    }

    /** The measured calls that did not end as they do without a restart. */
    public List<Outcome> failed() {
      return measured().stream().filter(o -> !o.succeeded()).toList();
    }

    /** The calls of the warm-up (a cold JVM's first seconds) that failed: not measured. */
    public long warmUpFailures() {
      return outcomes.stream()
          .filter(o -> o.startNanos() - warmedUpNanos < 0 && !o.succeeded())
          .count();
    }

    /** The steps and the failed calls, in ms since the start, to tell which step they met. */
    public String timeline() {
      StringBuilder text = new StringBuilder(String.join("; ", steps));
      for (Outcome o : failed()) {
        text.append("\n")
            .append(o.kind())
            .append(' ')
            .append(o.code())
            .append(" from ")
            .append(millis(o.startNanos()))
            .append(" to ")
            .append(millis(o.endNanos()))
            .append(" ms: ")
            .append(o.description());
      }
      return text.toString();
    }

    private long millis(long nanos) {
      return TimeUnit.NANOSECONDS.toMillis(nanos - startNanos);
    }
  }

  private RollingRestartRun() {}

  /**
   * Runs the rolling restart on {@code peer} with {@code workers} calls in flight at once.
   *
   * @param waitForTraffic whether the next server is drained only once the restarted one served the
   *     client's calls again (as a rollout waits for a new instance to take traffic), or as soon as
   *     calls succeed again (wherever they went)
   */
  public static Result run(Peer peer, int workers, Duration drain, boolean waitForTraffic)
      throws IOException, InterruptedException {
    long start = System.nanoTime();
    List<InetSocketAddress> addresses = peer.startServers(ChaosRun.HOSTS);
    List<String> steps = new ArrayList<>();
    List<Boolean> drainedInTime = new ArrayList<>();
    List<Boolean> servingAgain = new ArrayList<>();
    List<Outcome> outcomes;
    long warmedUp;
    Peer.Client client = peer.newClient(addresses);
    try {
      Workload workload = Workload.start(client, workers);
      try {
        if (workload.awaitSuccesses(System.nanoTime(), IN_A_ROW, STEP_LIMIT) < 0) {
          throw new IllegalStateException(
              peer.name()
                  + ": "
                  + IN_A_ROW
                  + " calls in a row did not succeed before the restarts");
        }
        warmedUp = System.nanoTime();
        for (int i = 0; i < addresses.size(); i++) {
          long drainStart = System.nanoTime();
          drainedInTime.add(peer.drainServer(i, drain));
          long restarted = System.nanoTime();
          CountDownLatch served = new CountDownLatch(IN_A_ROW);
          peer.restartServer(i, served);
          boolean succeeding = workload.awaitSuccesses(restarted, IN_A_ROW, STEP_LIMIT) >= 0;
          boolean reached =
              !waitForTraffic || served.await(STEP_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
          servingAgain.add(succeeding && reached);
          steps.add(
              String.format(
                  "%s drained %d-%d ms, serving again at %d ms",
                  addresses.get(i).getAddress().getHostAddress(),
                  TimeUnit.NANOSECONDS.toMillis(drainStart - start),
                  TimeUnit.NANOSECONDS.toMillis(restarted - start),
                  TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)));
        }
      } finally {
        outcomes = workload.stop();
      }
    } finally {
      client.shutdown(Duration.ofSeconds(5));
      peer.stopServers(Duration.ofSeconds(5));
    }
    return new Result(peer.name(), outcomes, drainedInTime, servingAgain, start, warmedUp, steps);
  }
}
