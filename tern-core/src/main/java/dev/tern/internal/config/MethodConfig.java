package dev.tern.internal.config;

import dev.tern.CallOptions;
import dev.tern.Deadline;
import java.util.concurrent.TimeUnit;

/**
 * One {@code methodConfig} entry of a service config: what applies to the methods it names. Each
 * component is null when the entry does not set it, so the channel's own default applies.
 * Immutable; thread-safe.
 *
 * @param timeoutNanos the longest a call may take (>= 0), or null
 * @param waitForReady whether calls wait for a connection instead of failing fast, or null
 * @param maxRequestMessageBytes the largest message a call may send (>= 0), or null
 * @param maxResponseMessageBytes the largest message a call may receive (>= 0), or null
 * @param retryPolicy how failed calls are retried, or null; never set together with hedging
 * @param hedgingPolicy how calls are hedged, or null; never set together with retries
 */
public record MethodConfig(
    Long timeoutNanos,
    Boolean waitForReady,
    Integer maxRequestMessageBytes,
    Integer maxResponseMessageBytes,
    RetryPolicy retryPolicy,
    HedgingPolicy hedgingPolicy) {

  /** A method without a method config: the channel's and the call's own settings apply. */
  public static final MethodConfig NONE = new MethodConfig(null, null, null, null, null, null);

  /** Whether it has a retry or a hedging policy. */
  public boolean hasRetryOrHedging() {
    return retryPolicy != null || hedgingPolicy != null;
  }

  /**
   * {@code options} adjusted by this config (gRFC A6 and the service config's method fields): the
   * earlier of the two deadlines (the config's counted from now on {@code ticker}), the config's
   * wait-for-ready, and the smaller message limits.
   */
  public CallOptions applyTo(CallOptions options, Deadline.Ticker ticker) {
    CallOptions result = options;
    if (timeoutNanos != null) {
      Deadline fromConfig = Deadline.after(timeoutNanos, TimeUnit.NANOSECONDS, ticker);
      Deadline current = result.getDeadline();
      if (current == null
          || fromConfig.timeRemaining(TimeUnit.NANOSECONDS)
              < current.timeRemaining(TimeUnit.NANOSECONDS)) {
        result = result.withDeadline(fromConfig);
      }
    }
    if (waitForReady != null) {
      result = waitForReady ? result.withWaitForReady() : result.withoutWaitForReady();
    }
    if (maxRequestMessageBytes != null) {
      Integer current = result.getMaxOutboundMessageSize();
      int limit = maxRequestMessageBytes;
      result =
          result.withMaxOutboundMessageSize(current == null ? limit : Math.min(current, limit));
    }
    if (maxResponseMessageBytes != null) {
      Integer current = result.getMaxInboundMessageSize();
      int limit = maxResponseMessageBytes;
      result = result.withMaxInboundMessageSize(current == null ? limit : Math.min(current, limit));
    }
    return result;
  }
}
