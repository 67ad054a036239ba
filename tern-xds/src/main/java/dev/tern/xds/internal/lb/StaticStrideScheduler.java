package dev.tern.xds.internal.lb;

import java.util.concurrent.atomic.AtomicLong;

/**
 * gRFC A58's static stride scheduler: picks index {@code i} of {@code n} in proportion to its
 * weight, lock-free. Weights are scaled so that the largest is {@link #MAX_WEIGHT}; an index
 * without a weight (0) gets the mean of the others, and when none has one all are equal (round
 * robin). A shared sequence walks the indices in turn; in generation {@code g} (one walk) index
 * {@code i} is taken when {@code (w_i * g + offset_i) mod MAX_WEIGHT >= MAX_WEIGHT - w_i}, which
 * holds in {@code w_i} of every {@code MAX_WEIGHT} generations, spread evenly. The largest weight
 * is always taken, so a pick ends within one walk.
 *
 * <p>Immutable but for the sequence; thread-safe.
 */
final class StaticStrideScheduler {
  static final int MAX_WEIGHT = 0xFFFF;

  private final int[] scaledWeights;
  private final AtomicLong sequence;

  /**
   * @param weights one per index, each non-negative (0: no weight yet)
   * @param start where the sequence starts (random, so that clients do not move in step)
   */
  StaticStrideScheduler(double[] weights, long start) {
    if (weights.length == 0) {
      throw new IllegalArgumentException("weights: must not be empty");
    }
    double max = 0;
    double sum = 0;
    int weighted = 0;
    for (double weight : weights) {
      if (weight > 0) {
        max = Math.max(max, weight);
        sum += weight;
        weighted++;
      }
    }
    scaledWeights = new int[weights.length];
    double mean = weighted == 0 ? 1 : sum / weighted;
    if (weighted == 0) {
      max = 1;
    }
    double scale = MAX_WEIGHT / max;
    for (int i = 0; i < weights.length; i++) {
      double weight = weights[i] > 0 ? weights[i] : mean;
      scaledWeights[i] = (int) Math.max(1, Math.min(MAX_WEIGHT, Math.round(weight * scale)));
    }
    sequence = new AtomicLong(start & Long.MAX_VALUE);
  }

  /** The next index. */
  int pick() {
    int n = scaledWeights.length;
    while (true) {
      long seq = sequence.getAndIncrement() & Long.MAX_VALUE;
      int index = (int) (seq % n);
      long generation = (seq / n) % MAX_WEIGHT; // kept small: no overflow below
      int weight = scaledWeights[index];
      long offset = (long) (MAX_WEIGHT / 2) * index % MAX_WEIGHT;
      long position = (weight * generation + offset) % MAX_WEIGHT;
      if (position >= MAX_WEIGHT - weight) {
        return index;
      }
    }
  }

  /** The scaled weights, for tests. */
  int[] scaledWeights() {
    return scaledWeights.clone();
  }
}
