package dev.tern.internal.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.spi.ClientStreamListener.RpcProgress;
import dev.tern.testing.FakeClock;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link BackendThrottle}: when a backend's history makes the client refuse calls, what counts as a
 * refusal, and how the two-minute window forgets. A fake clock and a random source that returns
 * what the test sets (and counts its draws).
 */
class BackendThrottleTest {
  private final FakeClock clock = new FakeClock();
  private final FakeRandom random = new FakeRandom();
  private final BackendThrottle throttle =
      new AdaptiveThrottling(
              2.0,
              AdaptiveThrottling.DEFAULT_WINDOW_NANOS,
              AdaptiveThrottling.DEFAULT_BUCKETS,
              clock.getTicker(),
              random)
          .newBackend("[[/10.0.0.1:443]]");

  @Test
  void aBackendWithNoHistoryGetsEveryCallWithoutDrawingTheDice() {
    for (int i = 0; i < 100; i++) {
      assertThat(throttle.admit()).isNull();
    }
    assertThat(random.draws).isZero();
  }

  @Test
  void callsInFlightNeverThrottle_onlyTheirEndsCount() {
    // A burst of 50 admitted calls, none ended yet: nothing is known against the backend.
    for (int i = 0; i < 50; i++) {
      assertThat(throttle.admit()).isNull();
    }
    random.next = 0.0;
    assertThat(throttle.admit()).isNull();
    assertThat(random.draws).isZero();
  }

  @Test
  void aBackendThatAcceptsMostCallsIsNeverThrottled() {
    // 10 refused, 10 accepted: requests 20 <= 2 * accepts, probability 0.
    end(10, Status.RESOURCE_EXHAUSTED);
    end(10, Status.OK);
    random.next = 0.0;
    assertThat(throttle.admit()).isNull();
  }

