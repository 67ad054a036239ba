package dev.tern.internal.server;

/**
 * The adaptive limit's experiment near its floor ({@link AdaptiveConcurrencyLimit}): is a latency
 * above the allowed one queueing, or a service that became slower for good (a blocking handler, a
 * slower backend)? Both look the same at one concurrency; they differ in how latency answers more
 * concurrency. Queueing on a saturated server makes latency grow with the calls in progress (twice
 * the calls, about twice the wait); a handler that waits (sleeps, blocks on I/O on a virtual
 * thread) keeps its latency whatever their number. So the limiter first measures {@link
 * #BASELINE_WINDOWS} more windows at the limit it has, then doubles the limit, lets the windows
 * pass whose calls may have been admitted before the change (as many calls as the new limit, at
 * least one window), and reads the next {@link #DECIDING_WINDOWS}: if each ran above the old limit,
 * served at least {@link #THROUGHPUT_RISE} times the calls a second of the baseline (by Little's
 * law), and kept a median within {@link #QUEUEING_RISE} times the baseline's, either way, the
 * service is slower, not queued (a median that fell that far says the baseline was a passing queue,
 * not the service); otherwise the limit goes back and no probe starts for {@link #COOLDOWN_WINDOWS}
 * windows near the floor while the median stays within {@link #CHANGED} times the one it was, so a
 * server overloaded for good runs at twice its limit for a few windows in that many. The baseline
 * is measured afresh, not taken from the window that started the probe: that window was chosen for
 * looking slow, and with a mix of cheap and expensive calls a window looks slow when it holds more
 * expensive ones than most (bin/overload's mixed workload, one call in 10 nine times the cost: a
 * window of 32 calls holds 3 expensive ones give or take 2), so the windows after it served more by
 * chance, and the probe read a queue as a slower service (on 2026-11-29, twice at 3x: the limit
 * then wandered from 4 to 22 and the p99 was 4.6 times the unloaded one). A baseline back at the
 * server's pace ({@code atPaceRate}) says the window that started the probe was such a window: the
 * probe ends there, as queueing, without doubling. One window's median is noisy on a real machine
 * (a pause, a burst), and a queue read as a slower service makes its latency the unloaded one, so
 * every deciding window must agree. The latency a slower service is taken to have is the lowest
 * median of the baseline's windows and the deciding ones ({@link #serviceLatency}): latency that
 * did not follow twice the calls is the service's own, and what one window shows above the others
 * is the start of a queue (a stream run of 2026-11-28 took a deciding window's 3.6 ms for the
 * unloaded latency where the window before showed 2.4 ms, and held a queue of 7-13 ms for the rest
 * of the run).
 *
 * <p>Not thread-safe: only the thread closing a window of the limiter touches it.
 */
final class ConcurrencyProbe {
  /**
   * How much the median may rise with twice the calls in progress and still not be queueing, which
   * doubles it.
   */
  static final double QUEUEING_RISE = 1.5;

  /**
   * How much more calls a second the doubled limit must serve (by Little's law, the mean calls in
   * progress over the mean latency) for the service to count as slower: a queue on a saturated
   * server serves no more, however many calls wait; a handler that waits serves about twice as
   * many. A peak of calls in progress with a mean that stayed (a queue still filling) is no test.
   */
  static final double THROUGHPUT_RISE = 1.2;

  /** The windows at the limit the probe started from that measure its baseline. */
  static final int BASELINE_WINDOWS = 2;

  /** The windows after the skipped ones that must each show a slower service. */
  static final int DECIDING_WINDOWS = 2;

  /**
   * How far the median may move from the one a probe found queueing at, either way, and the
   * cooldown still hold.
   */
  static final long CHANGED = 4;

  /** Windows at the floor, after a probe that found queueing, before the next probe. */
  static final int COOLDOWN_WINDOWS = 4 * AdaptiveConcurrencyLimit.WINDOWS_PER_PERIOD;

  /** What a window says of a probe. */
  enum Verdict {
    /** The window's calls may straddle the change, or the baseline is not measured yet: go on. */
    PENDING,
    /**
     * The baseline is measured and the server is below its pace: double the limit ({@link
     * ConcurrencyProbe#doubledLimit}).
     */
    DOUBLE,
    /** Latency did not follow concurrency: the service is slower, the doubled limit stays. */
    SLOWER,
    /**
     * Latency followed concurrency, the window did not test it, or the baseline was back at the
     * server's pace: the old limit comes back (or stays).
     */
    QUEUEING
  }

