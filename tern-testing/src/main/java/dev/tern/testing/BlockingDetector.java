package dev.tern.testing;

import dev.tern.NonBlockingScope;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import reactor.blockhound.BlockHound;

/**
 * Detects blocking calls of the JDK (sleep, locks and other parking, file and socket I/O) made by
 * methods declared non-blocking ({@link dev.tern.NonBlocking}, {@code ServerBuilder.nonBlocking})
 * while they run on the transport's thread, with <a
 * href="https://github.com/reactor/BlockHound">BlockHound</a>. Tern's own blocking calls (blocking
 * stubs, a call future's {@code get}, {@code awaitTermination}) are refused there without it; this
 * finds the rest.
 *
 * <p>In a test: add {@code io.projectreactor.tools:blockhound} to the test dependencies, run the
 * test JVM with {@code -XX:+AllowRedefinitionToAddDeleteMethods} (JDK 13 and later; and {@code
 * -XX:+EnableDynamicAgentLoading} to keep JDK 21+ quiet about the agent), and call {@link
 * #install()} before the server starts. A blocking call made then on a thread that runs a
 * non-blocking method's callbacks throws {@link IllegalStateException} naming the call and the
 * method (the call fails UNKNOWN, and the server logs it), and is recorded in {@link #violations()}
 * in case the method swallowed the exception. Only those threads are watched: the event loops' own
 * work, the server's executor and every other thread may block as before. Logging through {@code
 * java.util.logging} is allowed everywhere.
 *
 * <p>Installing is for the whole JVM and cannot be undone; it instruments a few JDK classes. Use it
 * in tests or in development, never in production.
 *
 * <p>Thread-safe.
 */
public final class BlockingDetector {
  private static final List<String> violations = new ArrayList<>();
  private static boolean installed;

  private BlockingDetector() {}

  /**
   * Installs BlockHound for this JVM, watching the threads of non-blocking methods; later calls do
   * nothing.
   *
   * @throws IllegalStateException if BlockHound is not on the class path, or cannot instrument this
   *     JVM (the message says which option is missing)
   */
  public static synchronized void install() {
    if (installed) {
      return;
    }
    try {
      Class.forName(
          "reactor.blockhound.BlockHound", false, BlockingDetector.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(
          "BlockingDetector needs BlockHound: add io.projectreactor.tools:blockhound to the test"
              + " dependencies",
          e);
    }
    try {
      BlockHound.builder()
          // Every thread's mark is read at each blocking call: it changes as callbacks run.
          .addDynamicThreadPredicate(thread -> true)
          .nonBlockingThreadPredicate(
              others -> others.or(thread -> NonBlockingScope.currentMethod() != null))
          .allowBlockingCallsInside("java.util.logging.Logger", "log")
          .blockingMethodCallback(
              blocking -> {
                String message =
                    NonBlockingScope.blockingMessage(
                        blocking.toString(), NonBlockingScope.currentMethod());
                record(message);
                throw new IllegalStateException(message);
              })
          .install();
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "BlockingDetector: BlockHound cannot instrument this JVM (run it with"
              + " -XX:+AllowRedefinitionToAddDeleteMethods on JDK 13 and later): "
              + e.getMessage(),
          e);
    }
    installed = true;
  }

  /**
   * Whether {@link #install()} can work here: BlockHound is on the class path and this JVM runs
   * with {@code -XX:+AllowRedefinitionToAddDeleteMethods} (or is older than JDK 13). For a test to
   * skip itself with a clear message elsewhere.
   */
  public static boolean isAvailable() {
    try {
      Class.forName(
          "reactor.blockhound.BlockHound", false, BlockingDetector.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      return false;
    }
    return Runtime.version().feature() < 13
        || ManagementFactory.getRuntimeMXBean()
            .getInputArguments()
            .contains("-XX:+AllowRedefinitionToAddDeleteMethods");
  }

  /** The blocking calls detected so far, oldest first, each as its exception's message. */
  public static synchronized List<String> violations() {
    return List.copyOf(violations);
  }

  /** Forgets the violations recorded so far (between tests). */
  public static synchronized void clearViolations() {
    violations.clear();
  }

  private static synchronized void record(String message) {
    violations.add(message);
  }
}
