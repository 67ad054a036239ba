package dev.tern.xds.internal.lb;

import dev.tern.xds.XdsCluster;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * {@code outlier_detection_experimental}'s config (gRFC A50): {@code {"interval": "10s",
 * "baseEjectionTime": "30s", "maxEjectionTime": "300s", "maxEjectionPercent": 10,
 * "successRateEjection": {"stdevFactor": 1900, "enforcementPercentage": 100, "minimumHosts": 5,
 * "requestVolume": 100}, "failurePercentageEjection": {"threshold": 85, "enforcementPercentage":
 * 100, "minimumHosts": 5, "requestVolume": 50}, "childPolicy": [...]}}; durations as protobuf JSON
 * durations ({@code "1.5s"}), absent fields take those defaults, and an absent ejection object
 * turns that algorithm off. Immutable; thread-safe.
 */
record OutlierDetectionConfig(XdsCluster.OutlierDetection detection, ChildPolicy childPolicy) {

  OutlierDetectionConfig {
    Objects.requireNonNull(detection, "detection");
    Objects.requireNonNull(childPolicy, "childPolicy");
  }

  /** Whether an ejection algorithm is on (else calls are not even counted). */
  boolean counting() {
    return detection.successRate() != null || detection.failurePercentage() != null;
  }

  static OutlierDetectionConfig parse(Map<String, ?> raw) {
    JsonConfig json = new JsonConfig(OutlierDetectionProvider.NAME, raw);
    return new OutlierDetectionConfig(
        parseDetection(json),
        ChildPolicy.select(json, "childPolicy", json.list("childPolicy", true)));
  }

  /**
   * The config's fields but {@code childPolicy}, as the cluster resolver's mechanisms carry them.
   */
  static XdsCluster.OutlierDetection parseDetection(JsonConfig json) {
    Duration interval = json.duration("interval", Duration.ofSeconds(10));
    if (interval.isZero()) {
      throw json.error("interval", "must be positive");
    }
    XdsCluster.SuccessRateEjection successRate = null;
    if (json.has("successRateEjection")) {
      JsonConfig part =
          json.nested("successRateEjection", json.object("successRateEjection", true));
      successRate =
          new XdsCluster.SuccessRateEjection(
              count(part, "successRateEjection.", "stdevFactor", 1900),
              percent(part, "successRateEjection.", "enforcementPercentage", 100),
              count(part, "successRateEjection.", "minimumHosts", 5),
              count(part, "successRateEjection.", "requestVolume", 100));
    }
    XdsCluster.FailurePercentageEjection failurePercentage = null;
    if (json.has("failurePercentageEjection")) {
      JsonConfig part =
          json.nested("failurePercentageEjection", json.object("failurePercentageEjection", true));
      failurePercentage =
          new XdsCluster.FailurePercentageEjection(
              percent(part, "failurePercentageEjection.", "threshold", 85),
              percent(part, "failurePercentageEjection.", "enforcementPercentage", 100),
              count(part, "failurePercentageEjection.", "minimumHosts", 5),
              count(part, "failurePercentageEjection.", "requestVolume", 50));
    }
    return new XdsCluster.OutlierDetection(
        interval,
        json.duration("baseEjectionTime", Duration.ofSeconds(30)),
        json.duration("maxEjectionTime", Duration.ofSeconds(300)),
        percent(json, "", "maxEjectionPercent", 10),
        successRate,
        failurePercentage);
  }

  private static int count(JsonConfig json, String prefix, String field, int fallback) {
    return (int) Math.min(wholeNumber(json, prefix, field, fallback), Integer.MAX_VALUE);
  }

  private static int percent(JsonConfig json, String prefix, String field, int fallback) {
    long value = wholeNumber(json, prefix, field, fallback);
    if (value > 100) {
      throw json.error(prefix + field, "must be at most 100, was " + value);
    }
    return (int) value;
  }

  /** The number, with an error naming the field by its whole path. */
  private static long wholeNumber(JsonConfig json, String prefix, String field, int fallback) {
    try {
      return json.wholeNumber(field, fallback);
    } catch (IllegalArgumentException e) {
      throw json.error(prefix + field, "must be a non-negative integer");
    }
  }
}
