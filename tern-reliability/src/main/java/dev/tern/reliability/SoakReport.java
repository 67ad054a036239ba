package dev.tern.reliability;

import dev.tern.testtools.cli.CommandLine;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code bin/soak}: a {@link SoakRun} of Tern (or grpc-java, through the same harness) for some
 * minutes, printed as a markdown table (a row per sample: both processes' heap after GC, RSS,
 * threads and fds, and the calls so far) followed by the findings. Exits 1 when there is a finding
 * (a failed call, a metric that grew beyond its tolerance after warm-up).
 */
public final class SoakReport {
  static final CommandLine FLAGS =
      CommandLine.builder(
              "soak",
              "the mixed workload at a fixed rate for some minutes against a server in a child"
                  + " JVM; samples heap after GC, RSS, threads and fds of the server and the"
                  + " client; prints a markdown table; exits 1 if any grows after warm-up or a"
                  + " call fails")
          .flag("minutes", "M", "30", "how long the load runs")
          .flag("sample-seconds", "S", "60", "time between samples")
          .flag("warmup-seconds", "S", "300", "samples before this are not judged")
          .flag(
              "rate",
              "R",
              "0",
              "calls a second in all; 0 runs unpaced, which measures capacity: pick ~70% of"
                  + " the calls/s a short unpaced run reaches")
          .flag("workers", "N", "16", "calls in flight at most (one per worker)")
          .flag("peer", "P", "tern", "tern or grpc-java (client and server)")
          .flag(
              "server-heap",
              "MIB",
              "256",
              "the server JVM's heap (-Xms = -Xmx, pre-touched), in MiB")
          .flag("out", "FILE", "", "also write the table to FILE")
          .example(
              "bin/soak --minutes=2 --warmup-seconds=30 --sample-seconds=10 --rate=0  # capacity;"
                  + " then bin/soak --rate=<70% of its calls/s>");

  private SoakReport() {}

  /** Entry point; see {@link #FLAGS}. */
  public static void main(String[] args) throws Exception {
    System.exit(run(args, System.out, System.err));
  }

  static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
    SoakRun.Options options;
    String file;
    try {
      CommandLine.Values flags = FLAGS.parse(args);
      String peer = flags.string("peer");
      if (!peer.equals("tern") && !peer.equals("grpc-java")) {
        throw FLAGS.usageError("--peer must be tern or grpc-java, was '" + peer + "'");
      }
      Duration duration = Duration.ofMinutes(flags.integer("minutes", 1));
      Duration interval = Duration.ofSeconds(flags.integer("sample-seconds", 1));
      Duration warmup = Duration.ofSeconds(flags.integer("warmup-seconds", 0));
      if (duration.minus(warmup).compareTo(interval.multipliedBy(3)) < 0) {
        throw FLAGS.usageError("--minutes must leave at least 3 samples after --warmup-seconds");
      }
      options =
          new SoakRun.Options(
              peer,
              duration,
              interval,
              warmup,
              flags.integer("rate", 0),
              flags.integer("workers", 1),
              SoakRun.serverHeap(flags.integer("server-heap", 16)));
      file = flags.string("out");
    } catch (CommandLine.Exit exit) {
      return exit.report(out, err);
    }
    SoakRun.Result result = SoakRun.run(options, err);
    String table = table(result);
    out.print(table);
    if (!file.isEmpty()) {
      Files.writeString(Path.of(file), table, StandardCharsets.UTF_8);
    }
    return result.findings().isEmpty() ? 0 : 1;
  }

  /** The markdown table of {@code result}, its summary line and its findings. */
  static String table(SoakRun.Result result) {
    SoakRun.Options options = result.options();
    StringBuilder table = new StringBuilder();
    double seconds = result.samples().get(result.samples().size() - 1).seconds();
    table.append(
        String.format(
            "%s, %d s at %s with %d workers, server %s; samples every %d s, judged after %d s:"
                + " %d calls (%.0f/s), %d failed.%n%n",
            options.peer(),
            options.duration().toSeconds(),
            options.rate() == 0 ? "full speed (unpaced)" : options.rate() + " calls/s",
            options.workers(),
            String.join(" ", options.serverJvmOptions()),
            options.interval().toSeconds(),
            options.warmup().toSeconds(),
            result.calls(),
            result.calls() / seconds,
            result.failures()));
    List<String> header = new ArrayList<>(List.of("s", "calls"));
    for (String side : List.of("server", "client")) {
      for (ResourceSample.Metric metric : ResourceSample.Metric.values()) {
        header.add(side + " " + metric.label());
      }
    }
    table.append("| ").append(String.join(" | ", header)).append(" |\n");
    table.append("|---".repeat(header.size())).append("|\n");
    for (SoakRun.Sample sample : result.samples()) {
      List<String> cells = new ArrayList<>();
      cells.add(String.format("%.0f", sample.seconds()));
      cells.add(Long.toString(sample.calls()));
      for (ResourceSample side : List.of(sample.server(), sample.client())) {
        for (ResourceSample.Metric metric : ResourceSample.Metric.values()) {
          cells.add(metric.format(side.get(metric)));
        }
      }
      table.append("| ").append(String.join(" | ", cells)).append(" |\n");
    }
    table.append('\n');
    if (result.findings().isEmpty()) {
      table.append("No finding: no call failed, nothing grew beyond its tolerance.\n");
    } else {
      table.append("Findings:\n\n");
      result.findings().forEach(f -> table.append("- ").append(f).append('\n'));
    }
    return table.toString();
  }
}
