package dev.tern.reliability;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One overload run of one server configuration: the server in a child JVM ({@link SoakServer} on
 * {@value SoakRun#HOST}, its heap bounded), a client of the same peer in this JVM, and an {@link
 * OverloadWorkload}'s calls between them: a warm-up, the capacity ({@link WorkLoad#closed}), an
 * unloaded step at {@link #UNLOADED} of it, then an open load at each multiple of the capacity in
 * turn. After each step the server's heap after GC, threads and fds are sampled, and whether it is
 * still running; once it is not, the run stops.
 *
 * <p>Not thread-safe: one thread runs it.
 */
final class OverloadRun {
  /** The unloaded step's load, as a multiple of the capacity; its p99 is the reference. */
  static final double UNLOADED = 0.1;

  /** How long the server may take to serve a first call once it listens. */
  static final Duration STARTUP = Duration.ofSeconds(30);

  /**
   * The calls in flight of the closed loads that measure capacity, one after the other (each at
   * most the server's {@code maxConcurrentCalls}); the capacity is the best of them. For the calls
   * that cost CPU; {@link OverloadWorkload#BLOCKING} has its own levels. A server without a limit
   * may serve fewer calls a second with 32 running on its core than with a few (threads taking
   * turns), which made the capacity measure low and its "1.5x" no overload.
   */
  static final List<Integer> CAPACITY_IN_FLIGHT = List.of(4, 8, 32);

  /**
   * What to run.
   *
   * @param peer {@code tern} or {@code grpc-java}
   * @param maxConcurrentCalls Tern's server-wide bound ({@link Integer#MAX_VALUE}: its default)
   * @param adaptiveConcurrencyLimit whether Tern's server has its adaptive limit (its default);
   *     true for grpc-java, which has none
   * @param multiples the loaded steps, as multiples of the capacity, in order
   * @param capacity the calls a second the multiples are of; 0 measures it (closed loop), after a
   *     warm-up of {@code capacityTime}; a run of a server that sheds calls takes that of the same
   *     server without the bound, so that both get the same loads
   * @param capacityTime how long the capacity is measured, and the warm-up lasts
   * @param stepTime how long each loaded step offers its load
   * @param unloadedTime how long the unloaded step offers its load
   * @param deadline each call's deadline
   * @param serverJvmOptions the child server JVM's options (a heap bound)
   * @param serverCpus the CPUs the server JVM runs on ({@code taskset -c}); empty: not pinned
   * @param workload the calls
   */
  record Options(
      String peer,
      int maxConcurrentCalls,
      boolean adaptiveConcurrencyLimit,
      List<Double> multiples,
      double capacity,
      Duration capacityTime,
      Duration stepTime,
      Duration unloadedTime,
      Duration deadline,
      WorkLoad.Arrivals arrivals,
      List<String> serverJvmOptions,
      String serverCpus,
      OverloadWorkload workload) {
    Options {
      SoakRun.peer(peer);
      if (maxConcurrentCalls <= 0
          || (maxConcurrentCalls != Integer.MAX_VALUE && !peer.equals("tern"))) {
        throw new IllegalArgumentException(
            "maxConcurrentCalls must be > 0, and set only for tern, was "
                + maxConcurrentCalls
                + " for "
                + peer);
      }
      if (!adaptiveConcurrencyLimit && !peer.equals("tern")) {
        throw new IllegalArgumentException(
            "adaptiveConcurrencyLimit is Tern's, and only it can turn it off, not " + peer);
      }
      for (double multiple : multiples) {
        if (!(multiple > 0)) {
          throw new IllegalArgumentException("multiples must be > 0, was " + multiples);
        }
      }
      if (!(capacity >= 0)) {
        throw new IllegalArgumentException(
            "capacity must be >= 0 (0: measure it), was " + capacity);
      }
      multiples = List.copyOf(multiples);
      serverJvmOptions = List.copyOf(serverJvmOptions);
      CpuPinning.check("server-cpus", serverCpus);
      Objects.requireNonNull(workload, "workload");
    }

    /** These options with {@code capacity} (0: measure it). */
    Options withCapacity(double capacity) {
      return new Options(
          peer,
          maxConcurrentCalls,
          adaptiveConcurrencyLimit,
          multiples,
          capacity,
          capacityTime,
          stepTime,
          unloadedTime,
          deadline,
          arrivals,
          serverJvmOptions,
          serverCpus,
          workload);
    }

    /** The configuration's name in the report. */
    String name() {
      Peer named =
          peer.equals("tern")
              ? new TernPeer(maxConcurrentCalls, adaptiveConcurrencyLimit)
              : SoakRun.peer(peer);
      return named.name();
    }

    /** Whether this is a server with no limit on calls in progress: its capacity is the others'. */
    boolean unbounded() {
      return maxConcurrentCalls == Integer.MAX_VALUE
          && (!adaptiveConcurrencyLimit || !peer.equals("tern"));
    }
  }

  /**
   * One step: its load as a multiple of the capacity, the calls a second offered and the OK ones,
   * the OK calls' p50 and p99 (ns from their scheduled start; -1 if none), each status's count and
   * a description, the failed calls without one, the calls still open after the wait (hangs), the
   * longest call from its start, the most the client issued a call after its schedule (its own lag,
   * included in the latencies), the server's sample after it (null if it was gone), and the calls
   * ended and OK of each kind of call ({@link OverloadWorkload#MIXED}'s cheap and expensive ones).
   */
  record Step(
      double multiple,
      double offered,
      double goodput,
      long p50Nanos,
      long p99Nanos,
      Map<String, Long> counts,
      Map<String, String> descriptions,
      long undescribed,
      int open,
      long longestNanos,
      long behindNanos,
      ResourceSample server,
      Map<String, CallTally.KindCount> byKind) {
    /** Whether the server was still running after this step. */
    boolean survived() {
      return server != null;
    }
  }

  /**
   * The run: the capacity (OK calls/s, the best closed loop), the calls in flight it was measured
   * at, and the steps, the unloaded one first.
   */
  record Result(Options options, double capacity, int capacityInFlight, List<Step> steps) {
    /** The unloaded step's p99 (ns), the reference of {@link #highestBounded}. */
    long unloadedP99() {
      return steps.get(0).p99Nanos();
    }

    /**
     * The highest multiple whose OK calls' p99 stayed within twice the unloaded p99, while the
     * server survived; 0 if none did.
     */
    double highestBounded() {
      double highest = 0;
      for (Step step : steps.subList(1, steps.size())) {
        if (step.survived() && step.p99Nanos() >= 0 && step.p99Nanos() <= 2 * unloadedP99()) {
          highest = Math.max(highest, step.multiple());
        }
      }
      return highest;
    }

    /**
     * What a user would call wrong: a server that did not survive a step, a call still open {@link
     * Workload#HANG_GRACE} past its deadline, a status other than {@link #ALLOWED}, a failed call
     * without a description. Empty: none.
     */
    List<String> findings() {
      List<String> findings = new ArrayList<>();
      for (Step step : steps) {
        String at = String.format("%s at %.1fx: ", options.name(), step.multiple());
        if (!step.survived()) {
          findings.add(at + "the server was gone after the step");
        }
        if (step.open() > 0) {
          findings.add(
              at
                  + step.open()
                  + " calls had not ended "
                  + Workload.HANG_GRACE
                  + " past their deadline");
        }
        step.counts()
            .forEach(
                (code, count) -> {
                  if (!ALLOWED.contains(code)) {
                    findings.add(
                        at + count + " calls ended " + code + ": " + step.descriptions().get(code));
                  }
                });
        if (step.undescribed() > 0) {
          findings.add(at + step.undescribed() + " failed calls had no description");
        }
      }
      if (steps.size() < options.multiples().size() + 1) {
        findings.add(options.name() + ": the run stopped after " + steps.size() + " steps");
      }
      return findings;
    }
  }

  /**
   * The statuses an overloaded server's calls may end with: OK, or shed clearly
   * (RESOURCE_EXHAUSTED, UNAVAILABLE) or too late (DEADLINE_EXCEEDED).
   */
  static final Set<String> ALLOWED =
      Set.of("OK", "RESOURCE_EXHAUSTED", "UNAVAILABLE", "DEADLINE_EXCEEDED");

  private OverloadRun() {}

  /** Runs it; a line on {@code progress} per step. */
  static Result run(Options options, PrintStream progress)
      throws IOException, InterruptedException {
    List<String> serverArgs =
        options.peer().equals("tern")
            ? List.of(
                Integer.toString(options.maxConcurrentCalls()),
                Boolean.toString(options.adaptiveConcurrencyLimit()))
            : List.of();
    List<Step> steps = new ArrayList<>();
    double capacity;
    int capacityInFlight = 0;
    try (SoakServer server =
        SoakServer.start(
            CpuPinning.launcher(options.serverCpus()),
            options.peer(),
            SoakRun.HOST,
            options.serverJvmOptions(),
            serverArgs)) {
      Peer.Client client = SoakRun.peer(options.peer()).newClient(List.of(server.address()));
      try {
        collectClientHeap();
        awaitFirstOk(client, options.workload(), options.name());
        // Never more in flight than the server admits: the calls it shed would be reissued at
        // once, and the client's spinning on them would take CPU from the server.
        // Each level once: a maxConcurrentCalls below them makes several the same.
        List<Integer> levels =
            options.workload().capacityInFlight().stream()
                .map(level -> Math.min(level, options.maxConcurrentCalls()))
                .distinct()
                .toList();
        WorkLoad.closed(
            client,
            options.workload(),
            levels.get(levels.size() - 1),
            options.capacityTime(),
            options.deadline());
        WorkLoad.Capacity measured = null;
        for (int inFlight : levels) {
          WorkLoad.Capacity at =
              WorkLoad.closed(
                  client, options.workload(), inFlight, options.capacityTime(), options.deadline());
          if (measured == null || at.okPerSecond() > measured.okPerSecond()) {
            measured = at;
            capacityInFlight = inFlight;
          }
        }
        capacity = options.capacity() > 0 ? options.capacity() : measured.okPerSecond();
        if (!(capacity > 0)) {
          throw new IOException(
              options.name()
                  + ": no call ended OK while measuring capacity: "
                  + measured.tally().counts()
                  + ", "
                  + measured.tally().descriptions());
        }
        progress.printf(
            "overload: %s: capacity %.0f calls/s (measured: %.0f)%n",
            options.name(), capacity, measured.okPerSecond());
        List<Double> multiples = new ArrayList<>();
        multiples.add(UNLOADED);
        multiples.addAll(options.multiples());
        long seed = 1;
        for (double multiple : multiples) {
          Step step = step(options, client, server, multiple, capacity, seed++);
          steps.add(step);
          progress.printf(
              "overload: %s: %.1fx: %.0f offered/s, %.0f OK/s, p99 %.1f ms, %s%n",
              options.name(),
              multiple,
              step.offered(),
              step.goodput(),
              step.p99Nanos() / 1e6,
              step.counts());
          if (!step.survived()) {
            break;
          }
        }
      } finally {
        client.shutdown(Duration.ofSeconds(10));
      }
    }
    return new Result(options, capacity, capacityInFlight, List.copyOf(steps));
  }

  /**
   * Collects this JVM's heap, the client's, before a row's capacity loops and before each step: an
   * earlier step's or row's garbage (the unbounded row's 5x step left about 900 MB in G1's old
   * generation) otherwise lengthens the client's young pauses in the loads after it (50-300 ms
   * against about 1 ms), and the client falls behind its schedule by as much, which the latencies
   * from the schedule charge to the server (and a closed loop's capacity to the server too).
   */
  private static void collectClientHeap() {
    System.gc();
  }

  /**
   * Makes calls one at a time until one ends OK (the connection is up, the health check passed), so
   * that the connection's set-up is not charged to the warm-up; each may take {@link #STARTUP}.
   */
  private static void awaitFirstOk(Peer.Client client, OverloadWorkload workload, String name)
      throws IOException, InterruptedException {
    ChaosService.WorkCall call = workload.calls(0).next();
    long deadline = System.nanoTime() + STARTUP.toNanos();
    Peer.CallEnd last = null;
    while (System.nanoTime() < deadline) {
      try {
        last = client.work(call, STARTUP).get(STARTUP.toMillis() * 2, TimeUnit.MILLISECONDS);
      } catch (ExecutionException | TimeoutException e) {
        throw new IOException(name + ": the first call did not end", e);
      }
      if (last.code().equals("OK")) {
        return;
      }
    }
    throw new IOException(name + ": no call ended OK within " + STARTUP + ", last: " + last);
  }

  private static Step step(
      Options options,
      Peer.Client client,
      SoakServer server,
      double multiple,
      double capacity,
      long seed)
      throws InterruptedException {
    Duration time = multiple == UNLOADED ? options.unloadedTime() : options.stepTime();
    double seconds = time.toNanos() / 1e9;
    collectClientHeap();
    WorkLoad.Step load =
        WorkLoad.open(
            client,
            options.workload(),
            multiple * capacity,
            time,
            options.deadline(),
            options.arrivals(),
            seed);
    CallTally tally = load.tally();
    ResourceSample sample = null;
    if (server.isAlive()) {
      try {
        sample = server.sample();
      } catch (IOException | RuntimeException e) {
        // Gone (out of heap, say): the step records it as not survived.
      }
    }
    return new Step(
        multiple,
        load.issued() / seconds,
        tally.ok() / seconds,
        tally.okLatencyPercentile(50),
        tally.okLatencyPercentile(99),
        tally.counts(),
        tally.descriptions(),
        tally.undescribed(),
        load.open(),
        tally.longestNanos(),
        tally.behindNanos(),
        sample,
        tally.byKind());
  }
}
