package dev.tern.internal.server;

import dev.tern.testing.FakeClock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * A model of {@code bin/overload}'s server on one core, to tune {@link AdaptiveConcurrencyLimit}
 * against without real time: a discrete-event simulation on a {@link FakeClock}. Not a measurement;
 * what it leaves out is listed below.
 *
 * <p>The server: one core runs the handlers first come, first served, each call taking {@code
 * serviceNanos} of CPU with a seeded jitter (uniform within {@link #JITTER} either way, and one
 * call in {@link #STALL_ONE_IN} {@link #STALL_TIMES} as long: a collection, a page fault). The
 * event loop shares the core and runs first: each call that arrives costs {@code eventLoopNanos} of
 * it (reading the request, writing the response), each refused call {@code refusalNanos}, and that
 * time delays the handler running then. An admitted call's sample for the limit is, as in {@link
 * ServerCallImpl}, its time from arrival (its request received) to its handler's end; a call whose
 * deadline passes while it waits is cancelled by its client then and never runs ({@link
 * AdaptiveConcurrencyLimit#releaseLate}); one whose deadline passes while it runs ends late.
 *
 * <p>The client, as {@code bin/overload}'s: open-loop Poisson arrivals (seeded) at a multiple of
 * the model's capacity, each call with a 1 s deadline; before the open steps, a closed loop of 32
 * calls in flight (its capacity step) and a step at 0.1x whose p99 is the unloaded one. A call's
 * latency as its client sees it adds a network and client delay (a fixed part and an exponential
 * one, seeded) that does not queue on the server's core (the client has its own).
 *
 * <p>Left out: the kernel's and the event loop's own queues (the model's event loop keeps up with
 * any load), HTTP/2 flow control, garbage collection other than the stalls, other processes.
 *
 * <p>Not thread-safe: one test thread drives it.
 */
final class OneCoreServerModel {
  static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
  static final long US = TimeUnit.MICROSECONDS.toNanos(1);

  /** Each call's CPU varies by up to this fraction either way. */
  static final double JITTER = 0.2;

  /** One call in this many stalls. */
  static final int STALL_ONE_IN = 1_000;

  /** A stalled call takes this many times its CPU. */
  static final int STALL_TIMES = 8;

  static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** What a step of the run saw in its second half (once settled). */
  record Step(
      double multiple,
      int offered,
      int ok,
      int refused,
      int late,
      double goodputPerSecond,
      long p99Nanos,
      long serverP99Nanos,
      int medianLimit,
      int maxLimit) {
    @Override
    public String toString() {
      return String.format(
          "%.1fx: offered %d, OK %d (%.0f/s), refused %d, late %d, p99 %.2f ms (server %.2f ms),"
              + " limit median %d max %d",
          multiple,
          offered,
          ok,
          goodputPerSecond,
          refused,
          late,
          p99Nanos / (double) MS,
          serverP99Nanos / (double) MS,
          medianLimit,
          maxLimit);
    }
  }

  private final FakeClock clock = new FakeClock();
  private final AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(clock.getTicker());
  private final Random random;
  private final long serviceNanos;
  private final long eventLoopNanos;
  private final long refusalNanos;
  private final long networkFixedNanos;
  private final long networkMeanNanos;

  /** A bound by hand ({@code maxConcurrentCalls}) instead of the adaptive limit; 0: none. */
  private int fixedLimit;

  /** One call in this many is expensive; 0: none is. */
  private int expensiveOneIn;

  /** An expensive call takes this many times a cheap one's CPU. */
  private int expensiveTimes = 1;

  /** Admitted calls, in arrival order; the first is running when {@link #running}. */
  private final ArrayDeque<Call> queue = new ArrayDeque<>();

  private boolean running;

  /** When the running call's handler ends. */
  private long runningEnds;

  // What the step being run records (only in its second half).
  private boolean recording;
  private int offered;
  private int ok;
  private int refused;
  private int late;
  private final Samples latencies = new Samples();
  private final Samples serverLatencies = new Samples();
  private final Samples limits = new Samples();

  /** A growing array of numbers, unboxed. */
  private static final class Samples {
    private long[] values = new long[1024];
    private int size;

    void add(long value) {
      if (size == values.length) {
        values = Arrays.copyOf(values, 2 * size);
      }
      values[size++] = value;
    }

    void clear() {
      size = 0;
    }

    /** The value at {@code quantile} (0 to 1) of those added; {@code empty} if none. */
    long quantile(double quantile, long empty) {
      if (size == 0) {
        return empty;
      }
      long[] sorted = Arrays.copyOf(values, size);
      Arrays.sort(sorted);
      return sorted[Math.max(0, (int) Math.ceil(size * quantile) - 1)];
    }
  }

  private static final class Call {
    final long arrival;
    final long cpu;
    final long network;

    /** The adaptive limit's calls in progress as it was admitted, itself among them. */
    final int atStart;

    Call(long arrival, long cpu, long network, int atStart) {
      this.arrival = arrival;
      this.cpu = cpu;
      this.network = network;
      this.atStart = atStart;
    }
  }

  /**
   * A model server.
   *
   * @param serviceNanos a handler's mean CPU per call
   * @param eventLoopNanos the event loop's CPU per admitted call
   * @param refusalNanos the event loop's CPU per refused call
   * @param networkFixedNanos the network and client delay's fixed part
   * @param networkMeanNanos the mean of its exponential part
   * @param seed for the arrivals and the jitter
   */
  OneCoreServerModel(
      long serviceNanos,
      long eventLoopNanos,
      long refusalNanos,
      long networkFixedNanos,
      long networkMeanNanos,
      long seed) {
    this.serviceNanos = serviceNanos;
    this.eventLoopNanos = eventLoopNanos;
    this.refusalNanos = refusalNanos;
    this.networkFixedNanos = networkFixedNanos;
    this.networkMeanNanos = networkMeanNanos;
    this.random = new Random(seed);
  }

  /** bin/overload's call on a quiet machine's core: 0.25 ms of handler, 25 us of event loop. */
  static OneCoreServerModel overloadsWorkload(long seed) {
    return new OneCoreServerModel(250 * US, 25 * US, 5 * US, 300 * US, 350 * US, seed);
  }

  /**
   * bin/overload's mixed workload: cheap calls of 70 us of handler and, one in 10, expensive ones
   * of nine times that, so half the CPU goes to each (about 6,800 calls a second, as measured).
   */
  static OneCoreServerModel mixedWorkload(long seed) {
    OneCoreServerModel model =
        new OneCoreServerModel(70 * US, 25 * US, 5 * US, 300 * US, 350 * US, seed);
    model.expensiveOneIn = 10;
    model.expensiveTimes = 9;
    return model;
  }

  /** The calls a second the core serves when always busy: the reference of every step's load. */
  double capacityPerSecond() {
    double mix = expensiveOneIn == 0 ? 1 : 1 + (expensiveTimes - 1) / (double) expensiveOneIn;
    double meanCpu =
        serviceNanos * mix * (1 + (STALL_TIMES - 1) / (double) STALL_ONE_IN) + eventLoopNanos;
    return TimeUnit.SECONDS.toNanos(1) / meanCpu;
  }

  AdaptiveConcurrencyLimit limit() {
    return limit;
  }

  /** Admits by {@code maxConcurrentCalls} calls in progress, as set by hand, not the limit. */
  OneCoreServerModel withFixedLimit(int maxConcurrentCalls) {
    this.fixedLimit = maxConcurrentCalls;
    return this;
  }

  private boolean admit() {
    return fixedLimit > 0 ? queue.size() < fixedLimit : limit.tryAcquire();
  }

  private int limitNow() {
    return fixedLimit > 0 ? fixedLimit : limit.limit();
  }

  private void releaseLate() {
    if (fixedLimit == 0) {
      limit.releaseLate(DEADLINE_NANOS);
    }
  }

  private void release(long latencyNanos, int atStart) {
    if (fixedLimit == 0) {
      limit.release(latencyNanos, DEADLINE_NANOS, atStart);
    }
  }

  /** A closed loop of {@code inFlight} calls for {@code nanos}, as bin/overload's capacity step. */
  void closedLoop(int inFlight, long nanos) {
    long end = clock.currentTimeNanos() + nanos;
    PriorityQueue<Long> next = new PriorityQueue<>();
    for (int i = 0; i < inFlight; i++) {
      next.add(clock.currentTimeNanos());
    }
    while (true) {
      long arrival = next.isEmpty() ? Long.MAX_VALUE : next.peek();
      if (advanceOne(Math.min(arrival, end))) {
        // Each call that ended has its client start the next after the network's round trip.
        for (long ended : ended) {
          next.add(ended + delay());
        }
        ended.clear();
        continue;
      }
      if (arrival >= end) {
        break;
      }
      next.poll();
      forwardTo(arrival);
      if (!arrive(arrival)) {
        next.add(arrival + delay());
      }
    }
    drain();
  }

  /** When the calls ended since last cleared: a closed loop's clients start their next then. */
  private final List<Long> ended = new ArrayList<>();

  /**
   * Open-loop Poisson arrivals at {@code multiple} times {@link #capacityPerSecond} for {@code
   * nanos}; the second half recorded.
   */
  Step openLoop(double multiple, long nanos) {
    return openLoop(multiple, nanos, nanos / 2);
  }

  /**
   * Open-loop Poisson arrivals at {@code multiple} times {@link #capacityPerSecond} for {@code
   * nanos}, recorded from {@code unrecordedNanos} on: 0 for the whole step, with the limit's first
   * overload in it.
   */
  Step openLoop(double multiple, long nanos, long unrecordedNanos) {
    long start = clock.currentTimeNanos();
    long end = start + nanos;
    double gap = TimeUnit.SECONDS.toNanos(1) / (multiple * capacityPerSecond());
    resetRecording();
    long arrival = start;
    while (true) {
      arrival += (long) (-Math.log(1 - random.nextDouble()) * gap);
      if (arrival >= end) {
        break;
      }
      recording = arrival >= start + unrecordedNanos;
      advanceTo(arrival);
      arrive(arrival);
      ended.clear();
      if (recording) {
        limits.add(limitNow());
      }
    }
    recording = true;
    advanceTo(end);
    recording = false;
    drain();
    return step(multiple, nanos - unrecordedNanos);
  }

  private void resetRecording() {
    offered = 0;
    ok = 0;
    refused = 0;
    late = 0;
    latencies.clear();
    serverLatencies.clear();
    limits.clear();
  }

  private Step step(double multiple, long recordedNanos) {
    return new Step(
        multiple,
        offered,
        ok,
        refused,
        late,
        ok / (recordedNanos / (double) TimeUnit.SECONDS.toNanos(1)),
        latencies.quantile(0.99, 0),
        serverLatencies.quantile(0.99, 0),
        (int) limits.quantile(0.5, limitNow()),
        (int) limits.quantile(1, limitNow()));
  }

  private long delay() {
    return networkFixedNanos + (long) (-Math.log(1 - random.nextDouble()) * networkMeanNanos);
  }

  private long cpu() {
    long cpu = (long) (serviceNanos * (1 - JITTER + 2 * JITTER * random.nextDouble()));
    if (expensiveOneIn > 0 && random.nextInt(expensiveOneIn) == 0) {
      cpu *= expensiveTimes;
    }
    return random.nextInt(STALL_ONE_IN) == 0 ? cpu * STALL_TIMES : cpu;
  }

  /**
   * A call arrives at the clock's time: the event loop reads it and the limit admits it or not.
   *
   * @return whether it was admitted
   */
  private boolean arrive(long now) {
    if (recording) {
      offered++;
    }
    if (!admit()) {
      if (recording) {
        refused++;
      }
      useEventLoop(now, refusalNanos);
      return false;
    }
    queue.add(new Call(now, cpu(), delay(), limit.inProgress()));
    useEventLoop(now, eventLoopNanos);
    if (!running) {
      startHead(now);
    }
    return true;
  }

  /** The event loop takes the core first: the running handler ends that much later. */
  private void useEventLoop(long now, long nanos) {
    if (running) {
      runningEnds += nanos;
    } else {
      idleUntil = Math.max(idleUntil, now) + nanos;
    }
  }

  /** When the core is free of event-loop work while no handler runs. */
  private long idleUntil;

  private void startHead(long now) {
    // Calls whose deadline passed while they waited were cancelled by their clients already.
    Call head = queue.peek();
    running = true;
    runningEnds = Math.max(now, idleUntil) + head.cpu;
  }

  /** Runs the core until {@code time}: handlers end, waiting calls' clients cancel. */
  private void advanceTo(long time) {
    while (advanceOne(time)) {}
    forwardTo(time);
  }

  /** Runs the core's next event if it comes no later than {@code time}; false if none does. */
  private boolean advanceOne(long time) {
    long cancelAt = Long.MAX_VALUE;
    Call firstWaiting = waitingHead();
    if (firstWaiting != null) {
      cancelAt = firstWaiting.arrival + DEADLINE_NANOS;
    }
    long endAt = running ? runningEnds : Long.MAX_VALUE;
    long next = Math.min(cancelAt, endAt);
    if (next > time) {
      return false;
    }
    forwardTo(next);
    if (cancelAt < endAt) {
      cancelFirstWaiting(next);
    } else {
      endRunning(endAt);
    }
    return true;
  }

  private Call waitingHead() {
    if (queue.size() < 2) {
      return null;
    }
    var it = queue.iterator();
    it.next();
    return it.next();
  }

  private void cancelFirstWaiting(long now) {
    Call head = queue.poll();
    queue.poll();
    queue.addFirst(head);
    lateCall(now);
  }

  private void lateCall(long now) {
    releaseLate();
    ended.add(now);
    if (recording) {
      late++;
    }
  }

  private void endRunning(long now) {
    Call call = queue.poll();
    running = false;
    long latency = now - call.arrival;
    if (latency >= DEADLINE_NANOS) {
      lateCall(now);
    } else {
      ended.add(now);
      release(latency, call.atStart);
      if (recording) {
        ok++;
        latencies.add(latency + call.network);
        serverLatencies.add(latency);
      }
    }
    // The head's own deadline may have passed while it waited behind this one.
    while (!queue.isEmpty() && now - queue.peek().arrival >= DEADLINE_NANOS) {
      queue.poll();
      lateCall(now);
    }
    if (!queue.isEmpty()) {
      startHead(now);
    }
  }

  private void forwardTo(long time) {
    long now = clock.currentTimeNanos();
    if (time > now) {
      clock.forwardNanos(time - now);
    }
  }

  /** Lets the admitted calls end, recording nothing: the next step starts with an empty queue. */
  private void drain() {
    boolean was = recording;
    recording = false;
    while (running) {
      advanceTo(runningEnds);
    }
    recording = was;
    ended.clear();
  }
}
