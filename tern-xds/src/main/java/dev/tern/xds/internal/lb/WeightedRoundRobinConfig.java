package dev.tern.xds.internal.lb;

import java.time.Duration;
import java.util.Map;

/**
 * {@code weighted_round_robin}'s config (gRFC A58), grpc-java's JSON: {@code
 * {"enableOobLoadReport": false, "oobReportingPeriod": "10s", "blackoutPeriod": "10s",
 * "weightExpirationPeriod": "180s", "weightUpdatePeriod": "1s", "errorUtilizationPenalty": 1.0}},
 * those being the defaults of absent fields. A {@code weightUpdatePeriod} under 100 ms is raised to
 * 100 ms; a negative {@code errorUtilizationPenalty} or a malformed duration is an error naming the
 * field. Immutable; thread-safe.
 */
record WeightedRoundRobinConfig(
    boolean enableOobLoadReport,
    long oobReportingPeriodNanos,
    long blackoutPeriodNanos,
    long weightExpirationPeriodNanos,
    long weightUpdatePeriodNanos,
    double errorUtilizationPenalty) {
  static final Duration MIN_WEIGHT_UPDATE_PERIOD = Duration.ofMillis(100);

  static final WeightedRoundRobinConfig DEFAULT = parse(Map.of());

  static WeightedRoundRobinConfig parse(Map<String, ?> raw) {
    JsonConfig json = new JsonConfig(WeightedRoundRobinProvider.NAME, raw);
    double penalty = json.number("errorUtilizationPenalty", 1.0);
    if (penalty < 0) {
      throw json.error("errorUtilizationPenalty", "must be at least 0, was " + penalty);
    }
    Duration update = json.duration("weightUpdatePeriod", Duration.ofSeconds(1));
    if (update.compareTo(MIN_WEIGHT_UPDATE_PERIOD) < 0) {
      update = MIN_WEIGHT_UPDATE_PERIOD;
    }
    return new WeightedRoundRobinConfig(
        json.bool("enableOobLoadReport"),
        nanos(json.duration("oobReportingPeriod", Duration.ofSeconds(10))),
        nanos(json.duration("blackoutPeriod", Duration.ofSeconds(10))),
        nanos(json.duration("weightExpirationPeriod", Duration.ofMinutes(3))),
        nanos(update),
        penalty);
  }

  private static long nanos(Duration duration) {
    return duration.compareTo(Duration.ofDays(365)) > 0
        ? Duration.ofDays(365).toNanos()
        : duration.toNanos();
  }
}
