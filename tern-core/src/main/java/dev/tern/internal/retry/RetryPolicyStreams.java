package dev.tern.internal.retry;

import dev.tern.Deadline;
import dev.tern.LoadBalancer.PickSubchannelArgs;
import dev.tern.internal.client.ClientStreamProvider;
import dev.tern.internal.config.MethodConfig;
import dev.tern.spi.ClientStream;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.DoubleSupplier;

/**
 * The retry layer of a channel's calls: a call whose method config has a retry or hedging policy
 * gets a {@link RetryingClientStream} (gRFC A6) whose attempts' streams come from the layer below
 * (the balancer's picks); any other call gets the layer below's stream directly. One per service
 * config, as the retry throttle belongs to it.
 *
 * <p>Thread-safe: immutable; the throttle and the buffer are thread-safe.
 */
public final class RetryPolicyStreams implements ClientStreamProvider {
  private final ClientStreamProvider attempts;
  private final RetryThrottle throttle;
  private final int maxRetryAttempts;
  private final int maxHedgedAttempts;
  private final ScheduledExecutorService scheduler;
  private final DoubleSupplier random;
  private final RetryBuffer retryBuffer;

  /**
   * @param attempts where each attempt's stream comes from
   * @param throttle the service config's retry throttle, or null
   * @param maxRetryAttempts the channel's cap on a retry policy's {@code maxAttempts}
   * @param maxHedgedAttempts the channel's cap on a hedging policy's {@code maxAttempts}
   * @param random uniform doubles in [0, 1) for the back-off's jitter
   * @param retryBuffer the channel's bytes for replaying requests, shared by all its calls
   */
  public RetryPolicyStreams(
      ClientStreamProvider attempts,
      RetryThrottle throttle,
      int maxRetryAttempts,
      int maxHedgedAttempts,
      ScheduledExecutorService scheduler,
      DoubleSupplier random,
      RetryBuffer retryBuffer) {
    this.attempts = attempts;
    this.throttle = throttle;
    this.maxRetryAttempts = maxRetryAttempts;
    this.maxHedgedAttempts = maxHedgedAttempts;
    this.scheduler = scheduler;
    this.random = random;
    this.retryBuffer = retryBuffer;
  }

  /** The throttle of the service config it serves, or null. */
  public RetryThrottle throttle() {
    return throttle;
  }

  @Override
  public ClientStream newStream(
      PickSubchannelArgs args, MethodConfig methodConfig, Deadline deadline, Executor appExecutor) {
    AttemptPlan plan;
    if (methodConfig.retryPolicy() != null) {
      plan =
          AttemptPlan.retry(
              methodConfig.retryPolicy(), maxRetryAttempts, throttle, scheduler, random);
    } else if (methodConfig.hedgingPolicy() != null) {
      plan =
          AttemptPlan.hedging(methodConfig.hedgingPolicy(), maxHedgedAttempts, throttle, scheduler);
    } else {
      return attempts.newStream(args, methodConfig, deadline, appExecutor);
    }
    return new RetryingClientStream(
        args,
        deadline,
        attempt -> attempts.newStream(attempt, MethodConfig.NONE, null, appExecutor),
        plan,
        retryBuffer);
  }
}
