package dev.tern.testtools;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real HTTP proxy server, proxy.py ({@value ExternalTool#PROXY_PY}, PyPI's {@code proxy.py},
 * installed by {@code tools/install-proxy-tools.sh}), on 127.0.0.1 at a port the OS picks (it binds
 * port 0 and writes the port to a file), optionally demanding Basic credentials. It opens CONNECT
 * tunnels to any address it can reach and logs one access line per request, which {@link
 * #connectsTo} reads. {@link #close()} stops it by its PID.
 *
 * <p>Thread-safe: the process's output is read through {@link ToolProcess}, which is.
 */
public final class ProxyPy implements AutoCloseable {
  /** How long the proxy may take to start and to stop. */
  static final Duration TIMEOUT = Duration.ofSeconds(20);

  private static final Duration POLL_INTERVAL = Duration.ofMillis(50);

  /** proxy.py's access log line for a CONNECT: {@code CONNECT host:port - N bytes - T ms}. */
  private static final Pattern CONNECT_LOG = Pattern.compile("- CONNECT (\\S+) - ");

  private final ToolProcess process;
  private final int port;
  private final Path directory;

  private ProxyPy(ToolProcess process, int port, Path directory) {
    this.process = process;
    this.port = port;
    this.directory = directory;
  }

  /**
   * Starts proxy.py with no authentication; when it is not installed, skips the calling test (fails
   * it under {@code CI=true}), as {@link ExternalTool#require} does.
   */
  public static ProxyPy start() throws IOException {
    return start(ExternalTool.require(ExternalTool.PROXY_PY), null);
  }

  /**
   * Starts proxy.py demanding Basic credentials {@code user:password} (407 without them); skips or
   * fails as {@link #start()} does when it is missing.
   *
   * @throws IllegalArgumentException if {@code user} is empty or contains {@code ':'}
   */
  public static ProxyPy startWithBasicAuth(String user, String password) throws IOException {
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(password, "password");
    if (user.isEmpty() || user.contains(":")) {
      throw new IllegalArgumentException("user must be non-empty and without ':', was " + user);
    }
    return start(ExternalTool.require(ExternalTool.PROXY_PY), user + ":" + password);
  }

  /** Starts the proxy.py at {@code binary}; returns once it listens. */
  static ProxyPy start(Path binary, String basicAuth) throws IOException {
    Path directory = Files.createTempDirectory("tern-proxy-py-");
    Path portFile = directory.resolve("port");
    List<String> command = new ArrayList<>();
    command.addAll(
        List.of(
            binary.toString(),
            "--hostname",
            "127.0.0.1",
            "--port",
            "0",
            "--port-file",
            portFile.toString(),
            // One acceptor and one worker process: enough for a test, and light on a small machine.
            "--num-acceptors",
            "1",
            "--num-workers",
            "1",
            "--log-level",
            "INFO"));
    if (basicAuth != null) {
      command.add("--basic-auth");
      command.add(basicAuth);
    }
    ToolProcess process = ToolProcess.start("proxy.py", command);
    boolean started = false;
    try {
      int port = awaitPort(process, portFile);
      started = true;
      return new ProxyPy(process, port, directory);
    } finally {
      if (!started) {
        process.stop(TIMEOUT);
        ToolProcess.deleteRecursively(directory);
      }
    }
  }

  /** Waits for proxy.py to write the port it listens on, which it does once it listens. */
  private static int awaitPort(ToolProcess process, Path portFile) throws IOException {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (Files.exists(portFile)) {
        String text = Files.readString(portFile, UTF_8).trim();
        if (!text.isEmpty()) {
          return Integer.parseInt(text);
        }
      }
      if (process.awaitExit(POLL_INTERVAL)) {
        throw new IOException(
            "proxy.py exited with " + process.exitValue() + ":\n" + process.output());
      }
    }
    throw new InterruptedIOException(
        "proxy.py did not listen within " + TIMEOUT + ":\n" + process.output());
  }

  /** The port it listens on, on 127.0.0.1. */
  public int port() {
    return port;
  }

  /** The proxy's PID. */
  public long pid() {
    return process.pid();
  }

  /** Everything proxy.py has printed so far (its log). */
  public String output() {
    return process.output();
  }

  /**
   * Waits up to {@code timeout} for the access log to show a CONNECT to {@code hostPort}; true if
   * it does. proxy.py writes the line when the tunnel closes, or at once when it refused it.
   */
  public boolean connectsTo(String hostPort, Duration timeout) throws InterruptedIOException {
    return process.awaitOutput(output -> connects(output).contains(hostPort), timeout);
  }

  /** The targets of the CONNECT requests proxy.py logged so far, in order. */
  public List<String> connects() {
    return connects(process.output());
  }

  private static List<String> connects(String output) {
    List<String> targets = new ArrayList<>();
    Matcher m = CONNECT_LOG.matcher(output);
    while (m.find()) {
      targets.add(m.group(1));
    }
    return targets;
  }

  /** Stops proxy.py by its PID and removes its files. */
  @Override
  public void close() {
    process.stop(TIMEOUT);
    ToolProcess.deleteRecursively(directory);
  }
}
