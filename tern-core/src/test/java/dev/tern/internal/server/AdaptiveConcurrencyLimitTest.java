package dev.tern.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.testing.FakeClock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntToLongFunction;
import org.junit.jupiter.api.Test;

/**
 * How the adaptive limit learns from latencies it is given: each call's latency is what a simulated
 * service would take, on a fake clock (no sleeps, no timed assertions).
 */
class AdaptiveConcurrencyLimitTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  private final FakeClock clock = new FakeClock();
  private final AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(clock.getTicker());

  /**
   * One round: {@code offered} calls try to start at once; those admitted end with the latency
   * {@code service} gives for that many calls in progress.
   *
   * @return the calls admitted
   */
  private int round(int offered, IntToLongFunction service) {
    int admitted = 0;
    while (admitted < offered && limit.tryAcquire()) {
      admitted++;
    }
    long latency = service.applyAsLong(admitted);
    for (int i = 0; i < admitted; i++) {
      limit.release(latency);
    }
    return admitted;
  }

  /** Teaches the limiter an unloaded latency: calls one at a time. */
  private void learnUnloaded(long latencyNanos) {
    for (int i = 0; i < 4 * AdaptiveConcurrencyLimit.WINDOW; i++) {
      round(1, inProgress -> latencyNanos);
    }
  }

  /**
   * What a queueing run saw in its second half: calls offered, admitted, served, ended late (their
   * deadline passed in the queue), and the worst latency of those served.
   */
  private record Queueing(
      int offered, int admitted, int served, int late, long worstLatencyNanos) {}

  /** What a run counts as it goes: a {@link Queueing} at its end. */
  private static final class Counts {
    int offered;
    int admitted;
    int served;
    int late;
    long worst;

    Queueing result() {
      return new Queueing(offered, admitted, served, late, worst);
    }
  }

  /**
   * A server of one thread serving its calls first come, first served, each for {@code costNanos},
   * offered a call every {@code gapNanos}: an event loop on the fake clock. A call's latency is its
   * wait in the queue plus its cost, from its arrival (its request received) to its end.
   */
  private Queueing oneThreadServer(long costNanos, long gapNanos, int arrivals) {
    return oneThreadServer(costNanos, gapNanos, arrivals, Long.MAX_VALUE);
  }

  /**
   * {@link #oneThreadServer(long, long, int)} with calls that have {@code deadlineNanos}: a call
   * whose deadline passed while it waited is not run (it costs nothing) and ends late.
   */
  private Queueing oneThreadServer(
      long costNanos, long gapNanos, int arrivals, long deadlineNanos) {
    return oneThreadServer(i -> costNanos, gapNanos, arrivals, deadlineNanos);
  }

  /** {@link #oneThreadServer(long, long, int, long)} with the cost of call {@code i} its own. */
  private Queueing oneThreadServer(
      IntToLongFunction costOf, long gapNanos, int arrivals, long deadlineNanos) {
    return oneThreadServer(costOf, gapNanos, arrivals, deadlineNanos, arrivals / 2);
  }

  /**
   * {@link #oneThreadServer(IntToLongFunction, long, int, long)} counting the calls from arrival
   * {@code countFrom} on (0: every call, the first ones too).
   */
  private Queueing oneThreadServer(
      IntToLongFunction costOf, long gapNanos, int arrivals, long deadlineNanos, int countFrom) {
    ArrayDeque<Long> queue = new ArrayDeque<>(); // arrival times of the calls admitted
    ArrayDeque<Long> costs = new ArrayDeque<>(); // and their costs
    ArrayDeque<Integer> atStart = new ArrayDeque<>(); // and the calls in progress as they came
    long headEnds = 0;
    Counts counts = new Counts();
    for (int i = 0; i < arrivals; i++) {
      long arrival = clock.currentTimeNanos() + gapNanos;
      while (!queue.isEmpty() && headEnds <= arrival) {
        long latency = headEnds - queue.poll();
        costs.poll();
        limit.release(
            latency, deadlineNanos == Long.MAX_VALUE ? -1 : deadlineNanos, atStart.poll());
        if (i >= countFrom) {
          counts.worst = Math.max(counts.worst, latency);
          counts.served++;
        }
        long free = headEnds;
        while (!queue.isEmpty() && free - queue.peek() >= deadlineNanos) {
          queue.poll(); // its deadline passed in the queue: never run
          costs.poll();
          atStart.poll();
          limit.releaseLate(deadlineNanos);
          counts.late += i >= countFrom ? 1 : 0;
        }
        if (!queue.isEmpty()) {
          headEnds = Math.max(free, queue.peek()) + costs.peek();
        }
      }
      clock.forwardNanos(arrival - clock.currentTimeNanos());
      boolean in = limit.tryAcquire();
      if (in) {
        long cost = costOf.applyAsLong(i);
        if (queue.isEmpty()) {
          headEnds = arrival + cost;
        }
        queue.add(arrival);
        costs.add(cost);
        atStart.add(limit.inProgress());
      }
      if (i >= countFrom) {
        counts.offered++;
        counts.admitted += in ? 1 : 0;
      }
    }
    return counts.result();
  }

  /**
   * A server of one core whose calls share it (threads taking turns, as a server's executor threads
   * do on one CPU): with n calls in progress each advances at 1/n of the core, so a queue slows
   * every call at once, and the calls end late together rather than one by one. Offered a call
   * every {@code gapNanos}, each costing {@code costNanos} of the core, with {@code deadlineNanos}
   * (a call past it is cancelled by its client and ends late). Unlike {@link #oneThreadServer}, the
   * run counts every call, the first ones too: what happens before the limit has learned.
   */
  private Queueing sharedCoreServer(
      long costNanos, long gapNanos, int arrivals, long deadlineNanos) {
    // Each call: {arrival, work left in ns of the core}.
    List<long[]> running = new ArrayList<>();
    long now = clock.currentTimeNanos();
    Counts counts = new Counts();
    for (int i = 0; i < arrivals; i++) {
      long arrival = now + gapNanos;
      while (now < arrival) {
        if (running.isEmpty()) {
          now = arrival;
          break;
        }
        int n = running.size();
        long[] next = running.get(0);
        long firstDeadline = Long.MAX_VALUE;
        for (long[] call : running) {
          if (call[1] < next[1]) {
            next = call;
          }
          firstDeadline = Math.min(firstDeadline, call[0] + deadlineNanos);
        }
        long step = Math.min(Math.min(next[1] * n, arrival - now), firstDeadline - now);
        step = Math.max(step, 1);
        now += step;
        for (long[] call : running) {
          call[1] -= step / n;
        }
        clock.forwardNanos(now - clock.currentTimeNanos());
        for (Iterator<long[]> it = running.iterator(); it.hasNext(); ) {
          long[] call = it.next();
          if (call[1] <= 0) {
            it.remove();
            limit.release(now - call[0], deadlineNanos, (int) call[2]);
            counts.served++;
            counts.worst = Math.max(counts.worst, now - call[0]);
          } else if (now - call[0] >= deadlineNanos) {
            it.remove();
            limit.releaseLate(deadlineNanos);
            counts.late++;
          }
        }
      }
      clock.forwardNanos(now - clock.currentTimeNanos());
      boolean in = limit.tryAcquire();
      if (in) {
        running.add(new long[] {arrival, costNanos, limit.inProgress()});
      }
      counts.offered++;
      counts.admitted += in ? 1 : 0;
    }
    return counts.result();
  }

  /**
   * A pool of {@code threads} threads whose handlers each sleep {@code sleepNanos} (bin/overload's
   * blocking workload on JDK 17: 256 threads, 20 ms), woken by a timer that ticks every {@code
   * tickNanos}: every sleep ends at the tick after it is due, so calls end in bursts, tens at once.
   * Offered a call every {@code gapNanos}; an admitted call waits first come, first served for a
   * free thread, and one still waiting at its deadline is cancelled by its client (it ends late,
   * never run), as is one whose sleep would end past it. Counts the calls from arrival {@code
   * countFrom} on.
   */
  private Queueing sleepingPool(
      int threads,
      long sleepNanos,
      long tickNanos,
      long gapNanos,
      int arrivals,
      long deadlineNanos,
      int countFrom) {
    return sleepingPool(
        threads, sleepNanos, tickNanos, i -> gapNanos, arrivals, deadlineNanos, countFrom);
  }

  /**
   * {@link #sleepingPool(int, long, long, long, int, long, int)} with the gap before arrival {@code
   * i} its own.
   */
  private Queueing sleepingPool(
      int threads,
      long sleepNanos,
      long tickNanos,
      IntToLongFunction gapOf,
      int arrivals,
      long deadlineNanos,
      int countFrom) {
    // The calls holding a thread, {when it ends, when it arrived, the calls in progress as it
    // came}: one per busy thread.
    PriorityQueue<long[]> ends = new PriorityQueue<>(Comparator.comparingLong(call -> call[0]));
    // Admitted calls with no thread: {when it arrived, the calls in progress as it came}.
    ArrayDeque<long[]> waiting = new ArrayDeque<>();
    Counts counts = new Counts();
    for (int i = 0; i < arrivals; i++) {
      long arrival = clock.currentTimeNanos() + gapOf.applyAsLong(i);
      while (!ends.isEmpty() && ends.peek()[0] <= arrival) {
        long[] call = ends.poll();
        clock.forwardNanos(call[0] - clock.currentTimeNanos());
        long latency = call[0] - call[1];
        boolean counted = i >= countFrom;
        if (latency >= deadlineNanos) {
          limit.releaseLate(deadlineNanos);
          counts.late += counted ? 1 : 0;
        } else {
          limit.release(latency, deadlineNanos, (int) call[2]);
          counts.served += counted ? 1 : 0;
          counts.worst = counted ? Math.max(counts.worst, latency) : counts.worst;
        }
        // The thread it held takes the next call still in time, if any.
        while (!waiting.isEmpty() && call[0] - waiting.peek()[0] >= deadlineNanos) {
          waiting.poll();
          limit.releaseLate(deadlineNanos);
          counts.late += counted ? 1 : 0;
        }
        if (!waiting.isEmpty()) {
          long[] waited = waiting.poll();
          ends.add(
              new long[] {
                wakeUp(call[0], sleepNanos, tickNanos, waited[0], deadlineNanos),
                waited[0],
                waited[1]
              });
        }
      }
      clock.forwardNanos(arrival - clock.currentTimeNanos());
      boolean in = limit.tryAcquire();
      long atStart = limit.inProgress();
      if (in && ends.size() < threads) {
        ends.add(
            new long[] {
              wakeUp(arrival, sleepNanos, tickNanos, arrival, deadlineNanos), arrival, atStart
            });
      } else if (in) {
        waiting.add(new long[] {arrival, atStart});
      }
      if (i >= countFrom) {
        counts.offered++;
        counts.admitted += in ? 1 : 0;
      }
    }
    return counts.result();
  }

  /**
   * When a sleep started at {@code start} ends: at the first tick after it is due, or at the call's
   * deadline if that comes first (its client cancels it).
   */
  private static long wakeUp(
      long start, long sleepNanos, long tickNanos, long arrival, long deadlineNanos) {
    long due = start + sleepNanos;
    long woken = (due + tickNanos - 1) / tickNanos * tickNanos;
    return Math.min(woken, arrival + deadlineNanos);
  }

  @Test
  void coldLimiter_refusesNothingUpToItsCeiling() {
    assertThat(round(AdaptiveConcurrencyLimit.MAX_LIMIT + 5, inProgress -> MS))
        .isEqualTo(AdaptiveConcurrencyLimit.MAX_LIMIT);
  }

  @Test
  void oneThreadOfferedFourTimesWhatItServes_shedsTheRestAndKeepsItsQueueShort() {
    learnUnloaded(MS);

    Queueing run = oneThreadServer(MS, MS / 4, 400_000);

    // It serves what it can (one call a ms: a quarter of the offer), and refuses the rest at once
    // rather than queueing them for seconds: its queue stays near what it served in time before
    // (a handful of calls within the allowed 6 ms), twice that while it probes, never hundreds.
    assertThat(run.admitted()).isBetween(run.offered() / 4 - 50, run.offered() / 4 + 50);
    assertThat(limit.floorForTest()).isBetween(AdaptiveConcurrencyLimit.MIN_LIMIT, 12);
    assertThat(run.worstLatencyNanos()).isLessThanOrEqualTo(24 * MS);
    assertThat(limit.limit()).isLessThanOrEqualTo(24);
  }

  @Test
  void aColdLimit_offeredOneAndAHalfTimesWhatTheServerServes_comesDownBeforeAnyCallIsLate() {
    learnUnloaded(MS);

    // A 1 s deadline, on a core its calls share: every call slows as the queue grows, so none is
    // late until all are. The limit must learn from the queue itself (the server serving at its
    // pace while calls wait), not from calls missing their deadlines a second later, all at once
    // (bin/overload's 1.5x step on one core).
    Queueing run = sharedCoreServer(MS, MS * 2 / 3, 60_000, 1_000 * MS);

    // Before, 1,046 calls ended late and the rest waited up to the deadline. Now the worst call
    // is one of the first, queued while the limit learned: 146 ms here, as the queue must grow
    // over two spans of windows first (37 before it had to; the same with a tenth of the deadline
    // at risk or a twentieth, and with the wait of a call arriving as a call ends).
    assertThat(run.late()).isZero();
    assertThat(run.served()).isGreaterThan(run.offered() * 2 / 3 - 500);
    assertThat(run.worstLatencyNanos()).isLessThanOrEqualTo(150 * MS);
    assertThat(limit.limit()).isLessThanOrEqualTo(24);
  }

  /**
   * A closed loop of {@code loop} calls (a benchmark's client, h2load's streams) on a server of one
   * thread serving them first come, first served, each for {@code costNanos}: each call that ends
   * is replaced at once by a new one, so {@code loop} calls are always in progress, each waiting
   * for the others ahead of it. Ramping up, the loop starts with one call and adds one more as each
   * call ends (a client opening its streams as it goes), so its calls in progress grow for {@code
   * loop} calls, far more than a few windows.
   *
   * @param deadlineNanos each call's deadline; negative for none
   * @return the calls refused (the loop shrinks by each)
   */
  private int closedLoop(int loop, long costNanos, int calls, long deadlineNanos, boolean rampUp) {
    ArrayDeque<Long> queue = new ArrayDeque<>(); // start times of the calls in progress
    int refused = 0;
    int started = 0;
    for (int i = 0; i < calls; i++) {
      if (!queue.isEmpty()) {
        clock.forwardNanos(costNanos);
        limit.release(clock.currentTimeNanos() - queue.poll(), deadlineNanos);
      }
      int starts = started < loop ? (rampUp ? 2 : loop) : 1;
      for (int k = 0; k < starts; k++) {
        started++;
        if (limit.tryAcquire()) {
          queue.add(clock.currentTimeNanos());
        } else {
          refused++;
        }
      }
    }
    return refused;
  }

  @Test
  void aClosedLoopQueueingFarBelowTheColdLimit_isNeverRefused() {
    learnUnloaded(MS);

    // bin/bench-compare's end-to-end rows: 40 and 400 calls outstanding, each waiting 40 or 400
    // times its cost, served at the server's pace. Their queue never grows beyond the loop, so it
    // is no overload: before the limit asked that a queue grow, the 40 were cut to 21 and the
    // benchmark's client failed with RESOURCE_EXHAUSTED.
    assertThat(closedLoop(40, MS, 50_000, -1, false)).isZero();
    assertThat(closedLoop(400, MS, 50_000, -1, false)).isZero();
    // Ramping up, its queue grows for hundreds of windows, but puts no deadline at risk: without
    // deadlines (the 4x100 client was cut to 43), or far within them.
    assertThat(closedLoop(2_000, MS, 50_000, -1, true)).isZero();
    assertThat(closedLoop(400, MS, 50_000, 10_000 * MS, true)).isZero();
    assertThat(limit.limit()).isEqualTo(AdaptiveConcurrencyLimit.INITIAL_LIMIT);
  }

  @Test
  void aMixOfCheapAndExpensiveCallsQueueing_isNeverTakenForASlowerService() {
    // bin/overload --workload=mixed: 9 calls in 10 cost 0.1 ms, 1 in 10 costs 0.9 ms (half the
    // CPU each), drawn at random. A window's median is a cheap call's, its mean weighs the
    // expensive ones in. On a real core the probe once read such a queue as a slower service
    // (one window's median near the last), took its milliseconds for the unloaded latency, and the
    // limit settled at 20-40 with p99 of 27-255 ms at 3x-5x; this model of one thread does not
    // show that noise, so it guards the outcome: the limit stays low and no call waits long.
    Random random = new Random(49);
    IntToLongFunction mix = i -> random.nextInt(10) == 0 ? 900_000 : 100_000;
    oneThreadServer(mix, MS, 20_000, 1_000 * MS); // about 0.2x: the unloaded latency

    Queueing run = oneThreadServer(mix, 60_000, 400_000, 1_000 * MS); // about 3x

    assertThat(run.late()).isZero();
    assertThat(run.served()).isGreaterThan(run.offered() * 3 / 10);
    assertThat(run.worstLatencyNanos()).isLessThanOrEqualTo(12 * MS);
    assertThat(limit.limit()).isLessThanOrEqualTo(24);
  }

  @Test
  void aColdLimit_offeredAMixOfCheapAndExpensiveCallsBeyondItsPace_comesDownBeforeAnyCallIsLate() {
    // bin/overload --workload=mixed's shape: 9 calls in 10 cheap (20 us), 1 in 10 expensive
    // (980 us), drawn at random. Served one at a time at a light load, a window of cheap calls
    // shows one cheap call's pace (50,000 calls a second by Little's law), six times what the mix
    // is served at (8,600): taken as the server's pace, it kept the queue that followed from ever
    // counting as at the server's pace. And the queue of a mix grows unevenly window by window.
    Random random = new Random(52);
    IntToLongFunction mix = i -> random.nextInt(10) == 0 ? 980_000 : 20_000;
    oneThreadServer(mix, MS, 4_000, 1_000 * MS); // a light load: a call a millisecond

    // 1.2 times what the server serves, queued first come, first served, with 1 s deadlines.
    Queueing run = oneThreadServer(mix, 116_000 * 5 / 6, 60_000, 1_000 * MS, 0);

    // Before, the limit came down only once calls had queued for 592 ms here (in a real run's 1x
    // step, once 1,845 had missed their deadlines); then at about a tenth of the deadline (111
    // ms); now at about a twentieth (69 ms).
    assertThat(run.late()).isZero();
    assertThat(run.worstLatencyNanos()).isLessThanOrEqualTo(80 * MS);
    assertThat(limit.limit()).isLessThanOrEqualTo(64);
  }

  @Test
  void aPoolOfSleepingHandlersEndingInBursts_offeredMoreThanItServes_isCutAtItsPace() {
    // bin/overload --workload=blocking on JDK 17: 256 threads whose handlers sleep 20 ms serve
    // 12,800 calls a second, and the sleeps end at a timer's ticks, so calls end tens at a time.
    // A window's span then shows calls ending far faster than the pool serves them: a first
    // version of the pace took the median of those spans (230,000 calls a second against 12,500
    // on a real run, whose 1.5x step then served 0.66-0.78 of capacity). Here that version let
    // the limit come down only to 1,810, with calls waiting up to 139 ms; over periods of 512
    // calls the bursts average out.
    long tick = 4 * MS;
    int perSecond = 12_800;
    sleepingPool(256, 20 * MS, tick, MS / 2, 4_000, 1_000 * MS, 0); // a light load: 2,000 a second

    // 1.5 times what the pool serves, with 1 s deadlines, for 8 s; counted over the last 4 s.
    int arrivals = 8 * perSecond * 3 / 2;
    long gap = TimeUnit.SECONDS.toNanos(1) / (perSecond * 3 / 2);
    Queueing run = sleepingPool(256, 20 * MS, tick, gap, arrivals, 1_000 * MS, arrivals / 2);

    assertThat(run.late()).isZero();
    assertThat(run.served()).isGreaterThanOrEqualTo(4 * perSecond * 95 / 100);
    // The cut holds 629 calls in progress (the floor: the most calls in progress as a call began
    // that still ended in time), the worst taking 51 ms, 2.5 times the unloaded latency. Counted
    // as calls ended, the floor was 884 and the worst call 71 ms: the queue filling behind a call
    // counted as served in time with it.
    assertThat(run.worstLatencyNanos()).isLessThanOrEqualTo(60 * MS);
    assertThat(limit.limit()).isLessThanOrEqualTo(700);
  }

  @Test
  void queuesDrainingBetweenOverloads_areNotTakenForTheUnloadedLatency() {
    // bin/overload --workload=blocking: handlers wait for one of a backend's 64 connections and
    // hold it 20 ms (virtual threads: each sleep ends on time), so it serves 3,200 calls a second.
    // Between two overloads the load stops and the queue drains: a window or two of calls far
    // below the limit whose latency is still the queue's. Each such drain was taken for the
    // service's own latency, doubling the baseline once per RISE_INTERVAL_NANOS, and the limit
    // followed it up: in a real run 172, 244, then 382 calls in progress, 120 ms for 20 ms calls.
    int perSecond = 3_200;
    long second = TimeUnit.SECONDS.toNanos(1);
    sleepingPool(64, 20 * MS, 1, 3 * MS, 3_000, second, 0); // 333 a second: the unloaded latency

    // Five overloads of 12 s at twice what it serves, an idle second before each; the last one's
    // second half counted.
    int overload = 12 * 2 * perSecond;
    long gap = second / (2 * perSecond);
    Queueing last =
        sleepingPool(
            64,
            20 * MS,
            1,
            i -> i % overload == 0 ? second : gap,
            5 * overload,
            second,
            4 * overload + overload / 2);

    assertThat(last.late()).isZero();
    assertThat(last.served()).isGreaterThanOrEqualTo(6 * perSecond * 95 / 100);
    // Now 135 calls in progress and the worst call 40 ms after five overloads; with each drain
    // raising the baseline, 199 and 60 ms after five, and rising. The first overload's onset, a
    // queue filling far below the cold limit (medians of 30 to 180 ms in one period), raised it
    // to 30 ms once, and the limit held 184 calls at 58 ms, until a rise needed a steady period.
    assertThat(last.worstLatencyNanos()).isLessThanOrEqualTo(45 * MS);
    assertThat(limit.limit()).isLessThanOrEqualTo(150);
  }

  @Test
  void aQueueBuiltWhileTheLimitIsCold_isNotTakenForTheUnloadedLatency() {
    learnUnloaded(MS);
    // Offered a little more than it serves while the limit is still cold: a queue builds for
    // seconds (as poisson arrivals at capacity build one), far below the cold limit.
    oneThreadServer(MS, MS * 49 / 50, 20_000, 1_000 * MS);
    while (limit.inProgress() > 0) {
      limit.release();
    }

    Queueing run = oneThreadServer(MS, MS / 2, 100_000, 1_000 * MS);

    // Then offered twice what it serves, it serves what it can in time and refuses the rest,
    // keeping a queue of tens of milliseconds (the unloaded latency may have risen twice in the
    // 20 s of queueing, once per RISE_INTERVAL_NANOS), not one as long as the one it was cold
    // with (hundreds of ms, as before the baseline's rise was bounded in time and the floor
    // counted only calls served in time).
    assertThat(run.served()).isGreaterThan(run.offered() / 2 - 500);
    assertThat(run.late()).isZero();
    assertThat(run.worstLatencyNanos()).isLessThanOrEqualTo(48 * MS);
    assertThat(limit.limit()).isLessThanOrEqualTo(48);
  }

  @Test
  void theFloor_followsTheConcurrencyServedInTime() {
    // Rounds of 40 calls at once, each 2 ms whatever their number (waiting, not queueing): the
    // server serves 40 at a time in time.
    learnUnloaded(2 * MS);
    for (int i = 0; i < 4 * AdaptiveConcurrencyLimit.WINDOWS_PER_PERIOD; i++) {
      round(40, inProgress -> 2 * MS);
    }
    assertThat(limit.floorForTest()).isEqualTo(40);

    // Then overloaded: its limit comes down to that concurrency, not below, nor to a constant.
    oneThreadServer(MS, MS / 4, 100_000);
    assertThat(limit.limit()).isBetween(40, 80);
  }

  @Test
  void beforeAnyWindowServedInTime_theFloorIsTheColdOne() {
    assertThat(limit.floorForTest()).isEqualTo(AdaptiveConcurrencyLimit.COLD_FLOOR);
  }

  @Test
  void deadlinesKeepingCallsFarBelowTheColdLimit_missedByMost_bringItDown() {
    learnUnloaded(MS);

    // Four times what it serves, 1 s deadlines: at most about 3,000 calls wait, far below the
    // cold limit's half; without the limit nearly every call would miss its deadline.
    Queueing run = oneThreadServer(MS, MS / 4, 200_000, 1_000 * MS);

    assertThat(limit.limit()).isLessThan(AdaptiveConcurrencyLimit.INITIAL_LIMIT / 2);
    assertThat(run.served()).as("served at capacity").isGreaterThan(run.offered() / 4 - 100);
    assertThat(run.late()).as("late in the second half").isZero();
    assertThat(run.worstLatencyNanos()).isLessThan(1_000 * MS);
  }

  @Test
  void aFewLateCalls_farBelowTheLimit_changeNothing() {
    learnUnloaded(MS);

    for (int i = 0; i < 100; i++) {
      int admitted = 0;
      while (admitted < 40 && limit.tryAcquire()) {
        admitted++;
      }
      for (int c = 0; c < admitted; c++) {
        if (c % 3 == 0) {
          limit.releaseLate(100 * MS); // a third of the calls miss short deadlines
        } else {
          limit.release(MS);
        }
      }
    }

    assertThat(limit.limit()).isEqualTo(AdaptiveConcurrencyLimit.INITIAL_LIMIT);
  }

  @Test
  void aThirdLateAndTheRestJustInTime_farBelowTheLimit_bringItDown() {
    learnUnloaded(MS);

    // A queue about as long as the deadlines: a third of the calls miss them (their clients
    // cancel), the rest finish just in time, 900 times slower than unloaded.
    for (int i = 0; i < 20; i++) {
      int admitted = 0;
      while (admitted < 40 && limit.tryAcquire()) {
        admitted++;
      }
      for (int c = 0; c < admitted; c++) {
        if (c % 3 == 0) {
          limit.releaseLate(1_000 * MS);
        } else {
          limit.release(900 * MS);
        }
      }
    }

    assertThat(limit.limit()).isLessThanOrEqualTo(40);
  }

  @Test
  void oneThreadOfferedLessThanItServes_refusesNothing() {
    learnUnloaded(MS);

    Queueing run = oneThreadServer(MS, 2 * MS, 100_000);

    assertThat(run.admitted()).isEqualTo(run.offered());
    assertThat(limit.limit()).isEqualTo(AdaptiveConcurrencyLimit.INITIAL_LIMIT);
  }

  @Test
  void callsHeldOpenTogether_farBelowTheLimit_areAllAdmitted() {
    // A test or a fan-in holding 500 calls until all arrived: their latency grows with their
    // number, but they never come near the limit, so that says nothing of overload.
    learnUnloaded(MS / 2);

    for (int i = 0; i < 50; i++) {
      assertThat(round(500, inProgress -> 2_000 * MS)).as("round %s", i).isEqualTo(500);
    }
    assertThat(limit.limit()).isEqualTo(AdaptiveConcurrencyLimit.INITIAL_LIMIT);
  }

  @Test
  void fewCallsMuchSlowerThanUnloaded_busyMachineOrFailover_changeNothing() {
    learnUnloaded(MS / 3);

    for (int i = 0; i < 1_000; i++) {
      assertThat(round(12, inProgress -> 40 * MS)).isEqualTo(12);
    }
    assertThat(limit.limit()).isEqualTo(AdaptiveConcurrencyLimit.INITIAL_LIMIT);
  }

  @Test
  void nearTheLimit_aRiseWithinTheTolerance_isNoOverload() {
    learnUnloaded(MS / 4);

    // 6,000 calls (more than half the limit), 1.8 times slower: within the tolerance of twice.
    assertThat(round(6_000, inProgress -> MS * 9 / 20)).isEqualTo(6_000);

    assertThat(limit.limit()).isEqualTo(AdaptiveConcurrencyLimit.INITIAL_LIMIT);
  }

  @Test
  void nearTheLimit_aRiseOfMillisecondsOnASubMillisecondService_isOverload() {
    learnUnloaded(MS / 4);

    // 16 times slower, 4 ms: a fixed margin of 5 ms once let this pass, and with it a queue of
    // tens of calls on one core (the limit of 45 in bin/overload's run of 2026-11-27 08:15).
    round(6_000, inProgress -> 4 * MS);

    assertThat(limit.limit()).isLessThan(AdaptiveConcurrencyLimit.INITIAL_LIMIT);
  }

  @Test
  void blockingHandler_200CallsOfASleep_areAllAdmittedSoonAfterAnOverload() {
    learnUnloaded(MS);
    oneThreadServer(MS, MS / 4, 100_000);
    assertThat(limit.limit()).isLessThan(20);
    while (limit.inProgress() > 0) { // the calls the run left queued, dropped
      limit.release();
    }

    // 200 calls at a time, each sleeping 50 ms whatever their number (virtual threads): 50 times
    // the unloaded latency, which at the floor reads as queueing until a probe shows that twice
    // the calls take no longer.
    int rounds = 0;
    while (round(200, inProgress -> 50 * MS) < 200) {
      rounds++;
      assertThat(rounds).as("rounds to learn").isLessThan(60);
    }
    for (int i = 0; i < 100; i++) {
      assertThat(round(200, inProgress -> 50 * MS)).as("round %s after", i).isEqualTo(200);
    }
  }

  /**
   * About a window of calls on a core kept busy at the limit: each call that ends, having waited
   * for all those in progress ({@code costNanos} each), is replaced at once, and a call arriving
   * then is refused. The calls left in progress at the end are dropped.
   */
  private void busyWindow(long costNanos) {
    while (limit.tryAcquire()) {} // to the limit, and one more refused
    for (int i = 0; i < AdaptiveConcurrencyLimit.WINDOW; i++) {
      limit.release(limit.inProgress() * costNanos);
      while (limit.tryAcquire()) {}
    }
    while (limit.inProgress() > 0) {
      limit.release();
    }
  }

  /**
   * About a window of calls in a lull at the same load: two bursts fill the limit, with calls
   * refused beyond it, and between them pairs of calls, each waiting for the other.
   */
  private void lullWindow(long costNanos) {
    int samples = 0;
    for (int burst = 0; burst < 2; burst++) {
      int admitted = 0;
      while (limit.tryAcquire()) {
        admitted++;
      }
      for (int i = 0; i < 3; i++) {
        assertThat(limit.tryAcquire()).isFalse();
      }
      for (int i = 0; i < admitted; i++) {
        limit.release(admitted * costNanos);
      }
      samples += admitted;
    }
    while (samples < AdaptiveConcurrencyLimit.WINDOW) {
      samples += round(2, inProgress -> inProgress * costNanos);
    }
  }

  @Test
  void aSaturatedCoreRefusingCalls_staysAtItsFloorRatherThanSteppingUpInItsLulls() {
    long cost = MS / 4;
    learnUnloaded(cost);
    for (int i = 0; i < 50; i++) { // the limit comes down to its floor
      busyWindow(cost);
    }
    assertThat(limit.limit()).isEqualTo(AdaptiveConcurrencyLimit.MIN_LIMIT);

    // One core at its limit but for a lull every fourth window. A lull shows a short queue (by
    // Little's law) and grew the limit at once; then the next busy window, its calls each waiting
    // for all the others, brought it back: a step up that served no more calls, only slower.
    int windowsAbove = 0;
    for (int cycle = 0; cycle < 100; cycle++) {
      lullWindow(cost);
      for (int busy = 0; busy < 3; busy++) {
        windowsAbove += limit.limit() > AdaptiveConcurrencyLimit.MIN_LIMIT ? 1 : 0;
        busyWindow(cost);
      }
    }

    // Now a step up is a trial that goes back, and the trials come further and further apart.
    assertThat(windowsAbove).as("busy windows of 300 above the floor").isLessThan(30);
  }

  /**
   * A window of calls admitted up to the limit, {@code refusals} more refused as it began, each
   * call taking {@code latencyNanos}; calls in progress as the window closes end without a sample.
   */
  private void windowAtTheLimit(int refusals, long latencyNanos) {
    int samples = 0;
    for (int round = 0; samples < AdaptiveConcurrencyLimit.WINDOW; round++) {
      int admitted = 0;
      while (admitted < limit.limit() && limit.tryAcquire()) {
        admitted++;
      }
      for (int i = 0; round == 0 && i < refusals; i++) {
        assertThat(limit.tryAcquire()).isFalse();
      }
      for (int i = 0; i < admitted; i++) {
        if (samples < AdaptiveConcurrencyLimit.WINDOW) {
          limit.release(latencyNanos);
          samples++;
        } else {
          limit.release();
        }
      }
    }
  }

  @Test
  void aStepThatWentBack_isNotTakenAgainInTheWindowThatTookItBack() {
    long cost = MS / 4;
    learnUnloaded(cost);
    for (int i = 0; i < 50; i++) {
      busyWindow(cost);
    }
    learnUnloaded(cost); // a window far from the limit: the busy windows are no baseline
    assertThat(limit.limit()).isEqualTo(AdaptiveConcurrencyLimit.MIN_LIMIT);

    // At the floor, calls refused and none queued: a baseline of two windows, then a step on trial.
    windowAtTheLimit(5, cost);
    windowAtTheLimit(5, cost);
    assertThat(limit.limit()).isGreaterThan(AdaptiveConcurrencyLimit.MIN_LIMIT);
    windowAtTheLimit(5, cost); // its calls may have been admitted before the step: not read
    // Above it, each call 1.6 times as long and few more calls a second (by Little's law): the
    // step goes back, in a window that refused no call (which alone would let the limit grow at
    // once) and whose queue is within the allowance.
    windowAtTheLimit(5, 16 * cost / 10);
    windowAtTheLimit(0, 16 * cost / 10);

    assertThat(limit.limit()).isEqualTo(AdaptiveConcurrencyLimit.MIN_LIMIT);
  }

  @Test
  void aServiceSlowerForGood_isLearnedAndItsLimitClimbsBack() {
    learnUnloaded(MS);
    oneThreadServer(MS, MS / 4, 100_000);
    while (limit.inProgress() > 0) {
      limit.release();
    }

    // Now 1,000 calls at a time, each waiting 50 ms whatever their number (I/O, not CPU).
    int rounds = 0;
    while (round(1_000, inProgress -> 50 * MS) < 1_000) {
      rounds++;
      assertThat(rounds).as("rounds to learn").isLessThan(500);
    }
    for (int i = 0; i < 100; i++) {
      assertThat(round(1_000, inProgress -> 50 * MS)).as("round %s after", i).isEqualTo(1_000);
    }
  }

  @Test
  void recentLatency_isTheMedianOfTheLastFullWindow() {
    assertThat(limit.recentLatencyNanos()).isZero();
    for (int i = 0; i < AdaptiveConcurrencyLimit.WINDOW; i++) {
      assertThat(limit.tryAcquire()).isTrue();
      limit.release(i < AdaptiveConcurrencyLimit.WINDOW / 2 ? MS : 9 * MS);
    }
    assertThat(limit.recentLatencyNanos()).isEqualTo(9 * MS);

    assertThat(limit.tryAcquire()).isTrue();
    limit.release(); // no sample: a failed call
    assertThat(limit.recentLatencyNanos()).isEqualTo(9 * MS);
    assertThat(limit.inProgress()).isZero();
  }

  @Test
  void aSampleBelowZero_countsAsZero() {
    for (int i = 0; i < AdaptiveConcurrencyLimit.WINDOW; i++) {
      limit.tryAcquire();
      limit.release(-5);
    }
    assertThat(limit.recentLatencyNanos()).isZero();
    assertThat(limit.limit())
        .isBetween(AdaptiveConcurrencyLimit.MIN_LIMIT, AdaptiveConcurrencyLimit.MAX_LIMIT);
  }

  @Test
  void now_readsTheLimitersClock() {
    long before = limit.now();
    clock.forwardTime(3, TimeUnit.MILLISECONDS);
    assertThat(limit.now() - before).isEqualTo(3 * MS);
  }

  @Test
  void manyThreadsAtOnce_neverExceedTheLimitAndGiveEverySlotBack() throws InterruptedException {
    int threads = 8;
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> started = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread thread =
          new Thread(
              () -> {
                try {
                  go.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return;
                }
                for (int i = 0; i < 20_000; i++) {
                  if (limit.tryAcquire()) {
                    limit.release((i % 7 + 1) * MS);
                  }
                }
              });
      thread.start();
      started.add(thread);
    }
    go.countDown();
    for (Thread thread : started) {
      thread.join();
    }

    assertThat(limit.inProgress()).isZero();
    assertThat(limit.limit())
        .isBetween(AdaptiveConcurrencyLimit.MIN_LIMIT, AdaptiveConcurrencyLimit.MAX_LIMIT);
    assertThat(limit.recentLatencyNanos()).isBetween(MS, 7 * MS);
  }
}
