package dev.tern.internal.server;

import dev.tern.Deadline;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A bound on calls in progress that learns itself from the latency of the calls it admits, in the
 * style of TCP Vegas and the gradient limiters: per window of samples it estimates the calls queued
 * beyond what the server serves at its unloaded latency (the window's mean calls in progress times
 * the share of its median above the unloaded latency, by Little's law). While that queue is at most
 * {@link #queueAllowance} (2 calls up to a limit of 10, more at higher orders of magnitude), the
 * limit grows by its square root (while a window refused more than a few calls, that step is a
 * trial, {@link GrowthTrial}: it stays only if it served more calls or did not lengthen their
 * latency); while it is at most twice that, or the median is within {@link #TOLERANCE} times the
 * unloaded latency, the limit holds; beyond both, it comes down to what the server serves at its
 * unloaded latency plus the allowance (the limit times unloaded / median, plus the allowance; by at
 * most half a window). So one core serving a 0.3 ms call settles at 4 to 5 calls in progress, where
 * bin/overload's hand-tuned {@code maxConcurrentCalls=4} is, and a server of many cores or one
 * waiting on I/O at its cores or its waits plus a few; a fixed margin of milliseconds above the
 * unloaded latency (5 ms before) let a queue of tens of calls build on one core. It only moves on
 * evidence: it grows and shrinks only after a window whose calls in progress came to at least half
 * the limit (fewer say nothing about the limit: a test holding 500 calls open at once, each waiting
 * for the others, is no overload while the limit is far above), or whose calls mostly missed their
 * deadlines while the server had them, or were abandoned by their clients before the answer ({@link
 * #releaseLate}: it fails its clients at the concurrency it has, and the limit comes down to it),
 * or, while the limit is cold (above {@link #COLD_FLOOR}), whose queue is long, has grown over each
 * of the last two spans of windows ({@link RecentWindows#growing}: of {@link #RISING_SPAN} windows,
 * or of fewer by as much a window) and makes most calls wait {@link #DEADLINE_SHARE_AT_RISK} of
 * their deadlines or more (as they ended, or a call arriving then, at the pace theirs moved: {@link
 * SampleWindow#atRisk}), while the server keeps serving at least {@link #SATURATED_SHARE} of the
 * most calls a second it has served over a period ({@link #bestRate}): a server busy at its pace
 * with calls arriving faster than it serves them, whose calls on a shared core would otherwise all
 * be late together a deadline later (a closed loop's queue, bounded by its size and far within its
 * deadlines, is not overload). The unloaded latency is the lowest median of the windows that ran
 * unloaded (their calls in progress below half the limit) over the last one to two periods of
 * {@link #WINDOWS_PER_PERIOD} windows that had such a window, falling at once and rising at most
 * {@link #GROWTH_PER_PERIOD} times a period, once per {@link #RISE_INTERVAL_NANOS} and only after a
 * period at least half of whose windows ran unloaded ({@link #MIN_UNLOADED_WINDOWS_TO_RISE}: not a
 * queue draining as the load falls) with their medians within {@link #TOLERANCE} times the lowest
 * (a steady pace, not a queue filling far below a cold limit, whose medians climb window by
 * window), so it follows a service that becomes slower or faster for good, but neither a queue
 * building far below the limit nor the load at the limit; before the first unloaded window a loaded
 * window halves the limit (a server that starts overloaded).
 *
 * <p>The floor follows what the server has served in time: the most calls in progress as a call
 * began that then ended within the allowed latency (not as it ended: a queue filling behind it
 * counts calls it never waited for, and a backend of 64 connections held a floor of 263), in a
 * window whose median stayed within it and whose calls mostly met their deadlines, over the last
 * one to two periods that had one, and never below {@link #MIN_LIMIT}; before the first such window
 * it is {@link #COLD_FLOOR}. So an overloaded server comes down to about the concurrency it serves
 * in time, not to a constant far above it.
 *
 * <p>The limit follows latency, not CPU. Near the floor (within twice the allowance above it), a
 * window slower than allowed whose calls met their deadlines may be a service that became slower
 * for good (a blocking handler on virtual threads, I/O) rather than queueing; the limiter then
 * probes ({@link ConcurrencyProbe}): it measures two more windows at the limit, doubles the limit
 * for a few windows, and if the latency did not follow the concurrency, the service is slower, not
 * queued, and the lowest latency the probe saw (at the old limit or the doubled one) becomes the
 * unloaded one, so its limit grows again up to {@link #MAX_LIMIT}; if it did follow, the limit goes
 * back to the floor.
 *
 * <p>What a sample measures is the caller's choice (see {@link ServerCallImpl}: from the request's
 * end to the handler's close, the server's own time); the limiter owns the clock it is read from,
 * {@link #now}.
 *
 * <p>Thread-safe and lock-free. {@link #tryAcquire} and {@link #release} are one atomic increment
 * or decrement each (a refusal one increment more, of {@code refused}); {@link #record} claims a
 * slot of the current window ({@link SampleWindow}) with one atomic increment, and the thread that
 * writes a window's last sample updates the limit (once every {@link #WINDOW} samples), then starts
 * a new window. A window closes once, so updates never run at the same time; each updater sees the
 * previous one's state through the window's hand-over.
 */
final class AdaptiveConcurrencyLimit {
  /** Samples per window: the limit changes at most once per this many calls. */
  static final int WINDOW = SampleWindow.SIZE;

  /** Windows per period of the unloaded latency's sliding minimum. */
  static final int WINDOWS_PER_PERIOD = 16;

  /**
   * How much the unloaded latency may rise from one period to the next: a service that became
   * slower for good is learned within a few periods, a queue building up far below the limit is not
   * taken for the service's own pace.
   */
  static final long GROWTH_PER_PERIOD = 2;

  /**
   * The least time between two rises of the unloaded latency, by the limiter's clock. A period is
   * counted in calls, a sixth of a second at a few thousand calls a second, so a queue that builds
   * for seconds while the limit is still far above it (poisson arrivals at capacity, before any
   * overload) would otherwise be followed up period by period and taken for the service's own pace.
   * A service that became slower for good is learned sooner than this by the probe at the floor
   * ({@link ConcurrencyProbe}).
   */
  static final long RISE_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

  /**
   * The windows of a period that must run unloaded for the unloaded latency to rise at its end: a
   * service that became slower for good runs so period after period, while a queue draining as the
   * load falls (its calls in progress far below the limit, their latency still the queue's) fills a
   * window or two. bin/overload's blocking workload showed each drain between its steps doubling
   * the baseline, and the limit following it up (a backend of 64 connections held at 382 calls in
   * progress, 120 ms for calls of 20 ms).
   */
  static final int MIN_UNLOADED_WINDOWS_TO_RISE = WINDOWS_PER_PERIOD / 2;

  /** The latency, as a multiple of the unloaded latency, up to which the limit may grow. */
  static final double TOLERANCE = 2.0;

  /**
   * The calls a window may show queued (its mean calls in progress times the share of their latency
   * above the unloaded one) and the limit still grow, at limits up to 10; {@link #queueAllowance}
   * at higher ones. Twice as many, with the latency beyond {@link #TOLERANCE}, shrink it. On one
   * core a call costing 0.2-0.3 ms then keeps 4 to 5 calls in progress (bin/overload's hand-tuned
   * 4), not the tens a fixed margin of milliseconds let queue. At 3 (until 2026-11-29) it settled
   * at 6 to 7, with admitted calls' p99 4-6 times the unloaded one; 2 waited for the writes of a
   * stream's callback to cost one hand-off on a shared core ({@code HeldWakes}), before which a
   * server-streaming workload served under 0.8 of its capacity at 4 or 5 calls in progress.
   */
  static final double QUEUE_ALLOWANCE = 2;

  /**
   * The lowest floor: what the server measured as served in time may be as little as one call in
   * progress (a quiet server); a limit of a few calls still lets a probe and a few cores show more.
   */
  static final int MIN_LIMIT = 4;

  /**
   * The floor before the server has served a window in time (one that starts overloaded): hundreds
   * of calls held open at once (a test, a fan-in waiting for its peers) are not refused then.
   */
  static final int COLD_FLOOR = 256;

  static final int MAX_LIMIT = 10_000;

  /**
   * The share of {@link #bestRate} a window far below the limit must keep serving, by Little's law,
   * for its queue to count as overload: a server busy at its pace while calls queue (one core at
   * 1.5 times what it serves) keeps about all of it; calls held open together, waiting for each
   * other or for a slow peer, show a small share of it, however many.
   */
  static final double SATURATED_SHARE = 0.5;

  /**
   * The windows over which a queue far below a cold limit must have grown, twice in a row, by more
   * than twice the queue allowance to count as overload: calls arriving faster than they are served
   * (an open loop beyond capacity) pile up span after span, while a closed loop (a benchmark, a
   * client with a fixed number of calls outstanding) holds its calls in progress at its size,
   * however long they queue: its queue is bounded, and refusing some of it would fail calls and
   * serve none sooner. Compared window by window, a queue of cheap and expensive calls mixed grows
   * too unevenly to tell (bin/overload's mixed workload at 1.2 times what it served: its mean calls
   * in progress moved by tens from one window to the next, while growing by about 6 a window). A
   * queue growing many times faster is told over shorter spans too ({@link RecentWindows#growing}).
   */
  static final int RISING_SPAN = 8;

  /**
   * The share of a call's deadline its wait must reach, in most of a window's calls, for a queue
   * far below a cold limit to count as overload: a queue that puts deadlines at risk ({@link
   * SampleWindow#atRisk}: the call's latency, or what a call arriving as it ended waits at the same
   * pace). Calls without a deadline are never at risk; a queue of them is bounded once 5,000 are in
   * progress (half the cold limit), or by {@code maxConcurrentCalls}. A closed loop of calls whose
   * latency stays far within their deadlines (a benchmark's hundreds outstanding, h2load's
   * thousands of streams, each ramping up over many windows) is no overload either: refusing some
   * of it would fail calls and serve none sooner. A twentieth: with 1 s deadlines the first
   * overload's queue grows to about 50 ms before the cut (a tenth let it grow to 100 ms, which
   * bin/overload's 1.5x step of a blocking service showed as a p99 of 121 ms, 5.5 times its
   * unloaded p99; a twentieth, 41.6 ms). Read from the latencies of calls as they ended, the queue
   * was longer by then, the more so the faster it grew: in {@code OneCoreServerModel} the first
   * overload's p99 was 48-54 ms at 1.5x and 462-539 ms at 5x; with the wait of a call arriving
   * then, and growth told over shorter spans, 20-24 and 81-104 ms.
   */
  static final double DEADLINE_SHARE_AT_RISK = 0.05;

  /**
   * The calls refused in a window below which the limit grows without a trial ({@link
   * GrowthTrial}): at a load that falls after an overload, a limit on trial's cooldown would refuse
   * calls the server has room for.
   */
  static final int FEW_REFUSED = WINDOW / 8;

  /** No evidence of overload yet: a cold server refuses nothing it would have served before. */
  static final int INITIAL_LIMIT = MAX_LIMIT;

  private final Deadline.Ticker ticker;
  private final AtomicInteger inProgress = new AtomicInteger();

  /** The calls {@link #tryAcquire} refused since the last window closed. */
  private final AtomicInteger refused = new AtomicInteger();

  private volatile int limit = INITIAL_LIMIT;

  /**
   * Whether the calls in progress hold at least half the limit: the server is near what it serves
   * in time. Only then is a call with less time left than {@link #recentLatencyNanos} not started;
   * an idle server starts it, so the recent latency keeps learning (a server refusing every call
   * would never learn that calls became faster).
   */
  boolean busy() {
    return inProgress.get() * 2 >= limit;
  }

  /** The median latency of the last full window, in nanoseconds; 0 before the first. */
  private volatile long recentLatencyNanos;

  private final AtomicReference<SampleWindow> window = new AtomicReference<>(new SampleWindow());

  // Touched only by the thread closing a window (see the class comment).
  private double estimate = INITIAL_LIMIT;
  private long periodMin = Long.MAX_VALUE;

  /** The windows of this period that ran unloaded, which {@link #periodMin} is the least of. */
  private int periodUnloadedWindows;

  /**
   * The highest median of this period's windows that ran unloaded: far above {@link #periodMin}, a
   * queue filling far below a cold limit, not a service's pace.
   */
  private long periodMaxUnloaded;

  private long previousPeriodMin = Long.MAX_VALUE;

  /**
   * When the unloaded latency last rose, by {@link #now}; at first one interval before the start,
   * so the first rise is not held back.
   */
  private long lastRiseNanos;

  private int windowsInPeriod;

  /** The most calls in progress of a window served in time, this period and the last; 0: none. */
  private int periodServed;

  private int previousPeriodServed;

  /**
   * What the server has done at its pace, in calls a nanosecond: the most calls a period of {@link
   * #WINDOWS_PER_PERIOD} windows has seen end, over its span; 0 before the first period ends. At a
   * light load that is the rate calls arrive at, at capacity what the server serves, and over 512
   * calls neither bursts of calls ending together nor a window of cheap calls count for much. A
   * window's rate is neither: by Little's law at a light load it is one call's pace (with calls of
   * mixed costs, bin/overload's mixed workload showed 21,000-26,000 calls a second against 6,800
   * served), and over one window's span, calls ending together (handlers that sleep, woken by the
   * same timer tick) showed 230,000 against 12,500; then no queue ever counted as at the server's
   * pace.
   */
  private double bestRate;

  /** When this period began, by {@link #now}: when the last one ended, or the limiter started. */
  private long periodStartNanos;

  private final ConcurrencyProbe probe = new ConcurrencyProbe();

  private final RecentWindows recent = new RecentWindows(RISING_SPAN);

  private final GrowthTrial trial = new GrowthTrial();

  /**
   * Creates a limiter at {@link #INITIAL_LIMIT}.
   *
   * @param ticker the clock its callers read samples from, see {@link #now}
   */
  AdaptiveConcurrencyLimit(Deadline.Ticker ticker) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.periodStartNanos = ticker.nanoTime();
    this.lastRiseNanos = periodStartNanos - RISE_INTERVAL_NANOS;
  }

  /** The time now by this limiter's clock, in nanoseconds: where samples start and end. */
  long now() {
    return ticker.nanoTime();
  }

  /** Takes a slot; false, taking nothing, if the learned limit is reached. */
  boolean tryAcquire() {
    if (inProgress.incrementAndGet() <= limit) {
      return true;
    }
    inProgress.decrementAndGet();
    refused.incrementAndGet();
    return false;
  }

  /** Gives back a slot {@link #tryAcquire} took, without a sample (a failed or cancelled call). */
  void release() {
    inProgress.decrementAndGet();
  }

  /**
   * Gives back a slot {@link #tryAcquire} took, and learns from the latency of a call without a
   * deadline.
   *
   * @param latencyNanos the call's latency by {@link #now}
   */
  void release(long latencyNanos) {
    release(latencyNanos, -1);
  }

  /**
   * Gives back a slot {@link #tryAcquire} took, and learns from the call's latency, for a caller
   * that did not note the calls in progress as it began (the tests' models): the calls in progress
   * now stand for them.
   *
   * @param latencyNanos the call's latency by {@link #now}
   * @param timeoutNanos the call's time left when it arrived; negative if it had no deadline
   */
  void release(long latencyNanos, long timeoutNanos) {
    release(latencyNanos, timeoutNanos, inProgress.get());
  }

  /**
   * Gives back a slot {@link #tryAcquire} took, and learns from the call's latency and from the
   * calls in progress as its latency began.
   *
   * @param latencyNanos the call's latency by {@link #now}
   * @param timeoutNanos the call's time left when it arrived; negative if it had no deadline
   * @param inProgressAtStart {@link #inProgress} as its latency began
   */
  void release(long latencyNanos, long timeoutNanos, int inProgressAtStart) {
    int before = inProgress.getAndDecrement();
    record(Math.max(0, latencyNanos), before, inProgressAtStart, false, timeoutNanos);
  }

  /**
   * Gives back a slot {@link #tryAcquire} took, for a call whose deadline passed while the server
   * had it (waiting for the executor, or in its handler), or whose client gave up on it before the
   * answer, and learns from its latency and lateness.
   *
   * @param latencyNanos the call's time until its deadline passed or its client cancelled it, by
   *     {@link #now}
   */
  void releaseLate(long latencyNanos) {
    int before = inProgress.getAndDecrement();
    record(Math.max(0, latencyNanos), before, before, true, -1);
  }

  private void record(
      long latencyNanos, int inProgressAtEnd, int inProgressAtStart, boolean late, long timeout) {
    // A sample that finds the window full (being closed) is dropped.
    SampleWindow w = window.get();
    if (w.add(latencyNanos, inProgressAtEnd, inProgressAtStart, late, timeout)) {
      update(w);
      window.set(new SampleWindow());
    }
  }

  /** One window's samples: learned from in {@link #update}. */
  private void update(SampleWindow w) {
    long median = w.median();
    int busiest = w.busiest();
    int refusedInWindow = refused.getAndSet(0);
    recentLatencyNanos = median;

    // A window measures the unloaded latency when its calls in progress stayed well below the
    // limit. Such windows may still queue (a limit far above what the server serves), so the
    // baseline they give falls at once but rises by at most GROWTH_PER_PERIOD a period.
    boolean nearLimit = busiest * 2 >= estimate;
    int late = w.lateCount();
    int atRisk = w.atRisk(DEADLINE_SHARE_AT_RISK);
    boolean mostlyLate = late > WINDOW / 2;
    if (!nearLimit && !mostlyLate) {
      periodMin = Math.min(periodMin, median);
      periodUnloadedWindows++;
      periodMaxUnloaded = Math.max(periodMaxUnloaded, median);
    }
    long unloaded = Math.min(periodMin, previousPeriodMin);
    double allowed = unloaded == Long.MAX_VALUE ? Double.NaN : TOLERANCE * (double) unloaded;
    // The calls a nanosecond served at the window's concurrency and latency (Little's law: mean
    // calls in progress over mean latency, which a mix of cheap and expensive calls needs where
    // the median would count the cheap ones only): unlike the window's own span, not fooled by
    // many calls ending at once.
    double meanInProgress = w.meanInProgress();
    double rate = meanInProgress / Math.max(1, w.meanLatency());
    if (!nearLimit && !mostlyLate && median <= allowed) {
      // Served in time at this concurrency, which the limit did not bound: the most calls in
      // progress as a call began that ended in time. The window's busiest may come from its slow
      // calls (a queue draining into a window of fast ones), which were not served in time.
      periodServed = Math.max(periodServed, w.busiestInTime(allowed));
    }
    if (++windowsInPeriod == WINDOWS_PER_PERIOD) {
      endPeriod();
    }
    int floor = floor();

    if (probe.probing()) {
      // A window since the limit was doubled: did the latency follow the concurrency?
      switch (probe.observe(busiest, median, rate, mostlyLate)) {
        case SLOWER -> {
          // The service is slower, not queued: its latency, as the probe saw it, is the unloaded
          // one now.
          previousPeriodMin = probe.serviceLatency();
          periodMin = Long.MAX_VALUE;
        }
        case QUEUEING -> estimate = Math.max(floor, probe.limitBefore());
        case DOUBLE -> estimate = probe.doubledLimit();
        case PENDING -> {}
      }
      limit = (int) estimate;
      return;
    }

    // A step up on trial: did it buy calls, or only latency? A step that went back is not taken
    // again in the same window, however few calls it refused.
    boolean wentBack = false;
    if (trial.testing()) {
      if (trial.observe(rate, median) == GrowthTrial.Verdict.REVERT) {
        estimate = Math.min(estimate, trial.limitBefore());
        limit = (int) estimate;
        wentBack = true;
      }
    } else {
      trial.note(estimate, nearLimit, rate, median);
    }

    // Far from the limit, a window says nothing about it, unless most of its calls missed their
    // deadlines while the server had them: then it fails its clients at the concurrency it has
    // (deadlines may keep calls in progress far below a cold limit), and the limit comes down to
    // that concurrency, shrunk as below.
    // A quarter of the window late with its median past the allowed latency says the same: the
    // calls that were not late mostly finished just in time (a queue about as long as the
    // deadlines), which is no better.
    boolean overdue =
        unloaded != Long.MAX_VALUE && (mostlyLate || (late * 4 >= WINDOW && median > allowed));
    // The calls queued beyond what the server serves at its unloaded latency (TCP Vegas, by
    // Little's law): of the calls in progress, the share of their time spent above it.
    double queued = median <= unloaded ? 0 : meanInProgress * (1 - (double) unloaded / median);
    // Far below the limit, the queue allowed is that of the concurrency the window had, not that
    // of a limit it never came near.
    double allowance = queueAllowance(nearLimit ? estimate : Math.min(estimate, busiest));
    boolean growing = recent.growing(meanInProgress, 2 * allowance);
    // Serving at least half the most calls a second it has served: busy at its pace, so a
    // queue is queueing; a service that became slower (or calls held open together) is not.
    boolean atPace = rate >= SATURATED_SHARE * bestRate;
    // Far below a cold limit (one that has not come down to what the server serves), a queue
    // beyond the allowance that grows window after window while the server keeps serving at its
    // pace is overload too: the limit comes down before the calls are late, not a deadline later
    // (on one core, calls running together slow each other down, so they are late all at once).
    // Calls held open together serve a small share of that pace, however many they are; a closed
    // loop's queue does not grow once it has ramped up, and one whose calls stay far within their
    // deadlines (or have none) puts nothing at risk.
    boolean saturated =
        estimate > COLD_FLOOR
            && !nearLimit
            && median > allowed
            && queued > 2 * allowance
            && atPace
            && growing
            && atRisk > WINDOW / 2;
    if (nearLimit || overdue || saturated) {
      double before = estimate;
      boolean onTrial = trial.testing();
      if (unloaded == Long.MAX_VALUE) {
        // Loaded from the start: halve until a window runs unloaded and gives the baseline.
        estimate /= 2;
      } else if (queued <= allowance) {
        if (nearLimit && !onTrial && !wentBack) {
          double stepped = estimate + Math.sqrt(estimate);
          if (refusedInWindow < FEW_REFUSED) {
            // Few calls refused: a step up costs little latency if it buys nothing, and a load
            // that fell after an overload (far more room than the limit) is not held to a trial's
            // pace.
            estimate = stepped;
          } else if (trial.mayStart(estimate)) {
            // Many calls refused: a step up fills at once, and on a saturated server buys only a
            // longer wait (one core swung from 4 to 6 in a lull of arrivals, then queued at 6).
            // It stays only if it pays for itself (GrowthTrial).
            trial.start(estimate, stepped);
            estimate = stepped;
          }
        }
      } else if (median > allowed
          && !mostlyLate
          && estimate <= floor + 2 * allowance
          && busiest <= estimate
          && !atPace
          && probe.mayStart(median)) {
        // Slower than allowed near the floor (every call of the window admitted under the limit,
        // none left from a longer queue), yet in time for its clients, and serving less than half
        // the most calls a second it has served (a queue on a saturated server keeps its pace;
        // a service that became slower loses it): queueing or a slower service? Measure a
        // baseline at this limit, double it for a few windows and see.
        probe.start(estimate, SATURATED_SHARE * bestRate);
      } else if (queued <= 2 * allowance || median <= allowed) {
        // A short queue, or latency within the tolerance: where it should settle.
      } else {
        // Down to what the server serves at its unloaded latency, plus the allowed queue: the
        // gradient unloaded / median, by at most half a window.
        double from = nearLimit ? estimate : Math.min(estimate, busiest);
        double paced = from * unloaded / median;
        // A cold limit comes down to the pace at once: it never bounded the queue it saw.
        estimate =
            saturated ? paced + queueAllowance(paced) : Math.max(from / 2, paced + allowance);
      }
      estimate = Math.max(floor, Math.min(MAX_LIMIT, estimate));
      if (onTrial && (estimate != before || probe.probing())) {
        // Decided otherwise while a step was on trial: the limiter's move stands.
        trial.cancel();
      }
      limit = (int) estimate;
    }
  }

  /**
   * The calls that may queue at {@code limit} before it shrinks (twice as many): a few, growing
   * with the limit's order of magnitude as TCP Vegas's, so that a server of many cores or one
   * waiting on I/O is not held to a handful while one core keeps its queue short.
   */
  static double queueAllowance(double limit) {
    return Math.max(QUEUE_ALLOWANCE, QUEUE_ALLOWANCE * Math.log10(limit));
  }

  /** A period of windows ended now: the baseline, the floor and the pace move on to the next. */
  private void endPeriod() {
    long endNanos = now();
    if (periodMin != Long.MAX_VALUE) {
      if (previousPeriodMin == Long.MAX_VALUE || periodMin <= previousPeriodMin) {
        previousPeriodMin = periodMin;
      } else if (endNanos - lastRiseNanos >= RISE_INTERVAL_NANOS
          && periodUnloadedWindows >= MIN_UNLOADED_WINDOWS_TO_RISE
          && periodMaxUnloaded <= TOLERANCE * periodMin) {
        previousPeriodMin =
            Math.min(periodMin, saturatedTimes(previousPeriodMin, GROWTH_PER_PERIOD));
        lastRiseNanos = endNanos;
      } // else it rose less than RISE_INTERVAL_NANOS ago, or few windows ran unloaded (a queue
      // draining as the load fell): the last baseline stands
    } // else a loaded period: the last baseline stands
    if (periodServed > 0) {
      previousPeriodServed = periodServed;
    } // else no window served in time: the last floor stands
    double periodRate =
        (double) (WINDOWS_PER_PERIOD * WINDOW) / Math.max(1, endNanos - periodStartNanos);
    bestRate = Math.max(bestRate, periodRate);
    periodStartNanos = endNanos;
    periodMin = Long.MAX_VALUE;
    periodUnloadedWindows = 0;
    periodMaxUnloaded = 0;
    periodServed = 0;
    windowsInPeriod = 0;
  }

  /**
   * The floor now: the most calls in progress of a window served in time, over the last one or two
   * periods that had one (at least {@link #MIN_LIMIT}); {@link #COLD_FLOOR} before any.
   */
  private int floor() {
    int served = Math.max(periodServed, previousPeriodServed);
    return served == 0 ? COLD_FLOOR : Math.max(MIN_LIMIT, served);
  }

  /** The floor now, for tests; read by the thread that wrote the last window. */
  int floorForTest() {
    return floor();
  }

  private static long saturatedTimes(long value, long factor) {
    return value > Long.MAX_VALUE / factor ? Long.MAX_VALUE : value * factor;
  }

  /** The limit now. */
  int limit() {
    return limit;
  }

  /** The calls holding a slot now. */
  int inProgress() {
    return inProgress.get();
  }

  /** The median latency of the last full window of calls, in nanoseconds; 0 before the first. */
  long recentLatencyNanos() {
    return recentLatencyNanos;
  }
}