  @Test
  void refusesWithTheProbabilityOfTheFormula_andSaysWhy() {
    // 8 refused, 1 accepted: p = (9 - 2 * 1) / (9 + 1) = 0.7.
    end(8, Status.RESOURCE_EXHAUSTED);
    end(1, Status.OK);

    random.next = 0.7; // not below p: sent
    assertThat(throttle.admit()).isNull();
    random.next = 0.69;
    Status refused = throttle.admit();

    assertThat(refused.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(refused.getDescription())
        .isEqualTo(
            "client-side throttling: of the last 9 calls to [[/10.0.0.1:443]] (within 120 s), it"
                + " accepted 1 and rejected the rest, or this client did not send them; so this"
                + " call was not sent either (adaptiveThrottling k=2.0)");
    assertThat(BackendThrottle.notSent(refused)).isTrue();
    assertThat(BackendThrottle.notSent(Status.RESOURCE_EXHAUSTED)).isFalse();
  }

  @Test
  void aRefusedCallCountsAsARequest_soTheClientBacksOffFurther() {
    end(8, Status.RESOURCE_EXHAUSTED);
    end(1, Status.OK);
    random.next = 0.0;
    assertThat(throttle.admit()).isNotNull(); // now 10 requests, 1 accept

    // p = (10 - 2) / 11
    random.next = 8.0 / 11 - 1e-9;
    assertThat(throttle.admit()).isNotNull();
    // 11 requests: p = 9 / 12 = 0.75
    random.next = 0.75;
    assertThat(throttle.admit()).isNull();
  }

  @Test
  void theWindowForgetsAfterTwoMinutes() {
    end(20, Status.RESOURCE_EXHAUSTED);
    random.next = 0.0;
    assertThat(throttle.admit()).isNotNull();

    clock.forwardTime(115, TimeUnit.SECONDS);
    random.next = 0.999; // above p = 21/22: sent, which counts only when it ends
    int draws = random.draws;
    assertThat(throttle.admit()).isNull();
    assertThat(random.draws).as("still within the window: the dice are drawn").isEqualTo(draws + 1);

    clock.forwardTime(5, TimeUnit.SECONDS);
    random.next = 0.0;
    assertThat(throttle.admit()).isNull();
    assertThat(random.draws).as("no history left: no draw").isEqualTo(draws + 1);
  }

  @Test
  void theWindowSlidesABucketAtATime() {
    end(20, Status.RESOURCE_EXHAUSTED);
    clock.forwardTime(60, TimeUnit.SECONDS);
    end(20, Status.OK); // 40 requests, 20 accepts: p = 0

    random.next = 0.0;
    assertThat(throttle.admit()).isNull();
    clock.forwardTime(60, TimeUnit.SECONDS); // the refusals leave; the accepts stay
    assertThat(throttle.admit()).isNull();
    end(30, Status.RESOURCE_EXHAUSTED); // 50 requests, 20 accepts: p = 10/51
    random.next = 10.0 / 51 - 1e-9;
    assertThat(throttle.admit()).isNotNull();
    clock.forwardTime(60, TimeUnit.SECONDS); // the accepts leave too
    random.next = 0.5;
    assertThat(throttle.admit()).isNotNull();
  }

  @Test
  void whatCountsAsARejection() {
    Metadata none = new Metadata();
    Metadata pushback = new Metadata();
    pushback.put(GrpcHeaders.RETRY_PUSHBACK_MS, "100");

    assertThat(BackendThrottle.isRejection(Status.RESOURCE_EXHAUSTED, none)).isTrue();
    assertThat(BackendThrottle.isRejection(Status.UNAVAILABLE, pushback)).isTrue();
    assertThat(BackendThrottle.isRejection(Status.UNAVAILABLE, none))
        .as("a bare UNAVAILABLE, as a failed connection reports")
        .isFalse();
    assertThat(BackendThrottle.isRejection(Status.INTERNAL, pushback)).isFalse();
    assertThat(BackendThrottle.isRejection(Status.DEADLINE_EXCEEDED, none)).isFalse();
    assertThat(BackendThrottle.isRejection(Status.OK, none)).isFalse();
  }

  @Test
  void unavailableWithoutPushbackCountsAsAccepted() {
    end(10, Status.UNAVAILABLE);
    end(10, Status.RESOURCE_EXHAUSTED);
    random.next = 0.0;
    assertThat(throttle.admit()).isNull();
    assertThat(random.draws).isZero();
  }

  @Test
  void streamsRefusedNeverSentOrCancelledByTheClientDoNotCount() {
    for (int i = 0; i < 10; i++) {
      throttle.onClosed(Status.RESOURCE_EXHAUSTED, RpcProgress.REFUSED, new Metadata(), false);
      throttle.onClosed(Status.RESOURCE_EXHAUSTED, RpcProgress.DROPPED, new Metadata(), false);
      throttle.onClosed(Status.RESOURCE_EXHAUSTED, RpcProgress.PROCESSED, new Metadata(), true);
    }
    random.next = 0.0;
    assertThat(throttle.admit()).isNull();
    assertThat(random.draws).as("nothing counted").isZero();
  }

  @Test
  void theProbabilityFormula() {
    assertThat(BackendThrottle.rejectionProbability(0, 0, 2)).isZero();
    assertThat(BackendThrottle.rejectionProbability(10, 5, 2)).isZero();
    assertThat(BackendThrottle.rejectionProbability(10, 0, 2)).isEqualTo(10.0 / 11);
    assertThat(BackendThrottle.rejectionProbability(100, 10, 2)).isEqualTo(80.0 / 101);
    assertThat(BackendThrottle.rejectionProbability(100, 10, 10)).isZero();
  }

  @Test
  void badSettingsAreRefusedNamingTheArgument() {
    for (double k : new double[] {0.99, 0, -2, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> AdaptiveThrottling.checkK(k))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("k must be a finite number >= 1, was " + k);
    }
    assertThat(AdaptiveThrottling.checkK(1)).isEqualTo(1);
    assertThatThrownBy(() -> new AdaptiveThrottling(2, 10, 24, clock.getTicker(), random))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("windowNanos must be >= buckets >= 1, were 10 and 24");
  }

  private void end(int calls, Status status) {
    for (int i = 0; i < calls; i++) {
      throttle.onClosed(status, RpcProgress.PROCESSED, new Metadata(), false);
    }
  }

  /** Returns {@link #next} and counts its draws. */
  private static final class FakeRandom implements java.util.function.DoubleSupplier {
    double next = 0.999;
    int draws;

    @Override
    public double getAsDouble() {
      draws++;
      return next;
    }
  }
}
