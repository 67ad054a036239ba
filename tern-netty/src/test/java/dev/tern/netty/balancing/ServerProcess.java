package dev.tern.netty.balancing;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.tern.netty.testing.ChildJvm;
import dev.tern.testing.Await;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.BindException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link ServerProcessMain} in a child JVM, on the test's own class path: started by {@link
 * #start}, which returns once it listens, and {@link #kill killed} with SIGKILL. {@link #close()}
 * kills it too and is idempotent, for {@code @AfterEach}. The child's output (its ready line, any
 * log) is kept for failure messages, read by a daemon thread.
 *
 * <p>Thread-safe.
 */
final class ServerProcess implements AutoCloseable {
  /** End of the child's output, on the line queue. */
  private static final String EOF = "\u0000eof";

  private final Process process;
  private final String address;
  private final List<String> output = new ArrayList<>();

  private ServerProcess(Process process, String address) {
    this.process = process;
    this.address = address;
  }

  /**
   * Starts a server on {@code host:port} in a child JVM and returns once it listens.
   *
   * @throws BindException if the address is taken (the child has exited)
   * @throws IOException if the child cannot be started or exits without listening
   */
  static ServerProcess start(String host, int port) throws IOException {
    List<String> command =
        ChildJvm.command(ServerProcessMain.class, List.of(), host, Integer.toString(port));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    ServerProcess child = new ServerProcess(process, host + ":" + port);
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread reader = new Thread(() -> child.readOutput(lines), "server-process-" + process.pid());
    reader.setDaemon(true);
    reader.start();
    try {
      while (true) {
        String line = Await.poll(lines, "the server process on " + child.address + " to listen");
        if (line.equals(ServerProcessMain.READY)) {
          return child;
        }
        if (line.startsWith(ServerProcessMain.BIND_FAILED)) {
          child.kill();
          throw new BindException(child.address + ": " + line);
        }
        if (line.equals(EOF)) {
          throw new IOException(
              "the server process on " + child.address + " exited:\n" + child.output());
        }
      }
    } catch (IOException | RuntimeException | Error e) {
      child.kill();
      throw e;
    }
  }

  /** The child's PID. */
  long pid() {
    return process.pid();
  }

  /** Kills the child (SIGKILL) and waits until it is gone. */
  void kill() {
    process.destroyForcibly();
    try {
      if (!process.waitFor(Await.TIMEOUT.toNanos(), TimeUnit.NANOSECONDS)) {
        throw new AssertionError("server process " + pid() + " did not die on SIGKILL");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted waiting for server process " + pid() + " to die", e);
    }
  }

  /** Everything the child printed so far. */
  synchronized String output() {
    return String.join("\n", output);
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      kill();
    }
  }

  @Override
  public String toString() {
    return "ServerProcess{pid " + process.pid() + ", " + address + "}";
  }

  private void readOutput(BlockingQueue<String> lines) {
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(process.getInputStream(), UTF_8))) {
      for (String line; (line = in.readLine()) != null; ) {
        synchronized (this) {
          output.add(line);
        }
        lines.add(line);
      }
    } catch (IOException e) {
      synchronized (this) {
        output.add("(reading the output failed: " + e + ")");
      }
    } finally {
      lines.add(EOF);
    }
  }
}
