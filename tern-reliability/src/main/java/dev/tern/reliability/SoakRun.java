package dev.tern.reliability;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One soak: a server of the peer in a child JVM ({@link SoakServer}, on {@value #HOST}), a client
 * of the same peer in this JVM with {@link ChaosService#SERVICE_CONFIG} and keepalive, {@link
 * PacedLoad} between them for {@link Options#duration}, and a {@link Sample} of both processes
 * every {@link Options#interval}. The run's findings: any call that did not end as it does without
 * faults, and any metric of either process whose growth after {@link Options#warmup} ({@link
 * Growth}) exceeds its tolerance, but the client's RSS (shown only: see {@link #findings}). The
 * server's heap should be pinned ({@link #serverHeap}) so that its RSS measures what is not heap.
 *
 * <p>Not thread-safe: one thread runs it.
 */
final class SoakRun {
  static final String HOST = "127.0.0.2";

  /**
   * The server JVM's heap options for a heap of {@code mib} MiB: fixed and touched at start, so
   * that the server's RSS does not move with the GC's heap sizing and its growth is native memory
   * (direct buffers, thread stacks, metaspace).
   */
  static List<String> serverHeap(int mib) {
    return List.of("-Xms" + mib + "m", "-Xmx" + mib + "m", "-XX:+AlwaysPreTouch");
  }

  /**
   * What to run.
   *
   * @param peer {@code tern} or {@code grpc-java}
   * @param rate calls a second in all (0: unpaced, to measure capacity)
   * @param serverJvmOptions the child server JVM's options (a heap bound)
   */
  record Options(
      String peer,
      Duration duration,
      Duration interval,
      Duration warmup,
      int rate,
      int workers,
      List<String> serverJvmOptions) {
    Options {
      SoakRun.peer(peer);
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("interval must be positive, was " + interval);
      }
      if (warmup.isNegative()) {
        throw new IllegalArgumentException("warmup must not be negative, was " + warmup);
      }
      if (duration.minus(warmup).compareTo(interval.multipliedBy(3)) < 0) {
        throw new IllegalArgumentException(
            "duration ("
                + duration
                + ") must leave at least 3 sample intervals ("
                + interval
                + " each) after the warm-up ("
                + warmup
                + ")");
      }
      serverJvmOptions = List.copyOf(serverJvmOptions);
    }
  }

  /** The two processes' resources at {@code seconds} into the run, and the calls ended by then. */
  record Sample(double seconds, ResourceSample server, ResourceSample client, long calls) {}

  /** A run's samples, calls, first failures and findings (empty: nothing grew, no call failed). */
  record Result(
      Options options,
      List<Sample> samples,
      long calls,
      long failures,
      List<Outcome> firstFailures,
      List<String> findings) {}

  private SoakRun() {}

  /** The peer named {@code name}: {@code tern} or {@code grpc-java}. */
  static Peer peer(String name) {
    return switch (name) {
      case "tern" -> new TernPeer();
      case "grpc-java" -> new GrpcJavaPeer();
      default ->
          throw new IllegalArgumentException("peer must be tern or grpc-java, was '" + name + "'");
    };
  }

  /** Runs the soak; a line on {@code progress} per sample. */
  static Result run(Options options, PrintStream progress)
      throws IOException, InterruptedException {
    List<Sample> samples = new ArrayList<>();
    PacedLoad load;
    try (SoakServer server = SoakServer.start(options.peer(), HOST, options.serverJvmOptions())) {
      Peer.Client client = peer(options.peer()).newClient(List.of(server.address()));
      try {
        load = PacedLoad.start(client, options.workers(), options.rate());
        long start = System.nanoTime();
        try {
          for (long next = options.interval().toNanos();
              next <= options.duration().toNanos();
              next += options.interval().toNanos()) {
            long wait = start + next - System.nanoTime();
            if (wait > 0) {
              TimeUnit.NANOSECONDS.sleep(wait);
            }
            Sample sample =
                new Sample(
                    (System.nanoTime() - start) / 1e9,
                    server.sample(),
                    ResourceSample.ofThisProcess(),
                    load.calls());
            samples.add(sample);
            progress.printf(
                "soak: %s %.0f s: %d calls, %d failed%n",
                options.peer(), sample.seconds(), sample.calls(), load.failures());
          }
        } finally {
          load.stop();
        }
      } finally {
        client.shutdown(Duration.ofSeconds(10));
      }
    }
    return new Result(
        options,
        List.copyOf(samples),
        load.calls(),
        load.failures(),
        load.firstFailures(),
        findings(options, samples, load));
  }

  private static List<String> findings(Options options, List<Sample> samples, PacedLoad load) {
    List<String> findings = new ArrayList<>();
    if (load.failures() > 0) {
      findings.add(
          load.failures()
              + " of "
              + load.calls()
              + " calls failed, first: "
              + load.firstFailures());
    }
    List<Sample> after =
        samples.stream().filter(s -> s.seconds() >= options.warmup().toSeconds()).toList();
    List<Double> seconds = after.stream().map(Sample::seconds).toList();
    for (boolean isServer : new boolean[] {true, false}) {
      for (ResourceSample.Metric metric : ResourceSample.Metric.values()) {
        if (!isServer && metric == ResourceSample.Metric.RSS) {
          // The client is this JVM, whose heap is not pinned: its RSS follows the GC's heap
          // sizing (swings of 150 MiB within 10 s under 1 MiB messages), so it is shown, not
          // judged; its heap after GC, threads and fds are.
          continue;
        }
        List<Double> values =
            after.stream()
                .map(s -> (double) (isServer ? s.server() : s.client()).get(metric))
                .toList();
        double growth = Growth.over(seconds, values);
        double tolerance = Growth.of(metric).tolerance(values.get(0));
        if (growth > tolerance) {
          findings.add(
              String.format(
                  "%s %s grew %s over %.0f s after warm-up (tolerated %s)",
                  isServer ? "server" : "client",
                  metric.label(),
                  metric.format(growth),
                  seconds.get(seconds.size() - 1) - seconds.get(0),
                  metric.format(tolerance)));
        }
      }
    }
    return findings;
  }
}
