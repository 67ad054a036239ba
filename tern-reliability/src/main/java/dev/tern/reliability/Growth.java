package dev.tern.reliability;

import java.util.List;

/**
 * Whether a sampled quantity grows over a soak: the least-squares slope of its samples (after
 * warm-up) times the span they cover, against a tolerance of {@code max(floor, fraction × the first
 * value)}. A slope, not the last minus the first, so that one noisy sample (a GC that ran late, a
 * connection being replaced) neither hides nor fakes a trend.
 *
 * @param floor the growth always tolerated, in the metric's unit
 * @param fraction the growth tolerated relative to the first sample
 */
record Growth(double floor, double fraction) {
  /**
   * The tolerance of each metric of {@link ResourceSample}. Threads get a floor of 4: thread pools
   * (a cached executor, an event loop group's lazily started loops) grow to their peak concurrency,
   * which a short run may still be reaching; a leak grows without end, which a long run shows.
   */
  static Growth of(ResourceSample.Metric metric) {
    return switch (metric) {
      case HEAP -> new Growth(8 * 1024 * 1024, 0.2);
      case RSS -> new Growth(32 * 1024 * 1024, 0.2);
      case THREADS -> new Growth(4, 0.1);
      case FDS -> new Growth(4, 0.1);
    };
  }

  /** The growth tolerated over a run whose first sample is {@code first}. */
  double tolerance(double first) {
    return Math.max(floor, fraction * first);
  }

  /**
   * The least-squares slope of {@code values} over {@code seconds} (same length, at least 2
   * distinct times), in units per second.
   */
  static double slope(List<Double> seconds, List<Double> values) {
    if (seconds.size() != values.size() || seconds.size() < 2) {
      throw new IllegalArgumentException(
          "slope needs at least 2 samples and as many times as values, had "
              + seconds.size()
              + " times and "
              + values.size()
              + " values");
    }
    int n = seconds.size();
    double meanX = seconds.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
    double meanY = values.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
    double covariance = 0;
    double variance = 0;
    for (int i = 0; i < n; i++) {
      double dx = seconds.get(i) - meanX;
      covariance += dx * (values.get(i) - meanY);
      variance += dx * dx;
    }
    if (variance == 0) {
      throw new IllegalArgumentException("slope needs at least 2 distinct times");
    }
    return covariance / variance;
  }

  /** The growth over the samples: their slope times the time they span. */
  static double over(List<Double> seconds, List<Double> values) {
    return slope(seconds, values) * (seconds.get(seconds.size() - 1) - seconds.get(0));
  }
}