  private boolean probing;

  /** Baseline windows still to measure before the limit doubles. */
  private int toMeasure;

  private double atPaceRate;

  /** Windows still to pass before the one that decides. */
  private int toSkip;

  /** Deciding windows still to read, each of which showed a slower service so far. */
  private int toDecide;

  private double limitBefore;
  private long medianBefore;
  private long lowestMedian;
  private double rateBefore;
  private int cooldown;

  /** Whether a probe is running: the windows now belong to it. */
  boolean probing() {
    return probing;
  }

  /**
   * Whether a probe may start now, at a window whose median is {@code median} (asked once per
   * window near the floor that is slower than allowed); counts down the cooldown. A median more
   * than {@link #CHANGED} times away from the one the last probe found queueing at, either way,
   * ends the cooldown: the service changed (a handler that now blocks for 50 ms where the overload
   * queued for a few), which is a new question, not the one just answered.
   */
  boolean mayStart(long median) {
    if (cooldown > 0 && median <= CHANGED * medianBefore && median * CHANGED >= medianBefore) {
      cooldown--;
      return false;
    }
    cooldown = 0;
    return true;
  }

  /**
   * Starts a probe from {@code limit}: its baseline is measured first, at that limit.
   *
   * @param atPaceRate the calls a nanosecond (by Little's law) at which the server counts as
   *     serving at its pace: a baseline at that rate ends the probe without doubling
   */
  void start(double limit, double atPaceRate) {
    probing = true;
    toMeasure = BASELINE_WINDOWS;
    this.atPaceRate = atPaceRate;
    limitBefore = limit;
    medianBefore = Long.MAX_VALUE;
    rateBefore = 0;
  }

  /** The limit the probe runs at once its baseline is measured: twice the one before. */
  double doubledLimit() {
    return 2 * limitBefore;
  }

  /**
   * The latency of the service as a probe that found it slower saw it: the lowest median of its
   * baseline's windows and its deciding windows.
   */
  long serviceLatency() {
    return lowestMedian;
  }

  /** The limit before the probe. */
  double limitBefore() {
    return limitBefore;
  }

  /**
   * A window closed during the probe.
   *
   * @param busiest its most calls in progress
   * @param median its median latency
   * @param rate the calls a nanosecond it served (Little's law: its mean calls in progress over its
   *     mean latency)
   * @param mostlyLate whether most of its calls missed their deadlines
   */
  Verdict observe(int busiest, long median, double rate, boolean mostlyLate) {
    if (toMeasure > 0) {
      return measure(median, rate, mostlyLate);
    }
    if (toSkip > 0) {
      toSkip--;
      return Verdict.PENDING;
    }
    // More calls in progress must have meant more calls served: a window whose mean stayed where
    // it was (a queue still filling) says nothing, and a server read as slower on no evidence takes
    // the latency of its queue for its own pace.
    if (busiest > limitBefore
        && rate >= THROUGHPUT_RISE * rateBefore
        && !mostlyLate
        && median <= QUEUEING_RISE * medianBefore
        && median * QUEUEING_RISE >= medianBefore) {
      lowestMedian = Math.min(lowestMedian, median);
      if (--toDecide > 0) {
        return Verdict.PENDING;
      }
      probing = false;
      return Verdict.SLOWER;
    }
    return queueing();
  }

  /** A baseline window: the mean of their rates, the lowest of their medians. */
  private Verdict measure(long median, double rate, boolean mostlyLate) {
    medianBefore = Math.min(medianBefore, median);
    rateBefore += rate / BASELINE_WINDOWS;
    if (mostlyLate) {
      return queueing();
    }
    if (--toMeasure > 0) {
      return Verdict.PENDING;
    }
    if (rateBefore >= atPaceRate) {
      return queueing();
    }
    lowestMedian = medianBefore;
    // A queue answers a higher limit only once calls admitted under it come out: after about as
    // many calls as the new limit (all of them, when the queue fills at once).
    toSkip = (int) Math.ceil(doubledLimit() / AdaptiveConcurrencyLimit.WINDOW);
    toDecide = DECIDING_WINDOWS;
    return Verdict.DOUBLE;
  }

  private Verdict queueing() {
    probing = false;
    cooldown = COOLDOWN_WINDOWS;
    return Verdict.QUEUEING;
  }
}
