package dev.tern.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Status;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.testing.FakeClock;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AdaptiveConcurrencyLimitTest {
  private final FakeClock clock = new FakeClock();
  private final AdaptiveConcurrencyLimit limit =
      new AdaptiveConcurrencyLimit(clock.getTicker(), new OverloadPushback(100L));

  /**
   * Admits {@code calls} at once, lets {@code latencyMillis} pass, and ends them all; returns how
   * many were admitted.
   */
  private int round(int calls, long latencyMillis) {
    long[] starts = new long[calls];
    int admitted = 0;
    for (int i = 0; i < calls; i++) {
      if (limit.tryAcquire()) {
        starts[admitted++] = limit.now();
      }
    }
    clock.forwardTime(latencyMillis, TimeUnit.MILLISECONDS);
    for (int i = 0; i < admitted; i++) {
      limit.release(starts[i]);
    }
    return admitted;
  }

  @Test
  void admitsUpToTheLimitAndNoMoreUntilACallEnds() {
    int admitted = 0;
    while (limit.tryAcquire()) {
      admitted++;
    }
    assertThat(admitted).isEqualTo(AdaptiveConcurrencyLimit.INITIAL_LIMIT);
    assertThat(limit.inProgress()).isEqualTo(admitted);
    assertThat(limit.tryAcquire()).isFalse();

    limit.release(limit.now());
    assertThat(limit.tryAcquire()).isTrue();
    assertThat(limit.tryAcquire()).isFalse();
  }

  @Test
  void flatLatency_theLimitGrowsToItsCeilingAndNeverShrinks() {
    int previous = limit.limit();
    for (int i = 0; i < 1_000; i++) {
      round(AdaptiveConcurrencyLimit.BATCH, 5);
      assertThat(limit.limit()).isGreaterThanOrEqualTo(previous);
      previous = limit.limit();
    }
    assertThat(limit.limit()).isEqualTo(AdaptiveConcurrencyLimit.MAX_LIMIT);
  }

  @Test
  void blockingHandler_200CallsOf50MillisAreAllAdmittedEveryRound() {
    // A handler that sleeps (a blocking call on a virtual thread): its latency does not grow with
    // how many run at once, so the limit never holds it back.
    for (int i = 0; i < 50; i++) {
      assertThat(round(200, 50)).as("round %d", i).isEqualTo(200);
    }
    assertThat(limit.limit()).isGreaterThanOrEqualTo(AdaptiveConcurrencyLimit.INITIAL_LIMIT);
  }

  @Test
  void latencyGrowingWithLoad_theLimitFallsAndRecoversWhenLoadDrops() {
    for (int i = 0; i < 20; i++) {
      round(AdaptiveConcurrencyLimit.BATCH, 2); // unloaded: 2 ms
    }
    int learnt = limit.limit();

    // Queueing: calls take ten times as long as unloaded.
    for (int i = 0; i < 60; i++) {
      round(AdaptiveConcurrencyLimit.BATCH, 20);
    }
    assertThat(limit.limit()).isLessThan(learnt / 10);

    // Much longer queueing drives it to the floor, never below.
    for (int i = 0; i < 200; i++) {
      round(AdaptiveConcurrencyLimit.BATCH, 200);
    }
    assertThat(limit.limit()).isEqualTo(AdaptiveConcurrencyLimit.MIN_LIMIT);

    int low = limit.limit();
    for (int i = 0; i < 20; i++) {
      round(AdaptiveConcurrencyLimit.MIN_LIMIT * 4, 2);
    }
    assertThat(limit.limit()).isGreaterThan(low);
  }

  @Test
  void serviceBecomingSlowerForGood_isRelearntWithinTwoWindows() {
    for (int i = 0; i < 10; i++) {
      round(AdaptiveConcurrencyLimit.BATCH, 1);
    }
    // Every call now takes 10 ms whatever the load (a slower release): at first that looks like
    // queueing and the limit falls to its floor ...
    for (int i = 0; i < 100; i++) {
      round(AdaptiveConcurrencyLimit.BATCH, 10);
    }
    assertThat(limit.limit()).isEqualTo(AdaptiveConcurrencyLimit.MIN_LIMIT);
    // ... then the 1 ms minimum leaves the window and 10 ms becomes the unloaded latency.
    for (int i = 0; i < 2 * AdaptiveConcurrencyLimit.WINDOW_BATCHES * 4; i++) {
      round(AdaptiveConcurrencyLimit.MIN_LIMIT, 10);
    }
    assertThat(limit.limit()).isGreaterThan(AdaptiveConcurrencyLimit.MIN_LIMIT * 10);
  }

  @Test
  void refusal_isResourceExhaustedWithThePushback() {
    assertThat(limit.exhausted().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(limit.exhausted().getDescription())
        .isEqualTo(
            "Server overloaded: its calls in progress reached its adaptive concurrency limit"
                + " (adaptiveConcurrencyLimit); try again later");
    assertThat(limit.exhaustedTrailers().get(GrpcHeaders.RETRY_PUSHBACK_MS)).isEqualTo("100");
  }
}
