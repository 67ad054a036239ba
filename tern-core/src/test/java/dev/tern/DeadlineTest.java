package dev.tern;

import static java.util.concurrent.TimeUnit.DAYS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.testing.FakeClock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DeadlineTest {
  private final FakeClock clock = new FakeClock();
  private final Deadline.Ticker ticker = clock.getTicker();
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

  @AfterEach
  void shutDownScheduler() {
    scheduler.shutdownNow();
  }

  @Test
  void expiresExactlyWhenTheDurationHasElapsed() {
    Deadline deadline = Deadline.after(10, SECONDS, ticker);

    clock.forwardNanos(SECONDS.toNanos(10) - 1);
    assertThat(deadline.isExpired()).isFalse();

    clock.forwardTime(1, NANOSECONDS);
    assertThat(deadline.isExpired()).isTrue();
  }

  @Test
  void zeroAndNegativeDurationsAreAlreadyExpired() {
    assertThat(Deadline.after(0, SECONDS, ticker).isExpired()).isTrue();
    assertThat(Deadline.after(-5, SECONDS, ticker).isExpired()).isTrue();
  }

  @Test
  void timeRemainingCountsDownAndGoesNegative() {
    Deadline deadline = Deadline.after(3, SECONDS, ticker);
    assertThat(deadline.timeRemaining(MILLISECONDS)).isEqualTo(3000);

    clock.forwardTime(1250, MILLISECONDS);
    assertThat(deadline.timeRemaining(MILLISECONDS)).isEqualTo(1750);
    assertThat(deadline.timeRemaining(SECONDS)).isEqualTo(1);

    clock.forwardTime(5, SECONDS);
    assertThat(deadline.timeRemaining(MILLISECONDS)).isEqualTo(-3250);
    assertThat(deadline.isExpired()).isTrue();
  }

  @Test
  void staysExpiredOnceExpired() {
    // A misbehaving ticker: the fake clock's time, less what the test winds it back by.
    AtomicLong wound = new AtomicLong();
    Deadline.Ticker goesBack =
        new Deadline.Ticker() {
          @Override
          public long nanoTime() {
            return clock.currentTimeNanos() - wound.get();
          }
        };
    Deadline deadline = Deadline.after(1, SECONDS, goesBack);
    clock.forwardTime(2, SECONDS);
    assertThat(deadline.isExpired()).isTrue();
    wound.set(SECONDS.toNanos(2)); // the ticker going back does not resurrect it
    assertThat(goesBack.nanoTime()).isZero();
    assertThat(deadline.isExpired()).isTrue();
  }

  @Test
  void minimumReturnsTheEarlierDeadline() {
    Deadline early = Deadline.after(1, SECONDS, ticker);
    Deadline late = Deadline.after(2, SECONDS, ticker);

    assertThat(early.minimum(late)).isSameAs(early);
    assertThat(late.minimum(early)).isSameAs(early);
    assertThat(early.isBefore(late)).isTrue();
    assertThat(late.isBefore(early)).isFalse();
    assertThat(early.isBefore(early)).isFalse();
  }

  @Test
  void sortsByExpiry() {
    Deadline a = Deadline.after(3, SECONDS, ticker);
    Deadline b = Deadline.after(-1, SECONDS, ticker);
    Deadline c = Deadline.after(1, SECONDS, ticker);
    List<Deadline> list = new ArrayList<>(List.of(a, b, c));

    Collections.sort(list);

    assertThat(list).containsExactly(b, c, a);
  }

  @Test
  void equalDeadlinesCompareEqual() {
    Deadline a = Deadline.after(1, SECONDS, ticker);
    Deadline b = Deadline.after(1000, MILLISECONDS, ticker);

    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(a.compareTo(b)).isZero();
    assertThat(a).isNotEqualTo(Deadline.after(1, SECONDS, new FakeClock().getTicker()));
  }

  @Test
  void orderingSurvivesTickerWrapAround() {
    FakeClock nearMax = new FakeClock(Long.MAX_VALUE - 1_000);
    Deadline early = Deadline.after(500, NANOSECONDS, nearMax.getTicker());
    // raw value wraps to negative
    Deadline late = Deadline.after(5, SECONDS, nearMax.getTicker());

    assertThat(early.isBefore(late)).isTrue();
    nearMax.forwardTime(2, SECONDS);
    assertThat(early.isExpired()).isTrue();
    assertThat(late.isExpired()).isFalse();
    assertThat(late.timeRemaining(SECONDS)).isEqualTo(3);
  }

  @Test
  void offsetMovesTheDeadline() {
    Deadline deadline = Deadline.after(10, SECONDS, ticker);

    Deadline later = deadline.offset(5, SECONDS);
    Deadline earlier = deadline.offset(-15, SECONDS);

    assertThat(later.timeRemaining(SECONDS)).isEqualTo(15);
    assertThat(earlier.timeRemaining(SECONDS)).isEqualTo(-5);
    assertThat(earlier.isExpired()).isTrue();
    assertThat(deadline.offset(0, SECONDS)).isSameAs(deadline);
    assertThat(deadline.timeRemaining(SECONDS)).isEqualTo(10); // unchanged
  }

  @Test
  void hugeDurationsSaturateInsteadOfOverflowing() {
    Deadline far = Deadline.after(Long.MAX_VALUE, DAYS, ticker);
    Deadline past = Deadline.after(Long.MIN_VALUE, DAYS, ticker);

    assertThat(far.isExpired()).isFalse();
    assertThat(far.timeRemaining(DAYS)).isGreaterThan(365L * 100);
    assertThat(past.isExpired()).isTrue();
    assertThat(past.isBefore(far)).isTrue();
    assertThat(far.offset(Long.MAX_VALUE, DAYS).isExpired()).isFalse();
    assertThat(past.offset(Long.MIN_VALUE, DAYS).isBefore(far)).isTrue();
  }

  @Test
  void comparingDeadlinesFromDifferentTickersIsRejected() {
    Deadline fake = Deadline.after(1, SECONDS, ticker);
    Deadline system = Deadline.after(1, SECONDS);

    assertThatThrownBy(() -> fake.compareTo(system))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("different tickers");
    assertThatThrownBy(() -> fake.isBefore(system)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> fake.minimum(system)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void systemTickerIsTheDefault() {
    Deadline a = Deadline.after(1, DAYS);
    Deadline b = Deadline.after(1, DAYS, Deadline.getSystemTicker());

    assertThat(a.isBefore(b) || a.equals(b)).isTrue(); // comparable: same ticker
    assertThat(a.isExpired()).isFalse();
  }

  @Test
  void nullArgumentsAreNamed() {
    assertThatThrownBy(() -> Deadline.after(1, null, ticker)).hasMessage("unit");
    assertThatThrownBy(() -> Deadline.after(1, SECONDS, null)).hasMessage("ticker");
    Deadline deadline = Deadline.after(1, SECONDS, ticker);
    assertThatThrownBy(() -> deadline.runOnExpiration(null, scheduler)).hasMessage("task");
    assertThatThrownBy(() -> deadline.runOnExpiration(() -> {}, null)).hasMessage("scheduler");
  }

  @Test
  void toStringShowsRemainingSeconds() {
    Deadline deadline = Deadline.after(3, SECONDS, ticker);
    clock.forwardTime(122, NANOSECONDS);
    assertThat(deadline.toString()).isEqualTo("2.999999878s from now (ticker=FakeClock.ticker)");

    clock.forwardNanos(SECONDS.toNanos(4) - 122);
    assertThat(deadline.toString()).isEqualTo("-1s from now (ticker=FakeClock.ticker)");

    assertThat(Deadline.after(1, DAYS).toString()).endsWith("s from now").doesNotContain("ticker");
  }

  @Test
  void runOnExpirationRunsAnExpiredDeadlineTaskPromptly() throws Exception {
    Deadline expired = Deadline.after(-1, SECONDS, ticker);
    CountDownLatch ran = new CountDownLatch(1);

    expired.runOnExpiration(ran::countDown, scheduler);

    assertThat(ran.await(5, SECONDS)).isTrue();
  }

  @Test
  void runOnExpirationFiresAfterAShortRealDeadline() throws Exception {
    Deadline deadline = Deadline.after(20, MILLISECONDS);
    CountDownLatch ran = new CountDownLatch(1);
    long[] remainingWhenRun = new long[1];

    deadline.runOnExpiration(
        () -> {
          remainingWhenRun[0] = deadline.timeRemaining(NANOSECONDS);
          ran.countDown();
        },
        scheduler);

    assertThat(ran.await(5, SECONDS)).isTrue();
    assertThat(remainingWhenRun[0]).isLessThanOrEqualTo(0);
    assertThat(deadline.isExpired()).isTrue();
  }

  @Test
  void runOnExpirationCanBeCancelled() throws Exception {
    Deadline deadline = Deadline.after(1, DAYS, ticker);
    CountDownLatch ran = new CountDownLatch(1);

    ScheduledFuture<?> future = deadline.runOnExpiration(ran::countDown, scheduler);

    assertThat(future.getDelay(SECONDS)).isGreaterThan(86_000);
    assertThat(future.cancel(false)).isTrue();
    assertThat(ran.getCount()).isEqualTo(1);
  }
}
