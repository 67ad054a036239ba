package dev.tern.netty.testing;

import static org.junit.jupiter.api.Assertions.fail;

import dev.tern.netty.internal.io.TransportKind;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Event loop groups of each {@link TransportKind} for the tests of a class, created on first use
 * and shut down after the class (so after every server and channel of its tests):
 *
 * <pre>{@code
 * @RegisterExtension static final TransportGroups loops = new TransportGroups();
 * ... loops.group(TransportKind.IO_URING) ...
 * }</pre>
 *
 * <p>Asking for a kind that cannot run here (its native library did not load, or the kernel refuses
 * io_uring) skips the test, printing why once per kind; but in CI ({@code CI=true}) it fails the
 * test: CI runs on the same kind of machine as development, where every kind runs, so a kind that
 * stops running there is a regression to see, not tests to skip quietly.
 *
 * <p>Thread-safe.
 */
public final class TransportGroups implements AfterAllCallback {
  /** The kinds whose unavailability was already printed, so each is printed once per JVM. */
  private static final Set<TransportKind> REPORTED = ConcurrentHashMap.newKeySet();

  private final Map<TransportKind, EventLoopGroup> groups = new EnumMap<>(TransportKind.class);

  /**
   * Returns if {@code kind} runs here; otherwise skips the test (printing why) or, in CI, fails it.
   */
  public static void assumeAvailable(TransportKind kind) {
    if (kind.isAvailable()) {
      return;
    }
    String why = kind.id() + " cannot run here: " + kind.unavailabilityReason();
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      fail(why + " (CI expects every transport kind to run on its machine)");
    }
    if (REPORTED.add(kind)) {
      System.err.println("Skipping the " + kind.id() + " tests: " + why);
    }
    Assumptions.abort(why);
  }

  /** The group of {@code kind} (two daemon threads), after {@link #assumeAvailable}. */
  public synchronized EventLoopGroup group(TransportKind kind) {
    assumeAvailable(kind);
    return groups.computeIfAbsent(
        kind,
        k ->
            new MultiThreadIoEventLoopGroup(
                2, new DefaultThreadFactory("test-" + k.id(), true), k.ioHandlerFactory()));
  }

  @Override
  public synchronized void afterAll(ExtensionContext context) {
    for (EventLoopGroup group : groups.values()) {
      group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
    }
    groups.clear();
  }
}
