package dev.tern.testtools;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.function.Predicate;

/**
 * A real OpenTelemetry Collector for tests: {@code otelcol-tern} (built by {@code
 * tools/install-observability-tools.sh} from {@code tools/otelcol/builder.yaml}) receiving OTLP
 * over gRPC and HTTP on 127.0.0.1, and printing everything it receives with the debug exporter at
 * detailed verbosity, which a test reads back from the collector's output.
 *
 * <pre>{@code
 * try (OtelCollector collector = OtelCollector.start()) {
 *   exporterEndpoint = collector.otlpGrpcEndpoint();     // "http://127.0.0.1:port"
 *   ...                                                  // export a span named "tern.probe"
 *   collector.awaitOutput("Name           : tern.probe", Duration.ofSeconds(10));
 * }
 * }</pre>
 *
 * <p>One pipeline each for traces, metrics and logs, from the OTLP receiver to the debug exporter.
 * The collector's own telemetry is off ({@code service::telemetry::metrics::level: none}), so it
 * binds the two OTLP ports and nothing else. The ports are ones the OS said were free (the
 * collector cannot bind port 0 and report it); a start that loses one to another process is retried
 * on others. The configuration lives in a temporary directory ({@link #directory()}), deleted by
 * {@link #close()}, which also stops the process by its PID.
 *
 * <p>When {@code otelcol-tern} is not installed, {@link #start()} skips the calling test, or fails
 * it under {@code CI=true} ({@link ExternalTool#require}).
 *
 * <p>Thread-safe: the output may be read and awaited from any thread while the collector runs;
 * {@link #close()} may be called from any thread, more than once.
 */
public final class OtelCollector implements AutoCloseable {
  /**
   * How long a start or a stop may take. The collector starts in well under a second; this only
   * bounds a failure, generously because the build machines are small and shared.
   */
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** What the collector prints once every receiver listens and every pipeline runs. */
  static final String READY = "Everything is ready";

  private final ToolProcess process;
  private final Path directory;
  private final int grpcPort;
  private final int httpPort;

  @GuardedBy("this")
  private boolean closed;

  private OtelCollector(ToolProcess process, Path directory, int grpcPort, int httpPort) {
    this.process = process;
    this.directory = directory;
    this.grpcPort = grpcPort;
    this.httpPort = httpPort;
  }

  /**
   * Starts the collector; returns once it is ready to receive.
   *
   * @throws IOException when the collector does not start or exits, with its output in the message
   */
  public static OtelCollector start() throws IOException {
    return start(ToolProcess::freePort);
  }

  /** {@link #start()} with the ports to try given by {@code ports} (tested with a taken one). */
  static OtelCollector start(IntSupplier ports) throws IOException {
    Path binary = ExternalTool.require(ExternalTool.OTELCOL);
    Path directory = Files.createTempDirectory("tern-otelcol-");
    try {
      Path config = directory.resolve("config.yaml");
      for (int attempt = 1; ; attempt++) {
        int grpcPort = ports.getAsInt();
        int httpPort = ports.getAsInt();
        if (grpcPort == httpPort) {
          continue;
        }
        Files.writeString(config, config(grpcPort, httpPort), UTF_8);
        ToolProcess process =
            ToolProcess.start("otelcol", List.of(binary.toString(), "--config=" + config));
        boolean ready = false;
        boolean exited = false;
        try {
          ready = process.awaitOutput(output -> output.contains(READY), TIMEOUT);
          // Not ready: either the output ended, the process exiting, or the time is up.
          exited = !ready && process.awaitExit(ToolProcess.EXIT_GRACE);
        } finally {
          if (!ready) {
            process.stop(TIMEOUT);
          }
        }
        if (ready) {
          return new OtelCollector(process, directory, grpcPort, httpPort);
        }
        String output = process.output();
        if (!exited) {
          throw new IOException("otelcol-tern was not ready within " + TIMEOUT + ":\n" + output);
        }
        if (!ToolProcess.lostPortRace(output) || attempt == ToolProcess.PORT_ATTEMPTS) {
          throw new IOException(
              "otelcol-tern exited with code "
                  + process.exitValue()
                  + " (OTLP ports "
                  + grpcPort
                  + ", "
                  + httpPort
                  + "):\n"
                  + output);
        }
        // Another process took a port between freePort() and the collector's bind: take others.
      }
    } catch (IOException | RuntimeException | Error e) {
      ToolProcess.deleteRecursively(directory);
      throw e;
    }
  }

