package dev.tern.internal.client;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.spi.ClientStreamListener.RpcProgress;
import java.util.concurrent.TimeUnit;

/**
 * Client-side adaptive throttling of one backend (a subchannel), as the Google SRE book describes
 * it: over a sliding window, the calls the client meant to send it ({@code requests}) and those it
 * accepted ({@code accepts}); a new call is refused locally with probability {@code max(0,
 * (requests - k * accepts) / (requests + 1))}. A refused call counts as a request and not an
 * accept, so the client sends less while the backend keeps refusing, and more again as it accepts
 * (or as the refusals leave the window).
 *
 * <p>What counts (see {@link #isRejection}): a call the backend ended with RESOURCE_EXHAUSTED, or
 * with UNAVAILABLE and a {@code grpc-retry-pushback-ms} trailer, is a request and not an accept; a
 * call the transport refused or never sent (transparently retried), or that the client cancelled
 * before the backend answered, does not count; every other call, whatever its status, is a request
 * and an accept. A call counts when it ends, so calls in flight (a burst at start-up) never make
 * the client throttle a backend that has not said no.
 *
 * <p>Thread-safe: one private lock guards the window; it is held only to count and read, and never
 * while calling out (the clock and the random source are read outside it).
 */
public final class BackendThrottle {
  /** The cause of every status of a call refused here: how the retry layer knows it. */
  private static final Throwable NOT_SENT = new NotSent();

  private final AdaptiveThrottling settings;
  private final String backend;
  private final Object lock = new Object();

  @GuardedBy("lock")
  private final ThrottleWindow window;

  BackendThrottle(AdaptiveThrottling settings, String backend) {
    this.settings = settings;
    this.backend = backend;
    this.window = new ThrottleWindow(settings.windowNanos(), settings.buckets());
  }

  /**
   * Whether a call may be sent to the backend now: null if so, else the RESOURCE_EXHAUSTED status
   * the call fails with (a refused call counts as a request).
   */
  public Status admit() {
    long now = settings.ticker().nanoTime();
    long requests;
    long accepts;
    synchronized (lock) {
      requests = window.requests(now);
      accepts = window.accepts();
    }
    double p = rejectionProbability(requests, accepts, settings.k());
    if (p <= 0 || settings.random().getAsDouble() >= p) {
      return null;
    }
    synchronized (lock) {
      window.add(now, false);
    }
    return Status.RESOURCE_EXHAUSTED
        .withDescription(
            "client-side throttling: of the last "
                + requests
                + " calls to "
                + backend
                + " (within "
                + TimeUnit.NANOSECONDS.toSeconds(settings.windowNanos())
                + " s), it accepted "
                + accepts
                + " and rejected the rest, or this client did not send them; so this call was not"
                + " sent either (adaptiveThrottling k="
                + settings.k()
                + ")")
        .withCause(NOT_SENT);
  }

  /**
   * Counts a call that was sent, by how it ended. A call the client cancelled first (its deadline,
   * the application, a hedge that lost, the client's own message limits) does not count: the
   * backend had not answered it.
   */
  public void onClosed(
      Status status, RpcProgress progress, Metadata trailers, boolean cancelledByClient) {
    if (progress != RpcProgress.PROCESSED || cancelledByClient) {
      return; // never reached the backend's application (sent again transparently), or no answer
    }
    boolean accepted = !isRejection(status, trailers);
    long now = settings.ticker().nanoTime();
    synchronized (lock) {
      window.add(now, accepted);
    }
  }

  /**
   * Whether a call the backend processed and ended with {@code status} is a rejection: always for
   * RESOURCE_EXHAUSTED (a server or proxy shedding load, or a quota); for UNAVAILABLE only when the
   * trailers carry {@code grpc-retry-pushback-ms}, the server's own word that it is pushing back. A
   * bare UNAVAILABLE is also what the client reports when a connection fails, which says nothing of
   * the backend's load, and the balancer already stops picking a backend it cannot reach.
   */
  public static boolean isRejection(Status status, Metadata trailers) {
    Status.Code code = status.getCode();
    return code == Status.Code.RESOURCE_EXHAUSTED
        || (code == Status.Code.UNAVAILABLE && trailers.containsKey(GrpcHeaders.RETRY_PUSHBACK_MS));
  }

  /** Whether {@code status} is that of a call a backend throttle refused (it was not sent). */
  public static boolean notSent(Status status) {
    return status.getCause() == NOT_SENT;
  }

  /**
   * The probability of refusing a call locally: {@code max(0, (requests - k * accepts) / (requests
   * + 1))}.
   */
  static double rejectionProbability(long requests, long accepts, double k) {
    return Math.max(0, (requests - k * accepts) / (requests + 1));
  }

  @Override
  public String toString() {
    long now = settings.ticker().nanoTime();
    synchronized (lock) {
      return "BackendThrottle{"
          + backend
          + ", requests="
          + window.requests(now)
          + ", accepts="
          + window.accepts()
          + "}";
    }
  }

  /** The cause of a refused call's status. Shared and immutable: no stack, no suppression. */
  private static final class NotSent extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NotSent() {
      super("not sent: the channel's adaptive throttling refused it", null, false, false);
    }
  }
}
