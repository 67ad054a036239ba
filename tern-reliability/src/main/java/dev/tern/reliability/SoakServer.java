package dev.tern.reliability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The soak's server as a child JVM ({@link SoakServerMain}) on this JVM's class path, sampled
 * through its standard input and output and {@code /proc}. Its standard error goes to this
 * process's.
 *
 * <p>Not thread-safe: one thread starts, samples and closes it.
 */
final class SoakServer implements AutoCloseable {
  private static final Duration STARTUP = Duration.ofSeconds(30);
  private static final Duration ANSWER = Duration.ofSeconds(30);

  private final Process process;
  private final BufferedReader out;
  private final Writer in;
  private final InetSocketAddress address;

  /** Reads the child's output, so that a read can time out (a daemon thread; stopped by close). */
  private final ExecutorService reader =
      Executors.newSingleThreadExecutor(
          task -> {
            Thread thread = new Thread(task, "soak-server-output");
            thread.setDaemon(true);
            return thread;
          });

  private SoakServer(Process process, String host) throws IOException {
    this.process = process;
    this.out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    String ready = readLine(STARTUP, "start");
    if (!ready.startsWith(SoakServerMain.READY)) {
      throw new IOException("the soak server printed '" + ready + "' instead of its port");
    }
    int port = Integer.parseInt(ready.substring(SoakServerMain.READY.length()).trim());
    this.address = new InetSocketAddress(host, port);
  }

  /**
   * Starts {@code peer}'s server on {@code host} in a child JVM with {@code jvmOptions} (a heap
   * bound, say) and waits until it listens.
   */
  static SoakServer start(String peer, String host, List<String> jvmOptions) throws IOException {
    return start(List.of(), peer, host, jvmOptions, List.of());
  }

  /**
   * Like {@link #start(String, String, List)}, with {@code launcher} before {@code java} ({@code
   * taskset}, see {@link CpuPinning}) and {@code serverArgs} after the host on {@link
   * SoakServerMain}'s command line (Tern's {@code maxConcurrentCalls}).
   */
  static SoakServer start(
      List<String> launcher,
      String peer,
      String host,
      List<String> jvmOptions,
      List<String> serverArgs)
      throws IOException {
    List<String> command = new ArrayList<>(launcher);
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(SoakServerMain.class.getName());
    command.add(peer);
    command.add(host);
    command.addAll(serverArgs);
    Process process =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    try {
      return new SoakServer(process, host);
    } catch (IOException | RuntimeException e) {
      process.destroyForcibly();
      throw e;
    }
  }

  InetSocketAddress address() {
    return address;
  }

  /**
   * Whether the child is still running (it exits on its own only if it failed, say out of heap).
   */
  boolean isAlive() {
    return process.isAlive();
  }

  /**
   * The child's heap after a full GC (it answers {@value SoakServerMain#SAMPLE}), RSS, threads,
   * fds.
   */
  ResourceSample sample() throws IOException {
    in.write(SoakServerMain.SAMPLE + "\n");
    in.flush();
    String answer = readLine(ANSWER, "answer a sample");
    if (!answer.startsWith(SoakServerMain.HEAP)) {
      throw new IOException("the soak server answered '" + answer + "' to a sample");
    }
    long heap = Long.parseLong(answer.substring(SoakServerMain.HEAP.length()).trim());
    return ResourceSample.of(process.pid(), heap);
  }

  private String readLine(Duration timeout, String what) throws IOException {
    Future<String> line = reader.submit(out::readLine);
    try {
      String result = line.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (result == null) {
        throw new IOException("the soak server exited instead of to " + what);
      }
      return result;
    } catch (TimeoutException e) {
      throw new IOException("the soak server did not " + what + " within " + timeout, e);
    } catch (ExecutionException e) {
      throw new IOException("reading the soak server's output failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for the soak server to " + what, e);
    }
  }

  /**
   * Closes the child's standard input (it stops its server and exits); kills it if it does not
   * within 10 s, or at once if this thread is interrupted (the interrupt stays set).
   */
  @Override
  public void close() {
    reader.shutdownNow();
    try {
      in.close();
    } catch (IOException e) {
      // The child is gone already; waiting below tells.
    }
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
