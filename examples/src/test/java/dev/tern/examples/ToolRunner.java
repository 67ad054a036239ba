package dev.tern.examples;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a command-line tool (grpcurl, grpc-health-probe, buf, curl, node) for the examples' tests,
 * with its output in files under a test's temporary folder. Stateless; safe from any thread.
 */
public final class ToolRunner {
  private ToolRunner() {}

  /** Runs the tool and returns its standard output; fails unless it exits 0. */
  public static String run(Path dir, Path tool, String... args) throws Exception {
    String result = exec(dir, tool, args);
    assertThat(result).startsWith("exit 0\n");
    return result.substring("exit 0\n".length());
  }

  /**
   * Runs the tool; returns "exit N\n" and then its output (standard error after standard out). The
   * process is stopped by its PID if it has not exited within 30 seconds.
   */
  public static String exec(Path dir, Path tool, String... args) throws Exception {
    Result result = result(dir, tool, args);
    return "exit " + result.exitCode() + "\n" + result.out() + result.err();
  }

  /**
   * Runs the tool and returns its exit status and its standard output and error apart. The process
   * is stopped by its PID if it has not exited within 30 seconds.
   */
  public static Result result(Path dir, Path tool, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(tool.toString());
    command.addAll(List.of(args));
    Path out = Files.createTempFile(dir, "out", ".txt");
    Path err = Files.createTempFile(dir, "err", ".txt");
    Process process =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    try {
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("%s finished", command).isTrue();
      return new Result(
          process.exitValue(), Files.readString(out, UTF_8), Files.readString(err, UTF_8));
    } finally {
      // A browser driver's Chromium is the driver's child: stop what the tool started too.
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
  }

  /** How a tool exited and what it printed. */
  public record Result(int exitCode, String out, String err) {}
}
