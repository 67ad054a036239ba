package dev.tern.interop;

/**
 * The settings of the soak cases ({@code rpc_soak}, {@code channel_soak}), the {@code soak_*} flags
 * of gRPC's interop test descriptions.
 *
 * @param iterations calls in all ({@code soak_iterations})
 * @param maxFailures failed iterations tolerated ({@code soak_max_failures}); an iteration fails
 *     when its call fails or takes longer than {@code maxLatencyMs}
 * @param maxLatencyMs the longest an iteration may take ({@code
 *     soak_per_iteration_max_acceptable_latency_ms})
 * @param overallTimeoutSeconds after this long no iteration starts, and the case fails if not every
 *     iteration ran ({@code soak_overall_timeout_seconds})
 * @param minTimeMsBetweenRpcs the least time from one iteration's start to the next one's on the
 *     same thread ({@code soak_min_time_ms_between_rpcs}), to limit the rate
 * @param requestSize the request payload's bytes ({@code soak_request_size})
 * @param responseSize the response payload's bytes ({@code soak_response_size})
 * @param threads threads sharing the iterations ({@code soak_num_threads})
 */
record SoakConfig(
    int iterations,
    int maxFailures,
    int maxLatencyMs,
    int overallTimeoutSeconds,
    int minTimeMsBetweenRpcs,
    int requestSize,
    int responseSize,
    int threads) {
  /** {@code soak_per_iteration_max_acceptable_latency_ms}'s default. */
  static final int DEFAULT_MAX_LATENCY_MS = 1000;

  /** {@code soak_request_size}'s default: large_unary's request. */
  static final int DEFAULT_REQUEST_SIZE = 271828;

  /** {@code soak_response_size}'s default: large_unary's response. */
  static final int DEFAULT_RESPONSE_SIZE = 314159;

  SoakConfig {
    positive("soak_iterations", iterations);
    notNegative("soak_max_failures", maxFailures);
    positive("soak_per_iteration_max_acceptable_latency_ms", maxLatencyMs);
    positive("soak_overall_timeout_seconds", overallTimeoutSeconds);
    notNegative("soak_min_time_ms_between_rpcs", minTimeMsBetweenRpcs);
    notNegative("soak_request_size", requestSize);
    notNegative("soak_response_size", responseSize);
    positive("soak_num_threads", threads);
    if (threads > iterations) {
      throw new IllegalArgumentException(
          "soak_num_threads ("
              + threads
              + ") must not exceed soak_iterations ("
              + iterations
              + ")");
    }
  }

  /**
   * {@code iterations} calls with every other flag at its default: no failure tolerated, 1 s per
   * iteration, an overall timeout of {@code iterations} times that, large_unary's sizes, one
   * thread.
   */
  static SoakConfig ofIterations(int iterations) {
    return new SoakConfig(
        iterations,
        0,
        DEFAULT_MAX_LATENCY_MS,
        defaultOverallTimeoutSeconds(iterations, DEFAULT_MAX_LATENCY_MS),
        0,
        DEFAULT_REQUEST_SIZE,
        DEFAULT_RESPONSE_SIZE,
        1);
  }

  /** The overall timeout when none is given: every iteration at its latency bound. */
  static int defaultOverallTimeoutSeconds(int iterations, int maxLatencyMs) {
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (long) iterations * maxLatencyMs / 1000));
  }

  private static void positive(String flag, int value) {
    if (value < 1) {
      throw new IllegalArgumentException(flag + " must be >= 1, was " + value);
    }
  }

  private static void notNegative(String flag, int value) {
    if (value < 0) {
      throw new IllegalArgumentException(flag + " must be >= 0, was " + value);
    }
  }
}
