package dev.tern.services.reflection;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One run of an external program (grpcurl, Python) with a time limit. Its output goes to temporary
 * files, so nothing has to read pipes while it runs; the process is destroyed in any case before
 * {@link #run} returns. Stateless; safe from any thread.
 */
final class ToolRun {
  private static final long TIMEOUT_SECONDS = 60;

  /** What a finished run printed and its exit code. */
  record Result(int exitCode, String stdout, String stderr) {
    /** The standard output, checking that the program succeeded. */
    String ok() {
      if (exitCode != 0) {
        throw new AssertionError(
            "exit code " + exitCode + "\nstdout:\n" + stdout + "stderr:\n" + stderr);
      }
      return stdout;
    }
  }

  private ToolRun() {}

  static Result run(List<String> command) throws IOException, InterruptedException {
    Path out = Files.createTempFile("tern-tool-", ".out");
    Path err = Files.createTempFile("tern-tool-", ".err");
    Process process = null;
    try {
      process =
          new ProcessBuilder(command)
              .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        throw new AssertionError(
            command
                + " did not finish in "
                + TIMEOUT_SECONDS
                + " s; stderr so far:\n"
                + Files.readString(err, StandardCharsets.UTF_8));
      }
      return new Result(
          process.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      if (process != null && process.isAlive()) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
