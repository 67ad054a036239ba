package dev.tern.internal.retry;

import dev.tern.internal.config.RetryThrottlingPolicy;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A channel's retry throttle (gRFC A6, {@code retryThrottling}): a token count that starts at
 * {@code maxTokens}, loses one token for each attempt that fails in a way a policy would retry (or
 * that the server pushes back on), and gains {@code tokenRatio} for each call that succeeds.
 * Retries and hedges are sent only while the count is above {@code maxTokens / 2}.
 *
 * <p>Counts in thousandths of a token, as the ratio has three decimals.
 *
 * <p>Thread-safe and lock-free.
 */
public final class RetryThrottle {
  private static final int SCALE = 1000;

  private final RetryThrottlingPolicy policy;
  private final int max;
  private final int threshold;
  private final int gain;
  private final AtomicInteger tokens;

  public RetryThrottle(RetryThrottlingPolicy policy) {
    this.policy = policy;
    this.max = policy.maxTokens() * SCALE;
    this.threshold = max / 2;
    this.gain = (int) Math.round(policy.tokenRatio() * SCALE);
    this.tokens = new AtomicInteger(max);
  }

  /**
   * The throttle for {@code policy} (null: none): {@code previous} if it enforces the same policy,
   * so a new service config with the same {@code retryThrottling} keeps the channel's tokens.
   */
  public static RetryThrottle forPolicy(RetryThrottlingPolicy policy, RetryThrottle previous) {
    if (policy == null) {
      return null;
    }
    return previous != null && previous.policy.equals(policy)
        ? previous
        : new RetryThrottle(policy);
  }

  /** The policy this throttle enforces. */
  public RetryThrottlingPolicy policy() {
    return policy;
  }

  /** An attempt failed with a retryable or non-fatal status, or the server pushed back. */
  void onQualifiedFailure() {
    tokens.updateAndGet(current -> Math.max(0, current - SCALE));
  }

  /** A call succeeded. */
  void onSuccess() {
    tokens.updateAndGet(current -> Math.min(max, current + gain));
  }

  /** Whether a retry or hedge may be sent now. */
  boolean allowsRetry() {
    return tokens.get() > threshold;
  }

  /** The token count, for tests and messages. */
  double tokens() {
    return tokens.get() / (double) SCALE;
  }

  @Override
  public String toString() {
    return "RetryThrottle{tokens=" + tokens() + ", policy=" + policy + "}";
  }
}
