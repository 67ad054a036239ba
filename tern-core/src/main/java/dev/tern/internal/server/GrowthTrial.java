package dev.tern.internal.server;

/**
 * The adaptive limit's test of its own growth ({@link AdaptiveConcurrencyLimit}): a step up that
 * would add to a queue must pay for itself in calls served. The limiter grows while its estimated
 * queue is within the allowance, but near it a step up of a small limit is large (4 to 6 on one
 * core), and on a saturated server it buys no calls, only a longer wait: bin/overload's work and
 * stream workloads swung between 4 and 6 and their p99 missed 3 times the unloaded one at some
 * loads, where a limit held at 4 met it. A server with room (more cores, calls that wait on I/O)
 * serves more at the higher limit, at about the same latency.
 *
 * <p>So, while the limit refuses more than a few calls a window ({@link
 * AdaptiveConcurrencyLimit#FEW_REFUSED}: a step up will fill at once), a step up is a trial: the
 * limiter keeps the last {@link #WINDOWS} windows at the limit it has, near it (their calls a
 * second by Little's law, and their medians), grows, lets the windows pass whose calls may have
 * been admitted before the step (as many calls as the new limit, at least one window), and reads
 * the next {@link #WINDOWS}. If their median rose and their calls a second did not, each by at
 * least the square root of the step (1.22 from 4 to 6: half the step, either way, on a logarithmic
 * scale), latency followed the concurrency and nothing was bought: the limit goes back, and the
 * next trial from there waits {@link #MIN_COOLDOWN_WINDOWS} windows, twice as many after each trial
 * in a row that went back (up to {@link #MAX_COOLDOWN_WINDOWS}), so that the windows at the higher
 * limit stay a small share of all (their latency is the p99's). Otherwise the step stays, the
 * cooldown goes back to its least, and the windows read are the baseline of the next step (calls
 * that wait on I/O climb a step per three windows).
 *
 * <p>Not thread-safe: only the thread closing a window of the limiter touches it.
 */
final class GrowthTrial {
  /** The windows measured at each limit: before the step, and after it. */
  static final int WINDOWS = 2;

  /** The windows after a trial that went back before the next, at the least. */
  static final int MIN_COOLDOWN_WINDOWS = AdaptiveConcurrencyLimit.WINDOWS_PER_PERIOD;

  /**
   * The most windows between trials: at 5,000 calls a second, a trial's three windows in about 7 s
   * of calls.
   */
  static final int MAX_COOLDOWN_WINDOWS = 64 * AdaptiveConcurrencyLimit.WINDOWS_PER_PERIOD;

  /** What a window says of a trial. */
  enum Verdict {
    /** The window's calls may straddle the step, or more windows are to be read: go on. */
    PENDING,
    /** The step bought calls, or did not lengthen their latency: it stays. */
    KEEP,
    /** Latency followed the step and calls a second did not: the limit goes back. */
    REVERT
  }

  /** The limit the baseline's windows ran at; NaN while none is measured. */
  private double baselineLimit = Double.NaN;

  private final double[] baselineRates = new double[WINDOWS];
  private final long[] baselineMedians = new long[WINDOWS];

  /** The baseline's windows so far, at {@link #baselineLimit}: the last {@link #WINDOWS} count. */
  private int baselineWindows;

  private double limitBefore;
  private double limitTried;
  private double rateBefore;
  private double medianBefore;
  private int toSkip;

  /** The windows still to be read after the skipped ones: above 0 while a trial runs. */
  private int toRead;

  private int cooldown;
  private int nextCooldown = MIN_COOLDOWN_WINDOWS;

  /** Whether a trial is running: the limiter does not grow again until it ends. */
  boolean testing() {
    return toRead > 0;
  }

  /**
   * A window closed outside a trial: it counts down the cooldown and, if it ran near the limit,
   * joins the baseline at that limit.
   *
   * @param limit the limit it ran under
   * @param nearLimit whether its calls in progress came near the limit
   * @param rate its calls a nanosecond, by Little's law
   * @param median its median latency
   */
  void note(double limit, boolean nearLimit, double rate, long median) {
    if (cooldown > 0) {
      cooldown--;
    }
    if (!nearLimit) {
      baselineLimit = Double.NaN;
      baselineWindows = 0;
      return;
    }
    if (limit != baselineLimit) {
      baselineLimit = limit;
      baselineWindows = 0;
    }
    int slot = baselineWindows++ % WINDOWS;
    baselineRates[slot] = rate;
    baselineMedians[slot] = median;
  }

  /** Whether a trial may start from {@code limit}: a baseline is measured there, no cooldown. */
  boolean mayStart(double limit) {
    return cooldown == 0 && limit == baselineLimit && baselineWindows >= WINDOWS;
  }

  /**
   * Starts a trial of the step from {@code limit} to {@code tried}, against the baseline at {@code
   * limit} ({@link #mayStart}).
   */
  void start(double limit, double tried) {
    limitBefore = limit;
    limitTried = tried;
    rateBefore = meanRate();
    medianBefore = meanMedian();
    toSkip = (int) Math.ceil(tried / AdaptiveConcurrencyLimit.WINDOW);
    toRead = WINDOWS;
    baselineLimit = Double.NaN;
    baselineWindows = 0;
  }

  /** The limit before the step on trial. */
  double limitBefore() {
    return limitBefore;
  }

  /**
   * A window closed during the trial.
   *
   * @param rate its calls a nanosecond, by Little's law
   * @param median its median latency
   */
  Verdict observe(double rate, long median) {
    if (toSkip > 0) {
      toSkip--;
      return Verdict.PENDING;
    }
    // Read into the baseline's slots: the next step's baseline if this one stays.
    baselineRates[toRead - 1] = rate;
    baselineMedians[toRead - 1] = median;
    if (--toRead > 0) {
      return Verdict.PENDING;
    }
    double halfStep = Math.sqrt(limitTried / limitBefore);
    boolean latencyFollowed = meanMedian() >= halfStep * medianBefore;
    boolean boughtCalls = meanRate() >= halfStep * rateBefore;
    if (latencyFollowed && !boughtCalls) {
      backOff();
      return Verdict.REVERT;
    }
    nextCooldown = MIN_COOLDOWN_WINDOWS;
    baselineLimit = limitTried;
    baselineWindows = WINDOWS;
    return Verdict.KEEP;
  }

  /**
   * Ends a trial the limiter decided otherwise (its queue grew past twice the allowance, or a probe
   * started): the limit it set stands, and the next trial waits as after one that went back.
   */
  void cancel() {
    toSkip = 0;
    toRead = 0;
    backOff();
  }

  /** No trial for the cooldown now, and a cooldown twice as long after the next that fails. */
  private void backOff() {
    cooldown = nextCooldown;
    nextCooldown = Math.min(MAX_COOLDOWN_WINDOWS, 2 * nextCooldown);
  }

  private double meanRate() {
    double sum = 0;
    for (double rate : baselineRates) {
      sum += rate;
    }
    return sum / WINDOWS;
  }

  private double meanMedian() {
    double sum = 0;
    for (long median : baselineMedians) {
      sum += median;
    }
    return sum / WINDOWS;
  }
}
