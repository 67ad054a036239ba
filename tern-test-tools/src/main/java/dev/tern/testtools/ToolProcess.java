package dev.tern.testtools;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * A process of an external tool that a test harness ({@link OtelCollector}, {@link
 * PrometheusServer}, tern-xds's control plane) started: its standard output and error, merged,
 * captured line by line into a buffer that callers read or wait on, and a stop by its PID (SIGTERM,
 * then SIGKILL) that waits for the process and the capture to end. A shutdown hook kills the
 * process if the JVM exits first.
 *
 * <p>Thread-safe. The buffer is guarded by this object's monitor, which a reader thread takes only
 * to append a line or to mark the end of the output and a waiter only while it checks its
 * condition; nothing blocks while holding it except {@link Object#wait}.
 */
public final class ToolProcess {
  /** Tries to start a tool on ports the OS said were free, in case another process took one. */
  static final int PORT_ATTEMPTS = 5;

  /**
   * How long a tool whose output has ended may take to exit before it counts as hung: the end of
   * the output comes a moment before the exit.
   */
  static final Duration EXIT_GRACE = Duration.ofSeconds(2);

  private final String name;
  private final Process process;
  private final Thread reader;
  private final Thread shutdownHook;

  @GuardedBy("this")
  private final StringBuilder output = new StringBuilder();

  @GuardedBy("this")
  private boolean outputEnded;

  private ToolProcess(String name, Process process) {
    this.name = name;
    this.process = process;
    this.reader = new Thread(this::readOutput, name + "-" + process.pid() + "-output");
    this.reader.setDaemon(true);
    this.shutdownHook = new Thread(process::destroyForcibly, name + "-" + process.pid() + "-kill");
  }

  /** Starts {@code command} with no input and its output captured; {@code name} names threads. */
  public static ToolProcess start(String name, List<String> command) throws IOException {
    Process process =
        new ProcessBuilder(command)
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .redirectErrorStream(true)
            .start();
    ToolProcess tool = new ToolProcess(name, process);
    Runtime.getRuntime().addShutdownHook(tool.shutdownHook);
    tool.reader.start();
    return tool;
  }

  /** The process's PID. */
  public long pid() {
    return process.pid();
  }

  /** Whether the process is still running. */
  public boolean isAlive() {
    return process.isAlive();
  }

  /** The exit code; only once the process has exited. */
  public int exitValue() {
    return process.exitValue();
  }

  /** Everything the process has printed so far, standard output and error interleaved. */
  public synchronized String output() {
    return output.toString();
  }

  /**
   * Waits until {@code condition} holds for the output so far (true), the output has ended (the
   * process exited) without it holding (false), or {@code timeout} has passed (false). The
   * condition is checked now and after each line the process prints.
   */
  public synchronized boolean awaitOutput(Predicate<String> condition, Duration timeout)
      throws InterruptedIOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      if (condition.test(output.toString())) {
        return true;
      }
      long left = deadline - System.nanoTime();
      if (outputEnded || left <= 0) {
        return false;
      }
      try {
        TimeUnit.NANOSECONDS.timedWait(this, left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted waiting for the output of " + name);
      }
    }
  }

  /**
   * Waits up to {@code timeout} for the process to exit on its own; true if it has. Serves as the
   * pause between two polls of a tool that is starting, cut short if the tool dies.
   */
  public boolean awaitExit(Duration timeout) throws InterruptedIOException {
    try {
      return process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for " + name + " to exit");
    }
  }

  /**
   * Stops the process by its PID, SIGTERM first and SIGKILL if it is still there after {@code
   * timeout}; returns once it is gone and its output read to the end. Idempotent.
   */
  public void stop(Duration timeout) {
    boolean interrupted = false;
    try {
      // Through the handle: Process.destroy() would also close the output pipe under the reader,
      // losing what the tool prints while it shuts down.
      process.toHandle().destroy();
      try {
        if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
          process.destroyForcibly();
          process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
        reader.join(timeout.toMillis());
      } catch (InterruptedException e) {
        interrupted = true;
        process.destroyForcibly();
      }
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException e) {
        // The JVM is shutting down: the hook kills the process anyway.
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void readOutput() {
    try (BufferedReader lines =
        new BufferedReader(new InputStreamReader(process.getInputStream(), UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        synchronized (this) {
          output.append(line).append('\n');
          notifyAll();
        }
      }
    } catch (IOException e) {
      // The stream closed under us (the process is being destroyed): the output ends here.
    } finally {
      synchronized (this) {
        outputEnded = true;
        notifyAll();
      }
    }
  }

  /**
   * A TCP port free on 127.0.0.1 when asked, for a tool that cannot bind port 0 and report it. The
   * tool may still lose it to another process: callers retry the start ({@link #PORT_ATTEMPTS}).
   */
  static int freePort() {
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port on 127.0.0.1", e);
    }
  }

  /** Whether a tool's output says a port it was told to bind was taken. */
  static boolean lostPortRace(String output) {
    return output.contains("address already in use");
  }

  static void deleteRecursively(Path directory) {
    try (Stream<Path> paths = Files.walk(directory)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (NoSuchFileException e) {
      // Already gone.
    } catch (IOException e) {
      throw new UncheckedIOException("could not delete " + directory, e);
    }
  }
}
