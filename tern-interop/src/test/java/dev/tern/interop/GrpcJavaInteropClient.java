package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * grpc-java 1.79's interop client ({@code TestServiceClient}, run by {@code
 * peers/grpc-java-client.sh} in a JVM of its own, one case per run), on the class path {@code
 * peers/grpc-java-classpath.sh} resolves from Maven Central. Stateless; safe from any thread.
 */
final class GrpcJavaInteropClient {
  private static final Path SCRIPT = Path.of("peers", "grpc-java-client.sh").toAbsolutePath();

  private GrpcJavaInteropClient() {}

  /** What one run printed, and whether it exited 0 in time. */
  record Run(boolean passed, String output) {}

  /**
   * Resolves the client's class path; when that fails, skips the calling test, or fails it under
   * {@code CI=true}.
   */
  static void requireClassPath() throws IOException, InterruptedException {
    Path log = Files.createTempFile("grpc-java-classpath-", ".log");
    try {
      Process classPath =
          new ProcessBuilder(SCRIPT.resolveSibling("grpc-java-classpath.sh").toString())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      if (classPath.waitFor(300, TimeUnit.SECONDS) && classPath.exitValue() == 0) {
        return;
      }
      classPath.destroyForcibly();
      assertThat("true".equalsIgnoreCase(System.getenv("CI")))
          .as("grpc-java's interop client is missing under CI: %s", tail(log))
          .isFalse();
      Assumptions.abort(
          "grpc-java's interop client class path could not be resolved (outside CI only)");
    } finally {
      Files.deleteIfExists(log);
    }
  }

  /**
   * Runs the client with {@code flags} (e.g. {@code --server_port=N}, {@code --test_case=NAME}),
   * stopping it by its PID if it has not exited within {@code timeout}.
   */
  static Run run(List<String> flags, Duration timeout) throws IOException, InterruptedException {
    Path log = Files.createTempFile("grpc-java-client-", ".log");
    try {
      List<String> command = new ArrayList<>();
      command.add(SCRIPT.toString());
      command.addAll(flags);
      Process client =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      boolean ended = client.waitFor(timeout.toSeconds(), TimeUnit.SECONDS);
      if (!ended) {
        client.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      return new Run(ended && client.exitValue() == 0, tail(log));
    } finally {
      Files.deleteIfExists(log);
    }
  }

  /** The last 40 lines of {@code log}. */
  private static String tail(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
  }
}
