package dev.tern;

import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Where a method declared non-blocking ({@link NonBlocking}, {@link ServerBuilder#nonBlocking})
 * runs: an executor that runs each task at once on the calling thread, the transport's, and marks
 * that thread as running the method for as long as the task runs. The server makes one per such
 * method. Blocking code asks {@link #checkMayBlock} first: Tern's blocking stubs, a call future's
 * {@code get}, {@code Server} and {@code ManagedChannel} {@code awaitTermination} refuse to block a
 * marked thread, since a wait there stalls every call of that transport thread, and lasts forever
 * if what it waits for must come through the same thread. Your own blocking helpers can ask too,
 * and test tools (tern-testing's {@code BlockingDetector}) read {@link #currentMethod}.
 *
 * <p>Thread-safe: the mark is per thread, and restored after each task, so nested scopes (a
 * non-blocking method calling an in-process server whose method is non-blocking too) unwind in
 * order.
 */
public final class NonBlockingScope implements Executor {
  /** The full name of the non-blocking method whose callbacks the thread runs now, or null. */
  private static final ThreadLocal<String> CURRENT_METHOD = new ThreadLocal<>();

  private final String fullMethodName;

  /**
   * A scope for the method {@code fullMethodName} ({@code "pkg.Service/Method"}): the name {@link
   * #currentMethod} returns and {@link #checkMayBlock}'s message names.
   */
  public NonBlockingScope(String fullMethodName) {
    this.fullMethodName = Objects.requireNonNull(fullMethodName, "fullMethodName");
  }

  /** Runs {@code task} now, on this thread, marked as running this scope's method. */
  @Override
  public void execute(Runnable task) {
    String outer = CURRENT_METHOD.get();
    CURRENT_METHOD.set(fullMethodName);
    try {
      task.run();
    } finally {
      CURRENT_METHOD.set(outer);
    }
  }

  /**
   * The full name of the non-blocking method whose callbacks the current thread is running, or null
   * when it runs none.
   */
  public static String currentMethod() {
    return CURRENT_METHOD.get();
  }

  /**
   * Throws if the current thread runs a non-blocking method's callbacks, where {@code blockingCall}
   * must not wait.
   *
   * @param blockingCall what was about to block, as the message names it (e.g. {@code
   *     "ClientCalls.blockingUnaryCall"})
   * @throws IllegalStateException naming the call and the method
   */
  public static void checkMayBlock(String blockingCall) {
    String method = CURRENT_METHOD.get();
    if (method != null) {
      throw new IllegalStateException(blockingMessage(blockingCall, method));
    }
  }

  /** The message that reports {@code blockingCall} made from the non-blocking {@code method}. */
  public static String blockingMessage(String blockingCall, String method) {
    return "Blocking call "
        + blockingCall
        + " on the transport thread from non-blocking method "
        + method
        + " (declared with @NonBlocking or ServerBuilder.nonBlocking): it would stall every call"
        + " of that thread. Use an asynchronous call, or drop the declaration so that the method"
        + " runs on the server's executor";
  }

  @Override
  public String toString() {
    return "NonBlockingScope[" + fullMethodName + "]";
  }
}
