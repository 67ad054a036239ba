package dev.tern.conformance;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.testtools.ExternalTool;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Runs the Connect conformance suite's runner ({@code connectconformance}, installed by {@code
 * tools/install-conformance-tools.sh}) against one of this module's programs, started by the runner
 * in a child JVM of this JVM's Java and class path, and checks that the runner passed: exit status
 * 0, which it gives only when every case passed except the known failures, and every known failure
 * failed.
 *
 * <p>The child JVM runs with Netty's paranoid leak detection, as the build's tests do; the runner
 * passes on its stderr, so a reported leak fails the run too.
 */
final class ConformanceRunner {
  /** How long a whole run may take; a run takes seconds to a few minutes on two loaded cores. */
  static final long RUN_TIMEOUT_MINUTES = 15;

  private ConformanceRunner() {}

  /**
   * Runs {@code connectconformance --mode MODE --conf CONFIG --known-failing @KNOWN_FAILING
   * [extraFlags] -- java ... MAIN_CLASS}; {@code config}, {@code knownFailing} and files named in
   * {@code extraFlags} as {@code @name} are test resources. Prints the runner's summary; fails with
   * the runner's report if it did not pass.
   */
  static void assertPasses(
      String mode,
      Class<?> program,
      String config,
      String knownFailing,
      List<String> extraFlags,
      Path workDir)
      throws IOException, InterruptedException {
    Path runner = ExternalTool.require(ExternalTool.CONNECTCONFORMANCE);
    List<String> command = new ArrayList<>();
    command.add(runner.toString());
    command.addAll(
        List.of(
            "--mode",
            mode,
            "--conf",
            resource(config).toString(),
            "--known-failing",
            "@" + resource(knownFailing)));
    for (String flag : extraFlags) {
      command.add(flag.startsWith("@") ? "@" + resource(flag.substring(1)) : flag);
    }
    command.add("--");
    command.addAll(javaCommand(program));
    Path log = workDir.resolve("connectconformance-" + mode + ".log");
    Process process =
        new ProcessBuilder(command)
            .directory(workDir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .start();
    boolean finished;
    try {
      finished = process.waitFor(RUN_TIMEOUT_MINUTES, TimeUnit.MINUTES);
    } finally {
      process.destroy();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    }
    String output = Files.readString(log, UTF_8);
    String summary = summary(output);
    System.out.println("connectconformance --mode " + mode + ": " + summary);
    assertThat(finished)
        .as(
            "connectconformance finished within %d minutes; its output:%n%s",
            RUN_TIMEOUT_MINUTES, report(output))
        .isTrue();
    assertThat(process.exitValue())
        .as("connectconformance's exit status (%s); its report:%n%s", summary, report(output))
        .isZero();
    assertThat(output)
        .as("the program's output under paranoid leak detection")
        .doesNotContain("LEAK:");
  }

  /** The command that starts {@code program}: this JVM's java with this JVM's class path. */
  private static List<String> javaCommand(Class<?> program) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Dio.netty.leakDetection.level=paranoid");
    // Each program is a short-lived JVM, several at once on a small machine: C1 alone compiles
    // quickly and leaves the cores to the calls, whose deadlines (2 s in some cases) count from
    // the first request on a cold JVM.
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-XX:+UseSerialGC");
    // The program logs as this JVM was told to.
    String logging = System.getProperty("java.util.logging.config.file");
    if (logging != null) {
      command.add("-Djava.util.logging.config.file=" + logging);
    }
    command.add("-cp");
    command.add(classPath(program));
    command.add(program.getName());
    return command;
  }

  /**
   * This JVM's class path and module path (Surefire puts modular jars on the latter) as one class
   * path, with {@code program}'s own location first.
   */
  private static String classPath(Class<?> program) {
    Set<String> entries = new LinkedHashSet<>();
    try {
      entries.add(
          Path.of(program.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
    } catch (URISyntaxException e) {
      throw new IllegalStateException("cannot locate " + program.getName(), e);
    }
    for (String property : List.of("jdk.module.path", "java.class.path")) {
      for (String entry : System.getProperty(property, "").split(File.pathSeparator)) {
        if (!entry.isEmpty()) {
          entries.add(entry);
        }
      }
    }
    return String.join(File.pathSeparator, entries);
  }

  private static Path resource(String name) {
    URL url = ConformanceRunner.class.getResource("/" + name);
    assertThat(url).as("%s on the test class path", name).isNotNull();
    try {
      return Path.of(url.toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException("cannot locate " + name, e);
    }
  }

  /** The runner's closing lines ("Total cases: N", "P passed, F failed", ...) on one line. */
  static String summary(String output) {
    List<String> lines = output.lines().toList();
    for (int i = lines.size() - 1; i >= 0; i--) {
      if (lines.get(i).startsWith("Total cases:")) {
        return lines.subList(i, lines.size()).stream()
            .map(String::strip)
            .filter(line -> !line.isEmpty())
            .collect(Collectors.joining("; "));
      }
    }
    return "no summary (the runner did not finish its report)";
  }

  /**
   * What to show of a failed run: each failed case with its reasons, then the summary; all of the
   * output when it has no failed cases (the runner itself could not run, say).
   */
  static String report(String output) {
    List<String> lines = output.lines().toList();
    StringBuilder report = new StringBuilder();
    boolean inFailure = false;
    for (String line : lines) {
      if (line.startsWith("FAILED:")) {
        inFailure = true;
      } else if (!line.startsWith("\t") && !line.startsWith(" ")) {
        inFailure = false;
      }
      if (inFailure) {
        report.append(line).append('\n');
      }
    }
    if (report.length() == 0) {
      return tail(output);
    }
    return report.append(summary(output)).toString();
  }

  private static String tail(String output) {
    int max = 20_000;
    return output.length() > max ? "..." + output.substring(output.length() - max) : output;
  }
}
