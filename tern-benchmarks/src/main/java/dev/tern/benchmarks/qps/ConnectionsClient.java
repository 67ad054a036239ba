package dev.tern.benchmarks.qps;

import dev.tern.netty.internal.io.NettyProperties;
import dev.tern.testtools.cli.CommandLine;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * The client of {@code bin/bench-compare}'s connections part, on Tern or on grpc-java 1.79 ({@code
 * --system}), each against its own qps server. Every connection is a channel of its own that makes
 * one empty unary call ({@code BenchmarkService/UnaryCall}), so the server holds a live HTTP/2
 * connection with one finished call. Two modes:
 *
 * <ul>
 *   <li>{@code --idle_connections=N}: opens N connections, {@code --concurrent_opens} at a time,
 *       prints {@code idle connections: N} once every first call has succeeded, then holds them,
 *       idle, until killed (or for {@code --hold_seconds}). The driver reads the server's heap and
 *       RSS meanwhile.
 *   <li>{@code --new_connections=N}: after {@code --warmup_connections} unmeasured ones, opens N
 *       connections one after another, each timed from building the channel to the end of its first
 *       call and then closed, and prints the latencies and connections per second.
 * </ul>
 *
 * <p>The client end of each connection is bound to 127.0.0.2, 127.0.0.3, ... in turn ({@code
 * --source_addresses}, see {@link SourceAddresses}). Both systems' channels share one NIO event
 * loop group per run (see {@link ConnectionOpener}), so ten thousand channels cost a few threads.
 *
 * <p>Thread-safety: the main thread drives everything; the first calls' completions run on the
 * channels' threads and touch only thread-safe counters.
 */
public final class ConnectionsClient {
  /** The flags; {@code --help} prints them. */
  static final CommandLine FLAGS =
      CommandLine.builder(
              "ConnectionsClient",
              "many connections to a qps server, each its own channel making one empty unary call:"
                  + " held idle, or timed one by one")
          .flag("system", ConnectionOpener.SYSTEMS, "tern", "whose channels to use")
          .flag("address", "HOST:PORT", "127.0.0.1:8080", "the qps server")
          .flag(
              "idle_connections",
              "N",
              null,
              "open N connections and hold them idle (prints 'idle connections: N' when all are up)")
          .flag(
              "new_connections",
              "N",
              null,
              "instead: time N new connections one after another (connect + first call)")
          .flag(
              "warmup_connections",
              "N",
              "0",
              "with --new_connections: new connections made and closed before timing")
          .flag(
              "source_addresses",
              "N",
              "10",
              "bind the client ends to 127.0.0.2 .. 127.0.0.(N+1) in turn; 0: the kernel chooses")
          .flag(
              "concurrent_opens",
              "N",
              "50",
              "with --idle_connections: connections being opened at once")
          .flag(
              "hold_seconds",
              "S",
              "0",
              "with --idle_connections: close them and exit after S seconds; 0: hold until killed")
          .usage(
              "java -cp \"$TERN_CP\" dev.tern.benchmarks.qps.ConnectionsClient --system=tern|grpc-java"
                  + " --address=HOST:PORT (--idle_connections=N | --new_connections=N) [FLAGS]")
          .note(
              "Exit status: 0 when every first call succeeded; 1 when any failed; 2 for a bad"
                  + " flag.")
          .example(
              "java -cp \"$TERN_CP\" dev.tern.benchmarks.qps.ConnectionsClient --system=grpc-java"
                  + " --address=127.0.0.1:8080 --new_connections=1000 --warmup_connections=1000");

  private ConnectionsClient() {}

  /** Entry point; see {@link #FLAGS}. Exits with {@link #run}'s status. */
  public static void main(String[] args) throws Exception {
    // Both systems' channels run here on Netty 4.2, whose JFR events grpc-java's own Netty 4.1
    // never had and Tern's builders turn off before Netty loads; this program makes its group
    // first, so it turns them off for both (see Transport).
    NettyProperties.applyDefaults();
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Runs the mode the flags name, printing its result to {@code out}.
   *
   * @return 0 when every first call succeeded (or after {@code --help}); 1 after a one-line report
   *     to {@code err} when any failed; 2 after a one-line message naming the flag if a flag is bad
   */
  static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
    CommandLine.Values flags;
    InetSocketAddress server;
    SourceAddresses sources;
    try {
      flags = FLAGS.parse(args);
      if (flags.has("idle_connections") == flags.has("new_connections")) {
        throw FLAGS.usageError("give one of --idle_connections and --new_connections");
      }
      String system = flags.string("system");
      if (!system.equals("tern") && !system.equals("grpc-java")) {
        throw FLAGS.usageError("--system must be tern or grpc-java, got " + system);
      }
      try {
        server = Transport.parseAddress(flags.string("address"));
        sources = SourceAddresses.loopback(flags.integer("source_addresses", 0));
      } catch (IllegalArgumentException e) {
        throw FLAGS.usageError(e.getMessage());
      }
      flags.integer("warmup_connections", 0);
      flags.integer("concurrent_opens", 1);
      flags.integer("hold_seconds", 0);
    } catch (CommandLine.Exit exit) {
      return exit.report(out, err);
    }
    try (ConnectionOpener opener =
        ConnectionOpener.forSystem(flags.string("system"), server, sources)) {
      if (flags.has("idle_connections")) {
        return holdIdle(
            opener,
            flags.integer("idle_connections", 1),
            flags.integer("concurrent_opens", 1),
            flags.integer("hold_seconds", 0),
            sources,
            out,
            err);
      }
      return timeNew(
          opener,
          flags.integer("warmup_connections", 0),
          flags.integer("new_connections", 1),
          out,
          err);
    }
  }

