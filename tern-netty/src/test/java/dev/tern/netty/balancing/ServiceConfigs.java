package dev.tern.netty.balancing;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Service configs (gRFC A2/A6 JSON) for the retry and hedging tests, as an application would write
 * them for {@code ManagedChannelBuilder.defaultServiceConfigJson}. Stateless.
 */
final class ServiceConfigs {
  private ServiceConfigs() {}

  /**
   * round_robin, and for every method of {@code service} a retry policy of {@code maxAttempts}
   * attempts retrying {@code codes}, with a short back-off (10 ms, doubling, at most 100 ms) so
   * that retries do not dominate a test's run time.
   */
  static String roundRobinWithRetry(String service, int maxAttempts, String... codes) {
    return "{"
        + ROUND_ROBIN
        + ", \"methodConfig\": [{\"name\": [{\"service\": \""
        + service
        + "\"}], \"retryPolicy\": {\"maxAttempts\": "
        + maxAttempts
        + ", \"initialBackoff\": \"0.01s\", \"maxBackoff\": \"0.1s\", \"backoffMultiplier\": 2,"
        + " \"retryableStatusCodes\": "
        + codes(codes)
        + "}}]}";
  }

  /** Like {@link #roundRobinWithRetry} without a load balancing config (pick_first). */
  static String retry(String service, int maxAttempts, String... codes) {
    return roundRobinWithRetry(service, maxAttempts, codes).replace(ROUND_ROBIN + ", ", "");
  }

  /**
   * round_robin, and for every method of {@code service} a hedging policy: {@code maxAttempts}
   * attempts {@code delay} apart (a duration string such as {@code "0.05s"}), {@code nonFatal}
   * codes letting the others go on.
   */
  static String roundRobinWithHedging(
      String service, int maxAttempts, String delay, String... nonFatal) {
    return "{"
        + ROUND_ROBIN
        + ", \"methodConfig\": [{\"name\": [{\"service\": \""
        + service
        + "\"}], \"hedgingPolicy\": {\"maxAttempts\": "
        + maxAttempts
        + ", \"hedgingDelay\": \""
        + delay
        + "\", \"nonFatalStatusCodes\": "
        + codes(nonFatal)
        + "}}]}";
  }

  /** Like {@link #roundRobinWithHedging} without a load balancing config (pick_first). */
  static String hedging(String service, int maxAttempts, String delay, String... nonFatal) {
    return roundRobinWithHedging(service, maxAttempts, delay, nonFatal)
        .replace(ROUND_ROBIN + ", ", "");
  }

  private static final String ROUND_ROBIN = "\"loadBalancingConfig\": [{\"round_robin\": {}}]";

  private static String codes(String... codes) {
    return List.of(codes).stream()
        .map(c -> "\"" + c + "\"")
        .collect(Collectors.joining(", ", "[", "]"));
  }
}
