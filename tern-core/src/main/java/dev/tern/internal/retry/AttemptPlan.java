package dev.tern.internal.retry;

import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.internal.client.BackendThrottle;
import dev.tern.internal.config.HedgingPolicy;
import dev.tern.internal.config.RetryPolicy;
import dev.tern.internal.wire.GrpcHeaders;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;

/**
 * The decisions of one call's retry or hedging policy (gRFC A6): how many attempts may be made,
 * whether a failed attempt is followed by another and after what delay (exponential back-off with
 * full jitter, or the server's {@code grpc-retry-pushback-ms}), and what the channel's {@link
 * RetryThrottle} says. An attempt the channel's adaptive throttling did not send ({@link
 * BackendThrottle#notSent}) ends the plan: no retry or further hedge follows it, and it takes no
 * retry token. {@link RetryingClientStream} does the sending.
 *
 * <p>Not thread-safe: used under its stream's lock (except {@link #callSucceeded}, which only
 * touches the thread-safe throttle).
 */
public final class AttemptPlan {
  /** What follows a failed attempt. */
  enum Next {
    /** Send it again now, not counted as an attempt (it never reached the server's application). */
    TRANSPARENT,
    /** Retry after {@link #delayNanos()}. */
    RETRY_LATER,
    /** Send the next hedge now. */
    RETRY_NOW,
    /** Send the next hedge after {@link #delayNanos()} (the server's pushback). */
    HEDGE_LATER,
    /** Other hedges are in flight or due: wait for them. */
    WAIT,
    /** No more attempts: the call ends with this attempt's status. */
    GIVE_UP
  }

  private static final long NO_PUSHBACK = -1;
  private static final long STOP_PUSHBACK = -2;

  private final RetryPolicy retry;
  private final HedgingPolicy hedging;
  private final int maxAttempts;
  private final RetryThrottle throttle;
  private final ScheduledExecutorService scheduler;
  private final DoubleSupplier random;

  private int attemptsStarted;
  private boolean stopped;
  private long backoffNanos;
  private long delayNanos;

  private AttemptPlan(
      RetryPolicy retry,
      HedgingPolicy hedging,
      int maxAttempts,
      RetryThrottle throttle,
      ScheduledExecutorService scheduler,
      DoubleSupplier random) {
    this.retry = retry;
    this.hedging = hedging;
    this.maxAttempts = maxAttempts;
    this.throttle = throttle;
    this.scheduler = scheduler;
    this.random = random;
    this.backoffNanos = retry != null ? retry.initialBackoffNanos() : 0;
  }

  /**
   * A retry plan.
   *
   * @param maxAttemptsCap the channel's limit ({@code maxRetryAttempts}); the policy's larger
   *     {@code maxAttempts} is cut to it
   * @param throttle the channel's throttle, or null
   * @param random uniform doubles in [0, 1) for the back-off's jitter
   */
  public static AttemptPlan retry(
      RetryPolicy policy,
      int maxAttemptsCap,
      RetryThrottle throttle,
      ScheduledExecutorService scheduler,
      DoubleSupplier random) {
    return new AttemptPlan(
        policy, null, Math.min(policy.maxAttempts(), maxAttemptsCap), throttle, scheduler, random);
  }

  /** A hedging plan; {@code maxAttemptsCap} is the channel's {@code maxHedgedAttempts}. */
  public static AttemptPlan hedging(
      HedgingPolicy policy,
      int maxAttemptsCap,
      RetryThrottle throttle,
      ScheduledExecutorService scheduler) {
    return new AttemptPlan(
        null, policy, Math.min(policy.maxAttempts(), maxAttemptsCap), throttle, scheduler, null);
  }

  boolean isHedging() {
    return hedging != null;
  }

  long hedgingDelayNanos() {
    return hedging.hedgingDelayNanos();
  }

  ScheduledExecutorService scheduler() {
    return scheduler;
  }

  /** An attempt that counts toward {@code maxAttempts} was sent. */
  void attemptStarted() {
    attemptsStarted++;
  }

  int attemptsStarted() {
    return attemptsStarted;
  }

  /** No attempt may follow (the call committed, or was cancelled). */
  void stop() {
    stopped = true;
  }