  /**
   * Opens {@code count} connections, {@code concurrent} at a time, reports them and holds them for
   * {@code holdSeconds} (0: until the JVM is stopped).
   */
  private static int holdIdle(
      ConnectionOpener opener,
      int count,
      int concurrent,
      int holdSeconds,
      SourceAddresses sources,
      PrintStream out,
      PrintStream err)
      throws InterruptedException {
    List<ConnectionOpener.Connection> connections = new ArrayList<>(count);
    Semaphore opening = new Semaphore(concurrent);
    AtomicInteger failed = new AtomicInteger();
    AtomicReference<Throwable> firstFailure = new AtomicReference<>();
    long start = System.nanoTime();
    try {
      for (int i = 0; i < count; i++) {
        opening.acquire();
        ConnectionOpener.Connection connection = opener.open();
        connections.add(connection);
        connection
            .firstCall()
            .whenComplete(
                (ignored, failure) -> {
                  if (failure != null) {
                    failed.incrementAndGet();
                    firstFailure.compareAndSet(null, failure);
                  }
                  opening.release();
                });
      }
      long deadline = ConnectionOpener.FIRST_CALL_DEADLINE_SECONDS + 5L;
      if (!opening.tryAcquire(concurrent, deadline, TimeUnit.SECONDS)) {
        err.println(
            FLAGS.program() + ": the last first calls did not end within " + deadline + " s");
        return 1;
      }
      if (failed.get() > 0) {
        err.println(
            FLAGS.program()
                + ": "
                + failed.get()
                + " of "
                + count
                + " first calls failed; the first: "
                + firstFailure.get());
        return 1;
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      out.printf(
          "idle connections: %d (opened in %.1f s, client ends on %s)%n", count, seconds, sources);
      out.flush();
      if (holdSeconds == 0) {
        new CountDownLatch(1).await(); // until the JVM is stopped
      } else {
        TimeUnit.SECONDS.sleep(holdSeconds);
      }
      return 0;
    } finally {
      for (ConnectionOpener.Connection connection : connections) {
        connection.close();
      }
    }
  }

  /**
   * Makes {@code warmup} and then {@code count} new connections one after another, each closed
   * after its first call, and prints the measured ones' latency percentiles and rate.
   */
  private static int timeNew(
      ConnectionOpener opener, int warmup, int count, PrintStream out, PrintStream err)
      throws InterruptedException {
    Histogram latencies = new Histogram(3);
    for (int i = 0; i < warmup; i++) {
      if (!connectOnce(opener, null, err)) {
        return 1;
      }
    }
    long start = System.nanoTime();
    for (int i = 0; i < count; i++) {
      if (!connectOnce(opener, latencies, err)) {
        return 1;
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    out.printf("New connections:                %d%n", count);
    out.printf("Warm-up connections:            %d%n", warmup);
    out.printf("50%%ile Latency (in micros):     %d%n", micros(latencies.getValueAtPercentile(50)));
    out.printf("90%%ile Latency (in micros):     %d%n", micros(latencies.getValueAtPercentile(90)));
    out.printf("99%%ile Latency (in micros):     %d%n", micros(latencies.getValueAtPercentile(99)));
    out.printf("Maximum Latency (in micros):    %d%n", micros(latencies.getMaxValue()));
    out.printf("Connections per second:         %.0f%n", count / seconds);
    return 0;
  }

  /**
   * One new connection: its first call, timed into {@code latencies} unless that is null, and its
   * closing (not timed). False after a one-line report to {@code err} if the call failed.
   */
  private static boolean connectOnce(ConnectionOpener opener, Histogram latencies, PrintStream err)
      throws InterruptedException {
    long start = System.nanoTime();
    ConnectionOpener.Connection connection = opener.open();
    try {
      connection
          .firstCall()
          .get(ConnectionOpener.FIRST_CALL_DEADLINE_SECONDS + 5L, TimeUnit.SECONDS);
      if (latencies != null) {
        latencies.recordValue(System.nanoTime() - start);
      }
      return true;
    } catch (ExecutionException | TimeoutException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      err.println(FLAGS.program() + ": a first call failed: " + cause);
      return false;
    } finally {
      connection.close();
    }
  }

  private static long micros(long nanos) {
    return TimeUnit.NANOSECONDS.toMicros(nanos);
  }
}