  /** The configuration for the given OTLP ports (see the class doc). */
  static String config(int grpcPort, int httpPort) {
    return "receivers:\n"
        + "  otlp:\n"
        + "    protocols:\n"
        + "      grpc:\n"
        + "        endpoint: 127.0.0.1:"
        + grpcPort
        + "\n"
        + "      http:\n"
        + "        endpoint: 127.0.0.1:"
        + httpPort
        + "\n"
        + "exporters:\n"
        + "  debug:\n"
        + "    verbosity: detailed\n"
        + "service:\n"
        + "  telemetry:\n"
        // Without this the collector serves its own metrics on a fixed port (8888).
        + "    metrics:\n"
        + "      level: none\n"
        + "  pipelines:\n"
        + "    traces:\n"
        + "      receivers: [otlp]\n"
        + "      exporters: [debug]\n"
        + "    metrics:\n"
        + "      receivers: [otlp]\n"
        + "      exporters: [debug]\n"
        + "    logs:\n"
        + "      receivers: [otlp]\n"
        + "      exporters: [debug]\n";
  }

  /** The port of the OTLP/gRPC receiver, on 127.0.0.1. */
  public int grpcPort() {
    return grpcPort;
  }

  /** The port of the OTLP/HTTP receiver, on 127.0.0.1. */
  public int httpPort() {
    return httpPort;
  }

  /** The OTLP/gRPC endpoint, {@code http://127.0.0.1:<grpcPort>}, as OTLP exporters take it. */
  public String otlpGrpcEndpoint() {
    return "http://127.0.0.1:" + grpcPort;
  }

  /**
   * The OTLP/HTTP base endpoint, {@code http://127.0.0.1:<httpPort>}; the signals are posted to
   * {@code /v1/traces}, {@code /v1/metrics} and {@code /v1/logs} under it.
   */
  public String otlpHttpEndpoint() {
    return "http://127.0.0.1:" + httpPort;
  }

  /** The collector's process ID. */
  public long pid() {
    return process.pid();
  }

  /** The temporary directory with the collector's configuration; deleted by {@link #close()}. */
  public Path directory() {
    return directory;
  }

  /**
   * Everything the collector has printed so far, standard output and error interleaved: its log,
   * and what the debug exporter printed of each batch received.
   */
  public String output() {
    return process.output();
  }

  /**
   * Returns the output once it contains {@code text}; see {@link #awaitOutput(Predicate,
   * Duration)}.
   */
  public String awaitOutput(String text, Duration timeout) throws InterruptedIOException {
    requireNonNull(text, "text");
    return awaitOutput(output -> output.contains(text), "\"" + text + "\"", timeout);
  }

  /**
   * Returns the output once {@code condition} holds for it (all of it so far, checked now and after
   * each line the collector prints).
   *
   * @throws AssertionError when the condition does not hold within {@code timeout}, or the
   *     collector exits first; its message has the output
   */
  public String awaitOutput(Predicate<String> condition, Duration timeout)
      throws InterruptedIOException {
    requireNonNull(condition, "condition");
    return awaitOutput(condition, "the condition", timeout);
  }

  private String awaitOutput(Predicate<String> condition, String what, Duration timeout)
      throws InterruptedIOException {
    requireNonNull(timeout, "timeout");
    if (process.awaitOutput(condition, timeout)) {
      return process.output();
    }
    String output = process.output();
    throw new AssertionError(
        (process.isAlive()
                ? "otelcol-tern did not print " + what + " within " + timeout
                : "otelcol-tern exited before printing " + what)
            + "; its output:\n"
            + output);
  }

  /** Stops the collector by its PID, waits for it, and deletes its directory. Idempotent. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    try {
      process.stop(TIMEOUT);
    } finally {
      ToolProcess.deleteRecursively(directory);
    }
  }
}
