package dev.tern.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Finds the real tools tests run against: grpcurl, grpc-health-probe, h2spec ({@value #H2SPEC}) and
 * the Python virtualenv with grpcio's clients, installed by {@code tools/install-grpc-tools.sh};
 * the OpenTelemetry Collector {@value #OTELCOL} and Prometheus ({@value #PROMETHEUS}), installed by
 * {@code tools/install-observability-tools.sh}; the Connect conformance suite's runner {@value
 * #CONNECTCONFORMANCE}, installed by {@code tools/install-conformance-tools.sh}.
 *
 * <p>A tool is looked up in the tools cache ({@code $TERN_TOOLS_DIR}, by default {@code
 * ~/.cache/tern-tools}; binaries in its {@code bin}, Python in {@code venv/bin}), then on the
 * {@code PATH}. When it is missing, {@link #require} skips the calling test with a message saying
 * how to install it, except under {@code CI=true}, where it fails the test: CI installs the tools,
 * so their absence there is a fault.
 *
 * <p>Stateless; safe from any thread.
 */
public final class ExternalTool {
  /**
   * The OpenTelemetry Collector built for Tern's tests (OTLP receiver, debug exporter); see {@link
   * OtelCollector}.
   */
  public static final String OTELCOL = "otelcol-tern";

  /** Prometheus (Debian's package puts it in {@code /usr/bin}); see {@link PrometheusServer}. */
  public static final String PROMETHEUS = "prometheus";

  /** h2spec, the HTTP/2 conformance test suite (github.com/summerwind/h2spec). */
  public static final String H2SPEC = "h2spec";

  /** The Connect conformance suite's runner (connectrpc.com/conformance). */
  public static final String CONNECTCONFORMANCE = "connectconformance";

  private static final String INSTALL = "run tools/install-grpc-tools.sh to install it";
  private static final String INSTALL_CONFORMANCE =
      "run tools/install-conformance-tools.sh to install it";
  private static final String INSTALL_OBSERVABILITY =
      "run tools/install-observability-tools.sh to install it";

  private ExternalTool() {}

  /** The tools cache: {@code $TERN_TOOLS_DIR}, or {@code ~/.cache/tern-tools}. */
  public static Path cacheDirectory() {
    String dir = System.getenv("TERN_TOOLS_DIR");
    if (dir != null && !dir.isEmpty()) {
      return Path.of(dir);
    }
    return Path.of(System.getProperty("user.home"), ".cache", "tern-tools");
  }

  /** The executable {@code name}, if installed (see the class doc for where it is looked for). */
  public static Optional<Path> find(String name) {
    if (name == null || name.isEmpty() || name.contains("/")) {
      throw new IllegalArgumentException("name must be a bare program name, was " + name);
    }
    List<Path> candidates = new ArrayList<>();
    candidates.add(cacheDirectory().resolve("bin").resolve(name));
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(java.io.File.pathSeparator)) {
        if (!dir.isEmpty()) {
          candidates.add(Path.of(dir, name));
        }
      }
    }
    return candidates.stream().filter(ExternalTool::isExecutable).findFirst();
  }

  /**
   * The executable {@code name}; when it is not installed, skips the calling test, or fails it when
   * the environment variable {@code CI} is {@code true}.
   */
  public static Path require(String name) {
    return found(find(name), name, System.getenv("CI"));
  }

  /**
   * The Python interpreter of the tools' virtualenv (grpcio, grpcio-health-checking and
   * grpcio-reflection installed); skips or fails as {@link #require} does when it is missing.
   */
  public static Path requirePython() {
    Path python = cacheDirectory().resolve("venv").resolve("bin").resolve("python");
    return found(
        isExecutable(python) ? Optional.of(python) : Optional.empty(),
        "the Python virtualenv with grpcio's health and reflection clients",
        System.getenv("CI"));
  }

  static Path found(Optional<Path> tool, String what, String ciEnv) {
    if (tool.isPresent()) {
      return tool.get();
    }
    String install =
        what.equals(OTELCOL) || what.equals(PROMETHEUS)
            ? INSTALL_OBSERVABILITY
            : what.equals(CONNECTCONFORMANCE) ? INSTALL_CONFORMANCE : INSTALL;
    String message = what + " is not installed; " + install;
    if ("true".equalsIgnoreCase(ciEnv)) {
      Assertions.fail(message + "; CI=true, so this is a failure, not a skip");
    }
    Assumptions.abort(message);
    throw new AssertionError("unreachable");
  }

  private static boolean isExecutable(Path path) {
    return Files.isRegularFile(path) && Files.isExecutable(path);
  }
}
