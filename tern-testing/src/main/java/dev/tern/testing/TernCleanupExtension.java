package dev.tern.testing;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Shuts down the channels, servers and executors a test registers, and fails the test if any of
 * them, or a thread the test started, is left behind.
 *
 * <pre>{@code
 * @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();
 *
 * @Test
 * void hello() throws Exception {
 *   String name = cleanup.uniqueName();
 *   Server server = cleanup.register(InProcessServerBuilder.forName(name).addService(..).build());
 *   server.start();
 *   ManagedChannel channel = cleanup.register(InProcessChannelBuilder.forName(name).build());
 *   ...
 * }
 * }</pre>
 *
 * <p>After each test, in this order: every registered channel is shut down and awaited, then every
 * server, then every executor. Whatever does not terminate within the timeout (default 5 s each) is
 * shut down forcibly ({@code shutdownNow}) and the test fails with a message naming it: a channel
 * or server that does not terminate after {@code shutdown()} still had calls in flight, which
 * usually means the test (or the code under test) never finished a call. Then the extension looks
 * for non-daemon threads that were started during the test: it joins each (sharing one timeout) and
 * fails the test for those still alive. Daemon threads are ignored, as are Tern's shared threads
 * ({@code tern-default-executor-*}, its spill threads included, and {@code tern-timer-*}) and any
 * prefix given to {@link #ignoreThreadsNamed}. If the test itself failed, these failures are added
 * to it as suppressed exceptions.
 *
 * <p>Register per-test resources only (from the test or a {@code @BeforeEach} method): everything
 * registered is cleaned up after the current test. The instance may be an instance field or a
 * static field.
 *
 * <p>Thread-safe: {@code register} may be called from any thread; configure ({@link #timeout},
 * {@link #ignoreThreadsNamed}) before the first test runs.
 */
public final class TernCleanupExtension implements BeforeEachCallback, AfterEachCallback {
  /** Makes {@link #uniqueName()} unique in the JVM, even across test classes run in parallel. */
  private static final AtomicLong NAME_COUNTER = new AtomicLong();

  private static final List<String> TERN_SHARED_THREADS =
      List.of("tern-default-executor-", "tern-timer-");

  private volatile Duration timeout = Duration.ofSeconds(5);

  @GuardedBy("this")
  private final List<String> ignoredThreadPrefixes = new ArrayList<>(TERN_SHARED_THREADS);

  @GuardedBy("this")
  private final List<ManagedChannel> channels = new ArrayList<>();

  @GuardedBy("this")
  private final List<Server> servers = new ArrayList<>();

  @GuardedBy("this")
  private final List<ExecutorService> executors = new ArrayList<>();

  @GuardedBy("this")
  private Set<Thread> threadsBeforeTest = Set.of();

  @GuardedBy("this")
  private String testName = "test";

  /** An extension with a 5 s timeout per resource. */
  public TernCleanupExtension() {}

  /**
   * Sets how long to wait for each resource to terminate, and for leftover threads (together).
   * Default 5 s.
   *
   * @throws IllegalArgumentException if {@code timeout} is negative or zero
   */
  public TernCleanupExtension timeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive: " + timeout);
    }
    this.timeout = timeout;
    return this;
  }

  /**
   * Ignores non-daemon threads whose names start with {@code prefix} (for example the event loops
   * of a transport that shares them between tests).
   */
  public synchronized TernCleanupExtension ignoreThreadsNamed(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    if (prefix.isEmpty()) {
      throw new IllegalArgumentException(
          "prefix must not be empty (that would ignore every thread)");
    }
    ignoredThreadPrefixes.add(prefix);
    return this;
  }

  /** Shuts {@code channel} down after the test and checks that it terminates. */
  public <T extends ManagedChannel> T register(T channel) {
    Objects.requireNonNull(channel, "channel");
    synchronized (this) {
      channels.add(channel);
    }
    return channel;
  }

  /** Shuts {@code server} down after the test (after the channels) and checks it terminates. */
  public <T extends Server> T register(T server) {
    Objects.requireNonNull(server, "server");
    synchronized (this) {
      servers.add(server);
    }
    return server;
  }

  /** Shuts {@code executor} down after the test (after channels and servers), checking it ends. */
  public <T extends ExecutorService> T register(T executor) {
    Objects.requireNonNull(executor, "executor");
    synchronized (this) {
      executors.add(executor);
    }
    return executor;
  }

  /**
   * A name no other call returns in this JVM, for in-process servers: the test's class and method
   * plus a counter, so it reads well in failure messages.
   */
  public synchronized String uniqueName() {
    return testName + "-" + NAME_COUNTER.incrementAndGet();
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());
    String name =
        context.getRequiredTestClass().getSimpleName()
            + context.getTestMethod().map(m -> "." + m.getName()).orElse("");
    synchronized (this) {
      threadsBeforeTest = before;
      testName = name;
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    List<String> problems = cleanUp();
    if (!problems.isEmpty()) {
      throw new AssertionError(
          "TernCleanupExtension found leftovers after "
              + context.getDisplayName()
              + ":\n  - "
              + String.join("\n  - ", problems));
    }
  }

  /** Shuts everything down and returns what did not go away cleanly. */
  private List<String> cleanUp() {
    List<ManagedChannel> channelsToClose;
    List<Server> serversToClose;
    List<ExecutorService> executorsToClose;
    Set<Thread> before;
    synchronized (this) {
      channelsToClose = new ArrayList<>(channels);
      serversToClose = new ArrayList<>(servers);
      executorsToClose = new ArrayList<>(executors);
      channels.clear();
      servers.clear();
      executors.clear();
      before = threadsBeforeTest;
    }
    List<String> problems = new ArrayList<>();
    try {
      for (ManagedChannel channel : channelsToClose) {
        channel.shutdown();
      }
      for (ManagedChannel channel : channelsToClose) {
        if (!channel.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
          problems.add(
              "channel "
                  + channel
                  + " still had calls in flight: it did not terminate within "
                  + timeout
                  + " after shutdown(), so it was shut down with shutdownNow()");
          channel.shutdownNow();
          if (!channel.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            problems.add("channel " + channel + " did not terminate even after shutdownNow()");
          }
        }
      }
      for (Server server : serversToClose) {
        server.shutdown();
      }
      for (Server server : serversToClose) {
        if (!server.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
          problems.add(
              "server "
                  + server
                  + " still had calls or connections: it did not terminate within "
                  + timeout
                  + " after shutdown(), so it was shut down with shutdownNow()");
          server.shutdownNow();
          if (!server.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            problems.add("server " + server + " did not terminate even after shutdownNow()");
          }
        }
      }
      for (ExecutorService executor : executorsToClose) {
        executor.shutdown();
      }
      for (ExecutorService executor : executorsToClose) {
        if (!executor.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
          problems.add(
              "executor "
                  + executor
                  + " still had tasks: it did not terminate within "
                  + timeout
                  + " after shutdown(), so it was shut down with shutdownNow()");
          executor.shutdownNow();
        }
      }
      problems.addAll(leftoverThreads(before));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      problems.add("interrupted while waiting for resources to terminate");
    }
    return problems;
  }

  private List<String> leftoverThreads(Set<Thread> before) throws InterruptedException {
    List<String> ignored;
    synchronized (this) {
      ignored = List.copyOf(ignoredThreadPrefixes);
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    List<String> problems = new ArrayList<>();
    for (Thread thread : Thread.getAllStackTraces().keySet()) {
      if (before.contains(thread)
          || thread == Thread.currentThread()
          || thread.isDaemon()
          || hasIgnoredName(thread, ignored)) {
        continue;
      }
      long remainingMillis = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (remainingMillis > 0) {
        thread.join(remainingMillis);
      }
      if (thread.isAlive()) {
        problems.add(
            "non-daemon thread '"
                + thread.getName()
                + "' started during the test is still running (state "
                + thread.getState()
                + ")");
      }
    }
    return problems;
  }

  private static boolean hasIgnoredName(Thread thread, List<String> prefixes) {
    String name = thread.getName();
    for (String prefix : prefixes) {
      if (name.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }
}
