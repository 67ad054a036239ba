package dev.tern.netty.balancing;

import dev.tern.Metadata;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.testing.Await;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A server interceptor that records, for every call the server receives, the value of its {@code
 * grpc-previous-rpc-attempts} header as the server's application sees it ({@link #ABSENT} if the
 * call had none), in the order the calls arrived.
 *
 * <p>Thread-safe: calls arrive on the server's threads; the test reads and waits.
 */
final class AttemptLog implements ServerInterceptor {
  /** The header a client sets on every attempt after the first (gRFC A6). */
  static final Metadata.Key<String> PREVIOUS_ATTEMPTS =
      Metadata.Key.of("grpc-previous-rpc-attempts", Metadata.ASCII_STRING_MARSHALLER);

  /** Recorded for a call without the header. */
  static final String ABSENT = "absent";

  private final List<String> seen = new ArrayList<>();

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    String previous = headers.get(PREVIOUS_ATTEMPTS);
    synchronized (this) {
      seen.add(previous == null ? ABSENT : previous);
      notifyAll();
    }
    return next.startCall(call, headers);
  }

  /** The header of each call so far, in arrival order. */
  synchronized List<String> seen() {
    return List.copyOf(seen);
  }

  /** How many calls so far carried {@code value} ({@link #ABSENT}: no header). */
  synchronized long count(String value) {
    return seen.stream().filter(v -> Objects.equals(v, value)).count();
  }

  /** Forgets the calls so far. */
  synchronized void clear() {
    seen.clear();
  }

  /** Waits until at least {@code calls} calls have arrived, at most {@link Await#TIMEOUT}. */
  synchronized void awaitCalls(int calls) {
    long deadline = System.nanoTime() + Await.TIMEOUT.toNanos();
    while (seen.size() < calls) {
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        throw new AssertionError(
            "timed out after " + Await.TIMEOUT + " waiting for " + calls + " calls; saw " + seen);
      }
      try {
        TimeUnit.NANOSECONDS.timedWait(this, remaining);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for calls", e);
      }
    }
  }
}
