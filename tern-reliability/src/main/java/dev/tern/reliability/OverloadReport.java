package dev.tern.reliability;

import dev.tern.testtools.cli.CommandLine;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * {@code bin/overload}: {@link OverloadRun}s of Tern with no limit on calls in progress (its
 * adaptive limit off), Tern with its defaults (the adaptive limit), Tern with a bound set by hand,
 * and grpc-java with its defaults, through the same steps, printed as one markdown table (a row per
 * configuration and step) followed by each configuration's capacity, unloaded p99, highest load
 * within twice it, the statuses' descriptions and the findings. Exits 1 when a Tern configuration
 * has a finding ({@link OverloadRun.Result#findings}); grpc-java's are only shown.
 */
public final class OverloadReport {
  static final CommandLine FLAGS =
      CommandLine.builder(
              "overload",
              "open-loop calls (unary with a fixed CPU cost, or --workload) at multiples of a"
                  + " server's capacity, the server in a child JVM with a bounded heap; Tern (unbounded, its defaults"
                  + " with the adaptive limit, and a bound set by hand) beside grpc-java; prints a markdown table; exits"
                  + " 1 if a Tern server died, a call hung or ended with a wrong status")
          .flag(
              "workload",
              OverloadWorkload.flagList(),
              "work",
              "the calls: work (unary, a fixed CPU cost), mixed (9 cheap to 1 expensive, half the"
                  + " CPU each), blocking (the handler holds one of a backend's 64 connections 20 ms; Tern's on virtual"
                  + " threads, JDK 21+) or"
                  + " stream (server streaming, each answer costs CPU)")
          .flag("multiples", "X,Y,...", "1,1.5,2,3,5", "the loaded steps, multiples of capacity")
          .flag("step-seconds", "S", "30", "how long each loaded step offers its load")
          .flag(
              "unloaded-seconds",
              "S",
              "0",
              "how long the unloaded step (0.1x, whose p99 is the reference) offers its load; 0:"
                  + " three times --step-seconds, so its p99 is the 100th slowest of thousands")
          .flag(
              "capacity-seconds",
              "S",
              "10",
              "how long capacity is measured (closed loop), after a warm-up as long")
          .flag("deadline-ms", "MS", "1000", "each call's deadline")
          .flag("arrivals", "A", "poisson", "poisson or constant (gaps between calls)")
          .flag(
              "max-calls",
              "N",
              "4",
              "maxConcurrentCalls of the bounded Tern server; 0 skips that configuration")
          .flag("peers", "P,...", "tern,grpc-java", "which peers to run (tern, grpc-java)")
          .flag("server-heap", "MIB", "256", "the server JVM's -Xmx, in MiB")
          .flag(
              "server-cpus",
              "LIST",
              "",
              "run the server JVM on these CPUs (taskset -c); empty: wherever the OS puts it")
          .flag(
              "client-cpus",
              "LIST",
              "",
              "run this JVM, the client, on these CPUs (taskset); empty: not pinned")
          .flag("out", "FILE", "", "also write the table to FILE")
          .note("bin/overload --server-cpus=0 --client-cpus=1  # server and client a core each")
          .note("bin/overload --workload=mixed  # 9 cheap calls to 1 expensive, half the CPU each")
          .example("bin/overload --step-seconds=5 --capacity-seconds=3  # a quick look");

  private OverloadReport() {}

  /** Entry point; see {@link #FLAGS}. */
  public static void main(String[] args) throws Exception {
    System.exit(run(args, System.out, System.err));
  }

  static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
    List<OverloadRun.Options> runs = new ArrayList<>();
    String file;
    String clientCpus;
    try {
      CommandLine.Values flags = FLAGS.parse(args);
      List<Double> multiples = new ArrayList<>();
      for (String multiple : flags.string("multiples").split(",")) {
        try {
          multiples.add(Double.parseDouble(multiple.trim()));
        } catch (NumberFormatException e) {
          throw FLAGS.usageError("--multiples needs numbers, got '" + multiple + "'");
        }
        if (!(multiples.get(multiples.size() - 1) > 0)) {
          throw FLAGS.usageError("--multiples must be > 0, got '" + multiple + "'");
        }
      }
      OverloadWorkload workload;
      try {
        workload = OverloadWorkload.parse(flags.string("workload"));
      } catch (IllegalArgumentException e) {
        throw FLAGS.usageError(e.getMessage());
      }
      WorkLoad.Arrivals arrivals =
          switch (flags.string("arrivals")) {
            case "poisson" -> WorkLoad.Arrivals.POISSON;
            case "constant" -> WorkLoad.Arrivals.CONSTANT;
            default ->
                throw FLAGS.usageError(
                    "--arrivals must be poisson or constant, was '"
                        + flags.string("arrivals")
                        + "'");
          };
      Duration capacity = Duration.ofSeconds(flags.integer("capacity-seconds", 1));
      Duration step = Duration.ofSeconds(flags.integer("step-seconds", 1));
      int unloadedSeconds = flags.integer("unloaded-seconds", 0);
      Duration unloaded =
          unloadedSeconds == 0 ? step.multipliedBy(3) : Duration.ofSeconds(unloadedSeconds);
      Duration deadline = Duration.ofMillis(flags.integer("deadline-ms", 1));
      int maxCalls = flags.integer("max-calls", 0);
      List<String> heap =
          List.of("-Xmx" + flags.integer("server-heap", 16) + "m", "-XX:+ExitOnOutOfMemoryError");
      String serverCpus;
      try {
        serverCpus = CpuPinning.check("server-cpus", flags.string("server-cpus"));
        clientCpus = CpuPinning.check("client-cpus", flags.string("client-cpus"));
      } catch (IllegalArgumentException e) {
        throw FLAGS.usageError(e.getMessage());
      }
      for (String peer : flags.string("peers").split(",")) {
        if (!peer.equals("tern") && !peer.equals("grpc-java")) {
          throw FLAGS.usageError("--peers are tern and grpc-java, got '" + peer + "'");
        }
        // Tern: unbounded first (its capacity is the others' load), then its defaults, then the
        // bound set by hand.
        List<Integer> limits =
            !peer.equals("tern")
                ? List.of(Integer.MAX_VALUE)
                : maxCalls > 0
                    ? List.of(Integer.MAX_VALUE, Integer.MAX_VALUE, maxCalls)
                    : List.of(Integer.MAX_VALUE, Integer.MAX_VALUE);
        for (int i = 0; i < limits.size(); i++) {
          boolean adaptive = !peer.equals("tern") || i > 0;
          runs.add(
              new OverloadRun.Options(
                  peer,
                  limits.get(i),
                  adaptive,
                  multiples,
                  0,
                  capacity,
                  step,
                  unloaded,
                  deadline,
                  arrivals,
                  heap,
                  serverCpus,
                  workload));
        }
      }
      file = flags.string("out");
    } catch (CommandLine.Exit exit) {
      return exit.report(out, err);
    }
    CpuPinning.pinThisProcess(clientCpus);
    List<OverloadRun.Result> results = new ArrayList<>();
    double ternCapacity = 0;
    for (OverloadRun.Options options : runs) {
      if (!options.unbounded()) {
        // The same loads as the unbounded Tern server's: a closed loop of more calls than the
        // bound would be partly shed and measure less than the server can serve.
        options = options.withCapacity(ternCapacity);
      }
      OverloadRun.Result result = OverloadRun.run(options, err);
      if (options.peer().equals("tern") && options.unbounded()) {
        ternCapacity = result.capacity();
      }
      results.add(result);
    }
    String table = table(results, clientCpus);
    out.print(table);
    if (!file.isEmpty()) {
      Files.writeString(Path.of(file), table, StandardCharsets.UTF_8);
    }
    boolean ternFound =
        results.stream()
            .anyMatch(r -> r.options().peer().equals("tern") && !r.findings().isEmpty());
    return ternFound ? 1 : 0;
  }

  /** The markdown table of {@code results}, then each one's summary, descriptions and findings. */
  static String table(List<OverloadRun.Result> results) {
    return table(results, "");
  }

  /** {@link #table(List)}, saying where the client ran if it was pinned to {@code clientCpus}. */
  static String table(List<OverloadRun.Result> results, String clientCpus) {
    StringBuilder table = new StringBuilder();
    OverloadRun.Options first = results.get(0).options();
    String pinning =
        (first.serverCpus().isEmpty() ? "" : "; server on CPUs " + first.serverCpus())
            + (clientCpus.isEmpty() ? "" : "; client on CPUs " + clientCpus);
    table.append(
        String.format(
            "Workload %s: %s; %s arrivals, a %d ms deadline; server %s%s; %d s per step (the"
                + " unloaded one %d s); latency from each call's scheduled start.%n%n",
            first.workload().flag(),
            first.workload().description(),
            first.arrivals().name().toLowerCase(java.util.Locale.ROOT),
            first.deadline().toMillis(),
            String.join(" ", first.serverJvmOptions()),
            pinning,
            first.stepTime().toSeconds(),
            first.unloadedTime().toSeconds()));
    table.append(
        "| server | load | offered/s | OK/s | p50 OK | p99 OK | statuses | longest call |"
            + " client behind | server heap after GC | server threads | survived |\n");
    table.append("|---".repeat(12)).append("|\n");
    for (OverloadRun.Result result : results) {
      for (OverloadRun.Step step : result.steps()) {
        StringJoiner statuses = new StringJoiner(", ");
        step.counts().forEach((code, count) -> statuses.add(code + " " + count));
        if (step.open() > 0) {
          statuses.add(Outcome.HANG + " " + step.open());
        }
        if (step.byKind().size() > 1) {
          // Whether one kind starves: each kind's OK calls of those that ended.
          step.byKind()
              .forEach(
                  (kind, count) ->
                      statuses.add(kind + " OK " + count.ok() + " of " + count.ended()));
        }
        table.append(
            String.format(
                "| %s | %sx | %.0f | %.0f | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                result.options().name(),
                multiple(step.multiple()),
                step.offered(),
                step.goodput(),
                millis(step.p50Nanos()),
                millis(step.p99Nanos()),
                statuses,
                millis(step.longestNanos()),
                millis(step.behindNanos()),
                step.survived()
                    ? ResourceSample.Metric.HEAP.format(step.server().heapBytes())
                    : "-",
                step.survived() ? Long.toString(step.server().threads()) : "-",
                step.survived() ? "yes" : "no"));
      }
    }
    table.append('\n');
    for (OverloadRun.Result result : results) {
      table.append(
          String.format(
              "**%s**: capacity %.0f calls/s (closed loop, best at %d in flight%s); unloaded p99 %s (at"
                  + " %sx); highest load with p99 within 2x of it: %s.%n%n",
              result.options().name(),
              result.capacity(),
              result.capacityInFlight(),
              result.options().capacity() > 0 ? ", of the unbounded server" : "",
              millis(result.unloadedP99()),
              multiple(OverloadRun.UNLOADED),
              result.highestBounded() == 0
                  ? "none of the loaded steps"
                  : multiple(result.highestBounded()) + "x"));
      Map<String, String> descriptions = new java.util.TreeMap<>();
      result.steps().forEach(s -> s.descriptions().forEach(descriptions::putIfAbsent));
      descriptions.forEach(
          (code, description) ->
              table.append("- ").append(code).append(": \"").append(description).append("\"\n"));
      List<String> findings = result.findings();
      if (findings.isEmpty()) {
        table.append("- No finding: the server survived, no call hung or ended wrongly.\n");
      } else {
        findings.forEach(f -> table.append("- Finding: ").append(f).append('\n'));
      }
      table.append('\n');
    }
    return table.toString();
  }

  private static String multiple(double multiple) {
    return multiple == Math.rint(multiple)
        ? String.format("%.0f", multiple)
        : String.format("%s", multiple);
  }

  private static String millis(long nanos) {
    return nanos < 0 ? "-" : String.format("%.1f ms", nanos / 1e6);
  }
}
