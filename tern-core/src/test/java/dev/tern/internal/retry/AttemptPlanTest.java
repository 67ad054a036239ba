package dev.tern.internal.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.internal.client.AdaptiveThrottling;
import dev.tern.internal.client.BackendThrottle;
import dev.tern.internal.config.HedgingPolicy;
import dev.tern.internal.config.RetryPolicy;
import dev.tern.internal.config.RetryThrottlingPolicy;
import dev.tern.internal.retry.AttemptPlan.Next;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.spi.ClientStreamListener.RpcProgress;
import dev.tern.testing.FakeClock;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link AttemptPlan}'s decisions, one row per case of gRFC A6 a user would recognise: which status
 * codes are retried or hedged on, when attempts run out, what the throttle and the server's {@code
 * grpc-retry-pushback-ms} change, and how long the back-off waits. No streams, no clock.
 *
 * <p>The retry policy of every retry row: maxAttempts 5, initialBackoff 100 ms, maxBackoff 300 ms,
 * backoffMultiplier 2, retryableStatusCodes [UNAVAILABLE]; the jitter draws 0.5, so the n-th retry
 * waits half of min(300 ms, 100 ms * 2^(n-1)). The hedging policy: maxAttempts 3, hedgingDelay 100
 * ms, nonFatalStatusCodes [UNAVAILABLE]. The throttle: maxTokens 10, tokenRatio 0.1 (retries stop
 * once it holds 5 tokens or fewer).
 */
class AttemptPlanTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final RetryPolicy RETRY =
      new RetryPolicy(5, 100 * MS, 300 * MS, 2.0, EnumSet.of(Status.Code.UNAVAILABLE));
  private static final HedgingPolicy HEDGING =
      new HedgingPolicy(3, 100 * MS, EnumSet.of(Status.Code.UNAVAILABLE));

  /**
   * One case.
   *
   * @param hedging a hedging plan (else a retry plan)
   * @param cap the channel's maxRetryAttempts / maxHedgedAttempts
   * @param started attempts sent before this failure (the failed one included)
   * @param earlierRetries retries that already backed off before this failure (retry rows)
   * @param code the failed attempt's status
   * @param pushback the failure's grpc-retry-pushback-ms, or null
   * @param throttleFailures qualified failures the throttle counted before this one, or -1 for no
   *     throttle
   * @param othersPending whether other attempts are in flight or due (hedging)
   * @param next what the plan must decide
   * @param delayMillis the delay it must choose with RETRY_LATER or HEDGE_LATER
   */
  record Row(
      String name,
      boolean hedging,
      int cap,
      int started,
      int earlierRetries,
      Status.Code code,
      String pushback,
      int throttleFailures,
      boolean othersPending,
      Next next,
      long delayMillis) {
    @Override
    public String toString() {
      return name;
    }
  }

  /**
   * The table: plan kind, channel cap, attempts started, earlier retries, status code, pushback
   * ("-": none), throttle failures before ("-": no throttle), others pending, decision, delay in ms
   * ("-": none), and the case.
   */
  private static final String TABLE =
      """
      retry | 5 | 1 | 0 | UNAVAILABLE | -          | - | no  | RETRY_LATER | 50   | a code in retryableStatusCodes is retried after a jittered back-off
      retry | 5 | 1 | 0 | INTERNAL    | -          | - | no  | GIVE_UP     | -    | a code not in retryableStatusCodes ends the call
      retry | 5 | 1 | 0 | OK          | -          | - | no  | GIVE_UP     | -    | OK is never retried
      retry | 5 | 2 | 1 | UNAVAILABLE | -          | - | no  | RETRY_LATER | 100  | the second retry may wait twice as long (backoffMultiplier 2)
      retry | 5 | 4 | 3 | UNAVAILABLE | -          | - | no  | RETRY_LATER | 150  | the back-off stops growing at maxBackoff
      retry | 5 | 5 | 4 | UNAVAILABLE | -          | - | no  | GIVE_UP     | -    | the policy's last attempt failing ends the call (maxAttempts 5)
      retry | 2 | 2 | 1 | UNAVAILABLE | -          | - | no  | GIVE_UP     | -    | the channel's maxRetryAttempts (2) cuts the policy's maxAttempts
      retry | 5 | 1 | 0 | UNAVAILABLE | 2000       | - | no  | RETRY_LATER | 2000 | pushback 2000: retried after exactly 2 s, no jitter
      retry | 5 | 1 | 0 | UNAVAILABLE | 0          | - | no  | RETRY_LATER | 0    | pushback 0: retried at once
      retry | 5 | 1 | 0 | UNAVAILABLE | -1         | - | no  | GIVE_UP     | -    | negative pushback: the server asks for no retry
      retry | 5 | 1 | 0 | UNAVAILABLE | soon       | - | no  | GIVE_UP     | -    | malformed pushback (not a number): no retry
      retry | 5 | 1 | 0 | UNAVAILABLE | 0100       | - | no  | GIVE_UP     | -    | malformed pushback (leading zero): no retry
      retry | 5 | 1 | 0 | UNAVAILABLE | 4294967296 | - | no  | GIVE_UP     | -    | pushback beyond a 32-bit int: no retry
      retry | 5 | 1 | 0 | INTERNAL    | 10         | - | no  | GIVE_UP     | -    | pushback does not make a non-retryable code retried
      retry | 5 | 1 | 0 | UNAVAILABLE | -          | 3 | no  | RETRY_LATER | 50   | throttle still above half full after this failure: retried
      retry | 5 | 1 | 0 | UNAVAILABLE | -          | 4 | no  | GIVE_UP     | -    | throttle down to half full by this failure: no retry
      hedge | 5 | 1 | 0 | UNAVAILABLE | -          | - | no  | RETRY_NOW   | -    | a non-fatal code with hedges left: the next hedge goes now
      hedge | 5 | 1 | 0 | INTERNAL    | -          | - | yes | GIVE_UP     | -    | a fatal code ends the call even with hedges in flight
      hedge | 5 | 3 | 0 | UNAVAILABLE | -          | - | yes | WAIT        | -    | every hedge sent, others in flight: wait for them
      hedge | 5 | 3 | 0 | UNAVAILABLE | -          | - | no  | GIVE_UP     | -    | every hedge sent, none in flight: the call ends
      hedge | 5 | 1 | 0 | UNAVAILABLE | 500        | - | no  | HEDGE_LATER | 500  | hedging pushback 500: the next hedge after 500 ms
      hedge | 5 | 1 | 0 | UNAVAILABLE | -1         | - | yes | WAIT        | -    | negative hedging pushback: no more hedges, wait for those in flight
      hedge | 1 | 1 | 0 | UNAVAILABLE | -          | - | no  | GIVE_UP     | -    | the channel's maxHedgedAttempts (1) allows no second hedge
      hedge | 5 | 1 | 0 | UNAVAILABLE | -          | 4 | yes | WAIT        | -    | throttled hedging: no new hedge, wait for those in flight
      """;

  static Stream<Row> rows() {
    return TABLE
        .lines()
        .map(
            line -> {
              String[] cell = line.split("\\|");
              for (int k = 0; k < cell.length; k++) {
                cell[k] = cell[k].strip();
              }
              return new Row(
                  cell[10],
                  cell[0].equals("hedge"),
                  Integer.parseInt(cell[1]),
                  Integer.parseInt(cell[2]),
                  Integer.parseInt(cell[3]),
                  Status.Code.valueOf(cell[4]),
                  cell[5].equals("-") ? null : cell[5],
                  cell[6].equals("-") ? -1 : Integer.parseInt(cell[6]),
                  cell[7].equals("yes"),
                  Next.valueOf(cell[8]),
                  cell[9].equals("-") ? 0 : Long.parseLong(cell[9]));
            });
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void decides(Row row) {
    RetryThrottle throttle = null;
    if (row.throttleFailures() >= 0) {
      throttle = new RetryThrottle(new RetryThrottlingPolicy(10, 0.1));
      for (int i = 0; i < row.throttleFailures(); i++) {
        throttle.onQualifiedFailure();
      }
    }
    AttemptPlan plan =
        row.hedging()
            ? AttemptPlan.hedging(HEDGING, row.cap(), throttle, null)
            : AttemptPlan.retry(RETRY, row.cap(), throttle, null, () -> 0.5);
    for (int i = 0; i < row.started(); i++) {
      plan.attemptStarted();
      if (i < row.earlierRetries()) {
        assertThat(plan.afterFailure(Status.UNAVAILABLE, new Metadata(), false))
            .isEqualTo(Next.RETRY_LATER);
      }
    }
    Metadata trailers = new Metadata();
    if (row.pushback() != null) {
      trailers.put(GrpcHeaders.RETRY_PUSHBACK_MS, row.pushback());
    }

    Next next = plan.afterFailure(Status.fromCode(row.code()), trailers, row.othersPending());

    assertThat(next).isEqualTo(row.next());
    if (next == Next.RETRY_LATER || next == Next.HEDGE_LATER) {
      assertThat(plan.delayNanos()).isEqualTo(row.delayMillis() * MS);
    }
  }

  /** A status like the one a backend throttle gives a call it did not send. */
  private static Status notSent() {
    AdaptiveThrottling throttling =
        new AdaptiveThrottling(
            2, AdaptiveThrottling.DEFAULT_WINDOW_NANOS, 24, new FakeClock().getTicker(), () -> 0.0);
    BackendThrottle backend = throttling.newBackend("backend");
    backend.onClosed(Status.RESOURCE_EXHAUSTED, RpcProgress.PROCESSED, new Metadata(), false);
    Status status = backend.admit();
    assertThat(BackendThrottle.notSent(status)).isTrue();
    return status;
  }

  @Test
  void anAttemptTheClientThrottledIsNotRetried_andTakesNoRetryToken() {
    RetryThrottle throttle = new RetryThrottle(new RetryThrottlingPolicy(10, 0.1));
    RetryPolicy policy =
        new RetryPolicy(
            5,
            100 * MS,
            300 * MS,
            2.0,
            EnumSet.of(Status.Code.UNAVAILABLE, Status.Code.RESOURCE_EXHAUSTED));
    AttemptPlan plan = AttemptPlan.retry(policy, 5, throttle, null, () -> 0.5);
    plan.attemptStarted();

    assertThat(plan.afterFailure(notSent(), new Metadata(), false)).isEqualTo(Next.GIVE_UP);
    assertThat(throttle.tokens()).isEqualTo(10.0);
    assertThat(plan.mayStartAnother()).isFalse();
  }

  @Test
  void aHedgeTheClientThrottledStopsTheHedging_andWaitsForThoseInFlight() {
    HedgingPolicy policy =
        new HedgingPolicy(
            3, 100 * MS, EnumSet.of(Status.Code.UNAVAILABLE, Status.Code.RESOURCE_EXHAUSTED));
    AttemptPlan inFlight = AttemptPlan.hedging(policy, 5, null, null);
    inFlight.attemptStarted();
    inFlight.attemptStarted();
    assertThat(inFlight.afterFailure(notSent(), new Metadata(), true)).isEqualTo(Next.WAIT);
    assertThat(inFlight.mayStartAnother()).isFalse();

    AttemptPlan alone = AttemptPlan.hedging(policy, 5, null, null);
    alone.attemptStarted();
    assertThat(alone.afterFailure(notSent(), new Metadata(), false)).isEqualTo(Next.GIVE_UP);
  }
}
