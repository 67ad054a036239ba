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
import java.util.TreeMap;

/**
 * {@code bin/rolling-restart}: {@link RollingRestartRun} against Tern and against grpc-java, one
 * markdown table (a row per implementation), printed and optionally written to a file. Exits 1 if
 * Tern's row has a failed call, a server that did not drain in time or one that did not serve
 * again; grpc-java's findings are only a row.
 */
public final class RollingRestartReport {
  static final CommandLine FLAGS =
      CommandLine.builder(
              "rolling-restart",
              "a rolling restart of three servers under the mixed workload (each drained with a"
                  + " deadline, then started again on its port), Tern beside grpc-java; prints a"
                  + " markdown table")
          .flag("workers", "N", "6", "calls in flight at once (one per worker)")
          .flag("drain-seconds", "S", "5", "the graceful shutdown's deadline")
          .flag("out", "FILE", "", "also write the table to FILE")
          .example("bin/rolling-restart --out=/tmp/rolling-restart.md");

  private RollingRestartReport() {}

  /** Entry point; see {@link #FLAGS}. */
  public static void main(String[] args) throws Exception {
    System.exit(run(args, System.out, System.err));
  }

  static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
    int workers;
    int drainSeconds;
    String file;
    try {
      CommandLine.Values flags = FLAGS.parse(args);
      workers = flags.integer("workers", 1);
      drainSeconds = flags.integer("drain-seconds", 1);
      file = flags.string("out");
    } catch (CommandLine.Exit exit) {
      return exit.report(out, err);
    }
    Duration drain = Duration.ofSeconds(drainSeconds);
    List<RollingRestartRun.Result> results = new ArrayList<>();
    for (boolean waitForTraffic : new boolean[] {true, false}) {
      for (Peer peer : List.of(new TernPeer(), new GrpcJavaPeer())) {
        err.println(
            FLAGS.program() + ": " + peer.name() + (waitForTraffic ? "" : ", back to back"));
        results.add(RollingRestartRun.run(peer, workers, drain, waitForTraffic));
      }
    }
    String table = table(results, workers, drain);
    out.print(table);
    if (!file.isEmpty()) {
      Files.writeString(Path.of(file), table, StandardCharsets.UTF_8);
    }
    return clean(results.get(0)) ? 0 : 1;
  }

  private static boolean clean(RollingRestartRun.Result result) {
    return result.failed().isEmpty()
        && !result.drainedInTime().contains(false)
        && !result.servingAgain().contains(false);
  }

  /** The markdown table: a row per implementation. */
  static String table(List<RollingRestartRun.Result> results, int workers, Duration drain) {
    StringBuilder table = new StringBuilder();
    table
        .append("Three servers restarted in turn under ")
        .append(workers)
        .append(" workers of the mixed workload; each drained with a ")
        .append(drain.toSeconds())
        .append(" s deadline. Waiting for traffic: the next one is drained once the restarted")
        .append(" server served ")
        .append(RollingRestartRun.IN_A_ROW)
        .append(" calls again; back to back: once ")
        .append(RollingRestartRun.IN_A_ROW)
        .append(" calls in a row succeeded, wherever they went. Calls: those started after a")
        .append(" warm-up of as many successes in a row.\n\n");
    table.append(
        "| implementation | next drain | calls | failed calls by status | drained in time |"
            + " serving again after restart | failed in the warm-up (not measured) |\n");
    table.append("|---|---|---|---|---|---|---|\n");
    StringBuilder notes = new StringBuilder();
    for (int r = 0; r < results.size(); r++) {
      RollingRestartRun.Result result = results.get(r);
      String mode = r < results.size() / 2 ? "waiting for traffic" : "back to back";
      Map<String, Integer> failed = new TreeMap<>();
      result.failed().forEach(o -> failed.merge(o.kind() + " " + o.code(), 1, Integer::sum));
      List<String> parts = new ArrayList<>();
      failed.forEach((what, count) -> parts.add(what + " " + count));
      table
          .append("| ")
          .append(result.peer())
          .append(" | ")
          .append(mode)
          .append(" | ")
          .append(result.measured().size())
          .append(" | ")
          .append(parts.isEmpty() ? "none" : String.join(", ", parts))
          .append(" | ")
          .append(count(result.drainedInTime()))
          .append(" | ")
          .append(count(result.servingAgain()))
          .append(" | ")
          .append(result.warmUpFailures())
          .append(" |\n");
      result.failed().stream()
          .map(o -> o.kind() + " " + o.code() + ": " + o.description())
          .distinct()
          .limit(3)
          .forEach(
              f -> notes.append("- ").append(result.peer()).append(": ").append(f).append('\n'));
    }
    if (notes.length() > 0) {
      table.append("\nSteps and failed calls, in ms since the run started:\n\n").append(notes);
    }
    return table.toString();
  }

  private static String count(List<Boolean> flags) {
    return flags.stream().filter(b -> b).count() + " of " + flags.size();
  }
}
