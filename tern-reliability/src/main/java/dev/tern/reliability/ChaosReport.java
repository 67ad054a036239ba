package dev.tern.reliability;

import dev.tern.testtools.Toxiproxy;
import dev.tern.testtools.cli.CommandLine;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code bin/chaos-report}: every {@link Fault} against Tern and against grpc-java through the same
 * harness ({@link ChaosRun}), one markdown table (a row per fault, the two side by side), printed
 * and optionally written to a file. Exits 1 when a Tern row has a finding (a hang, a wrong status,
 * no recovery); grpc-java's findings are only rows.
 */
public final class ChaosReport {
  static final CommandLine FLAGS =
      CommandLine.builder(
              "chaos-report",
              "network faults through Toxiproxy (latency, bandwidth, slow_close, timeout,"
                  + " reset_peer, slicer, limit_data, a disabled proxy), Tern beside grpc-java;"
                  + " prints a markdown table")
          .flag("fault-seconds", "S", "3", "how long each fault lasts")
          .flag("workers", "N", "6", "calls in flight at once (one per worker)")
          .flag("out", "FILE", "", "also write the table to FILE")
          .note("Toxiproxy comes from tools/install-chaos-tools.sh.")
          .example("bin/chaos-report --fault-seconds=3 --out=/tmp/chaos.md");

  static final Duration RECOVERY_LIMIT = Duration.ofSeconds(20);

  private ChaosReport() {}

  /** Entry point; see {@link #FLAGS}. */
  public static void main(String[] args) throws Exception {
    System.exit(run(args, System.out, System.err));
  }

  static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
    int faultSeconds;
    int workers;
    String file;
    try {
      CommandLine.Values flags = FLAGS.parse(args);
      faultSeconds = flags.integer("fault-seconds", 1);
      workers = flags.integer("workers", 1);
      file = flags.string("out");
    } catch (CommandLine.Exit exit) {
      return exit.report(out, err);
    }
    Optional<Path> binary = Toxiproxy.find();
    if (binary.isEmpty()) {
      err.println(
          FLAGS.program()
              + ": toxiproxy-server is not installed; run tools/install-chaos-tools.sh");
      return 1;
    }
    Map<Fault, FaultResult> tern = new EnumMap<>(Fault.class);
    Map<Fault, FaultResult> grpcJava = new EnumMap<>(Fault.class);
    try (Toxiproxy toxiproxy = Toxiproxy.start(binary.get())) {
      for (Peer peer : List.of(new TernPeer(), new GrpcJavaPeer())) {
        Map<Fault, FaultResult> results = peer instanceof TernPeer ? tern : grpcJava;
        try (ChaosRun run =
            ChaosRun.start(
                peer, toxiproxy, workers, Duration.ofSeconds(faultSeconds), RECOVERY_LIMIT)) {
          for (Fault fault : Fault.values()) {
            err.println(FLAGS.program() + ": " + peer.name() + ": " + fault.label());
            results.put(fault, run.run(fault));
          }
        }
      }
    }
    String table = table(tern, grpcJava, faultSeconds, workers);
    out.print(table);
    if (!file.isEmpty()) {
      Files.writeString(Path.of(file), table, StandardCharsets.UTF_8);
    }
    boolean ternFindings =
        tern.values().stream().anyMatch(r -> !r.findings().isEmpty() || r.recoveryMillis() < 0);
    return ternFindings ? 1 : 0;
  }

  /** The markdown table: a row per fault, Tern's columns then grpc-java's. */
  static String table(
      Map<Fault, FaultResult> tern,
      Map<Fault, FaultResult> grpcJava,
      int faultSeconds,
      int workers) {
    StringBuilder table = new StringBuilder();
    table
        .append("Each fault on all three proxies for ")
        .append(faultSeconds)
        .append(" s under ")
        .append(workers)
        .append(" workers; calls: how many ended, by status; hangs: calls open ")
        .append(Workload.HANG_GRACE.toSeconds())
        .append(" s past their deadline; recovery: ms after the fault was taken off until ")
        .append(ChaosRun.RECOVERED_AFTER)
        .append(" calls in a row succeeded.\n\n");
    table.append(
        "| fault | Tern: calls by status | Tern: hangs / wrong status | Tern: recovery ms |"
            + " grpc-java: calls by status | grpc-java: hangs / wrong status |"
            + " grpc-java: recovery ms |\n");
    table.append("|---|---|---|---|---|---|---|\n");
    for (Fault fault : Fault.values()) {
      List<String> cells = new ArrayList<>();
      cells.add(fault.label());
      for (FaultResult result : List.of(tern.get(fault), grpcJava.get(fault))) {
        cells.add(codes(result));
        long hangs = result.findings().stream().filter(o -> o.code().equals(Outcome.HANG)).count();
        cells.add(hangs + " / " + (result.findings().size() - hangs));
        cells.add(
            result.recoveryMillis() < 0
                ? "never (> " + RECOVERY_LIMIT.toSeconds() + " s)"
                : Long.toString(result.recoveryMillis()));
      }
      table.append("| ").append(String.join(" | ", cells)).append(" |\n");
    }
    StringBuilder notes = new StringBuilder();
    for (Fault fault : Fault.values()) {
      for (FaultResult result : List.of(tern.get(fault), grpcJava.get(fault))) {
        result.findings().stream()
            .map(o -> o.kind() + " " + o.code() + ": " + o.description())
            .distinct()
            .limit(3)
            .forEach(
                finding ->
                    notes
                        .append("- ")
                        .append(result.peer())
                        .append(", ")
                        .append(fault.label())
                        .append(": ")
                        .append(finding)
                        .append('\n'));
      }
    }
    if (notes.length() > 0) {
      table.append("\nWrong statuses and hangs (up to 3 kinds per row):\n\n").append(notes);
    }
    return table.toString();
  }

  private static String codes(FaultResult result) {
    List<String> parts = new ArrayList<>();
    result.codes().forEach((code, count) -> parts.add(code + " " + count));
    return String.join(", ", parts);
  }
}