  /** Whether another hedge may be sent now. */
  boolean mayStartAnother() {
    return !stopped
        && attemptsStarted < maxAttempts
        && (throttle == null || throttle.allowsRetry());
  }

  /** The delay chosen by the last {@link #afterFailure} that asked to wait. */
  long delayNanos() {
    return delayNanos;
  }

  /** The call ended OK: the throttle gains. */
  void callSucceeded() {
    if (throttle != null) {
      throttle.onSuccess();
    }
  }

  /**
   * What follows an attempt that ended with {@code status} (and was not committed).
   *
   * @param othersPending whether other attempts are in flight or one is scheduled
   */
  Next afterFailure(Status status, Metadata trailers, boolean othersPending) {
    if (BackendThrottle.notSent(status)) {
      // The client's adaptive throttling kept it from its backend: another attempt now would only
      // add to the load it is shedding, so none follows. No retry token either: the throttle
      // reacted to the backend's refusals, which took theirs when they came.
      stopped = true;
      return retry == null && othersPending ? Next.WAIT : Next.GIVE_UP;
    }
    long pushback = pushbackMillis(trailers);
    Status.Code code = status.getCode();
    return retry != null
        ? afterRetryFailure(code, pushback)
        : afterHedgeFailure(code, pushback, othersPending);
  }

  private Next afterRetryFailure(Status.Code code, long pushback) {
    boolean retryable = code != Status.Code.OK && retry.retryableStatusCodes().contains(code);
    countFailure(retryable, pushback);
    if (stopped
        || !retryable
        || pushback == STOP_PUSHBACK
        || attemptsStarted >= maxAttempts
        || (throttle != null && !throttle.allowsRetry())) {
      return Next.GIVE_UP;
    }
    if (pushback >= 0) {
      delayNanos = TimeUnit.MILLISECONDS.toNanos(pushback);
      backoffNanos = retry.initialBackoffNanos();
    } else {
      delayNanos = (long) (random.getAsDouble() * backoffNanos);
      backoffNanos =
          (long)
              Math.min((double) retry.maxBackoffNanos(), backoffNanos * retry.backoffMultiplier());
    }
    return Next.RETRY_LATER;
  }

  private Next afterHedgeFailure(Status.Code code, long pushback, boolean othersPending) {
    Set<Status.Code> nonFatal = hedging.nonFatalStatusCodes();
    boolean retryable = code != Status.Code.OK && nonFatal.contains(code);
    countFailure(retryable, pushback);
    if (!retryable) {
      return Next.GIVE_UP;
    }
    if (pushback == STOP_PUSHBACK) {
      stopped = true;
    }
    if (mayStartAnother()) {
      if (pushback >= 0) {
        delayNanos = TimeUnit.MILLISECONDS.toNanos(pushback);
        return Next.HEDGE_LATER;
      }
      return Next.RETRY_NOW;
    }
    return othersPending ? Next.WAIT : Next.GIVE_UP;
  }

  private void countFailure(boolean retryable, long pushback) {
    if (throttle != null && (retryable || pushback == STOP_PUSHBACK)) {
      throttle.onQualifiedFailure();
    }
  }

  /**
   * The server's {@code grpc-retry-pushback-ms}: {@link #NO_PUSHBACK} if absent, {@link
   * #STOP_PUSHBACK} if negative or malformed (the server asks for no retry), else the delay.
   */
  static long pushbackMillis(Metadata trailers) {
    String value = trailers.get(GrpcHeaders.RETRY_PUSHBACK_MS);
    if (value == null) {
      return NO_PUSHBACK;
    }
    boolean wellFormed =
        !value.isEmpty()
            && value.length() <= 10
            && value.chars().allMatch(c -> c >= '0' && c <= '9')
            && (value.length() == 1 || value.charAt(0) != '0');
    if (!wellFormed) {
      return STOP_PUSHBACK; // negative, malformed, or not a 32-bit value
    }
    long millis = Long.parseLong(value);
    return millis > Integer.MAX_VALUE ? STOP_PUSHBACK : millis;
  }

  @Override
  public String toString() {
    return (retry != null ? "retry" : "hedging")
        + "{attempts="
        + attemptsStarted
        + "/"
        + maxAttempts
        + (stopped ? ", stopped" : "")
        + "}";
  }
}
