package dev.tern.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.internal.server.OneCoreServerModel.Step;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 49's targets for the adaptive limit, in {@link OneCoreServerModel}: bin/overload's steps (a
 * closed loop of 32 calls, 0.1x for the unloaded p99, then 1x to 5x of capacity, 10 s each, Poisson
 * arrivals, 1 s deadlines) on one core, on a fake clock. The figures are the model's, not a
 * measurement; {@code bin/overload} measures the real server.
 */
class AdaptiveLimitModelTest {
  private static final long STEP = TimeUnit.SECONDS.toNanos(10);

  /** A seed's run with the adaptive limit and with {@code maxConcurrentCalls=4} by hand. */
  private record Runs(List<Step> adaptive, List<Step> byHand, double capacity) {}

  /** Each seed's runs, made once for the tests that read them. */
  private static final Map<Long, Runs> RUNS = new ConcurrentHashMap<>();

  private static Runs runs(long seed) {
    return RUNS.computeIfAbsent(
        seed,
        s -> {
          OneCoreServerModel model = OneCoreServerModel.overloadsWorkload(s);
          return new Runs(
              overloadRun(model),
              overloadRun(OneCoreServerModel.overloadsWorkload(s).withFixedLimit(4)),
              model.capacityPerSecond());
        });
  }

  /** The steps of bin/overload on {@code model}, then 0.5x and 1.5x again: the unloaded first. */
  private static List<Step> overloadRun(OneCoreServerModel model) {
    model.closedLoop(32, STEP / 2);
    List<Step> steps = new ArrayList<>();
    for (double multiple : new double[] {0.1, 1, 1.5, 2, 3, 5, 0.5, 1.5}) {
      steps.add(model.openLoop(multiple, STEP));
    }
    return steps;
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3})
  void fromOneAndAHalfToFiveTimesCapacity_servesNearCapacityWithAShortQueue(long seed) {
    List<Step> steps = runs(seed).adaptive();
    long unloadedP99 = steps.get(0).p99Nanos();
    double capacity = runs(seed).capacity();

    for (Step step : steps.subList(2, 6)) {
      assertThat(step.goodputPerSecond()).as("goodput, %s", step).isGreaterThan(0.85 * capacity);
      assertThat(step.p99Nanos())
          .as("p99 within 3x unloaded, %s", step)
          .isLessThan(3 * unloadedP99);
      assertThat(step.late()).as("late, %s", step).isZero();
      // Near the knee: the hand-tuned 4 of bin/overload, a few more, twice that while it probes;
      // not the tens to hundreds a fixed margin of 5 ms let queue.
      assertThat(step.medianLimit()).as("settled limit, %s", step).isBetween(4, 10);
      assertThat(step.maxLimit()).as("highest limit, %s", step).isLessThanOrEqualTo(20);
    }
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3})
  void withinTenPercentOfMaxConcurrentCallsTunedByHand(long seed) {
    List<Step> adaptive = runs(seed).adaptive();
    List<Step> byHand = runs(seed).byHand();

    for (int i = 2; i < 6; i++) {
      assertThat(adaptive.get(i).goodputPerSecond())
          .as("%s against %s", adaptive.get(i), byHand.get(i))
          .isGreaterThan(0.9 * byHand.get(i).goodputPerSecond());
    }
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3})
  void afterTheLoadDrops_refusesAlmostNothingAndSettlesAgainUnderTheNextOverload(long seed) {
    List<Step> steps = runs(seed).adaptive();

    Step half = steps.get(6);
    assertThat(half.refused())
        .as("refused at 0.5x after 5x, %s", half)
        .isLessThan(half.offered() / 100);
    assertThat(half.ok()).as("%s", half).isGreaterThan(half.offered() * 99 / 100);
    Step again = steps.get(7);
    assertThat(again.goodputPerSecond())
        .as("%s", again)
        .isGreaterThan(0.85 * runs(seed).capacity());
    assertThat(again.p99Nanos()).as("%s", again).isLessThan(3 * steps.get(0).p99Nanos());
  }

  /**
   * A cold limit (its first overload, straight from the unloaded step) at 1.5x, 3x and 5x, counted
   * over the whole step: the queue that builds before the cut is in it. The model's p99 over the
   * whole step was 48-54 ms at 1.5x, 140-173 ms at 3x and 462-539 ms at 5x while the limit read a
   * queue from its calls' latencies as they ended and asked it to grow over two spans of 8 windows;
   * now 20-24, 4-19 and 81-104 ms (the unloaded p99 is about 2.3 ms; the cut must let a queue of
   * about a twentieth of the 1 s deadline build first, and at 5x the calls it admitted by then take
   * 100 ms to drain).
   */
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3})
  void aColdLimitFacingItsFirstOverload_cutsTheQueueWithinAFewWindows(long seed) {
    double[] multiples = {1.5, 3, 5};
    long[] bounds = {
      35 * OneCoreServerModel.MS, 35 * OneCoreServerModel.MS, 130 * OneCoreServerModel.MS
    };
    for (int i = 0; i < multiples.length; i++) {
      OneCoreServerModel model = OneCoreServerModel.overloadsWorkload(seed);
      model.closedLoop(32, STEP / 2);
      model.openLoop(0.1, STEP);

      Step first = model.openLoop(multiples[i], STEP, 0);

      assertThat(first.late()).as("late, %s", first).isZero();
      assertThat(first.goodputPerSecond())
          .as("goodput, %s", first)
          .isGreaterThan(0.85 * model.capacityPerSecond());
      assertThat(first.p99Nanos()).as("p99, %s", first).isLessThan(bounds[i]);
    }
  }

  /**
   * bin/overload's mixed workload (one call in 10 nine times the cost of the others): a window of
   * 32 calls holds 3 expensive ones give or take 2, so one window looks slow by chance, and a probe
   * that took such a window for its baseline found the next ones faster and read the queue as a
   * slower service. In the model seeds 3 and 6 did (the limit's median 11 and 15, its highest 37
   * and 25); the real server at 3x, with a p99 4.6 times the unloaded one.
   */
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5, 6})
  void aMixOfCheapAndExpensiveCalls_isNeverTakenForASlowerService(long seed) {
    OneCoreServerModel model = OneCoreServerModel.mixedWorkload(seed);
    List<Step> steps = overloadRun(model);
    long unloadedP99 = steps.get(0).p99Nanos();

    for (int i : new int[] {2, 3, 4, 5, 7}) { // 1.5x to 5x, and 1.5x after 0.5x
      Step step = steps.get(i);
      assertThat(step.medianLimit()).as("settled limit, %s", step).isBetween(4, 10);
      assertThat(step.maxLimit()).as("highest limit, %s", step).isLessThanOrEqualTo(20);
      assertThat(step.p99Nanos()).as("p99, %s", step).isLessThan(3 * unloadedP99);
      assertThat(step.goodputPerSecond())
          .as("goodput, %s", step)
          .isGreaterThan(0.85 * model.capacityPerSecond());
    }
  }
}
