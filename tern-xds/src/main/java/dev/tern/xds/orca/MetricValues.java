package dev.tern.xds.orca;

import com.github.xds.data.orca.v3.OrcaLoadReport;
import java.util.Map;
import java.util.TreeMap;

/**
 * The values of one ORCA report as they are recorded, checked as A51 and the report's proto
 * require. Not thread-safe: its owners ({@link CallMetricRecorder}, {@link MetricRecorder}) lock
 * around it.
 */
final class MetricValues {
  private double cpu = -1;
  private double memory = -1;
  private double application = -1;
  private double qps = -1;
  private double eps = -1;
  private final Map<String, Double> utilization = new TreeMap<>();
  private final Map<String, Double> requestCost = new TreeMap<>();
  private final Map<String, Double> named = new TreeMap<>();

  void cpu(double value) {
    cpu = nonNegative("cpuUtilization", value);
  }

  void memory(double value) {
    memory = fraction("memoryUtilization", value);
  }

  void application(double value) {
    application = nonNegative("applicationUtilization", value);
  }

  void qps(double value) {
    qps = nonNegative("qps", value);
  }

  void eps(double value) {
    eps = nonNegative("eps", value);
  }

  void utilization(String name, double value) {
    utilization.put(name(name), fraction("utilization", value));
  }

  void removeUtilization(String name) {
    utilization.remove(name);
  }

  void requestCost(String name, double value) {
    requestCost.put(name(name), finite("requestCost", value));
  }

  void named(String name, double value) {
    named.put(name(name), finite("namedMetric", value));
  }

  /**
   * Copies the values set here into {@code report}, over the ones it has (map entries merged, the
   * ones set here winning).
   */
  void writeTo(OrcaLoadReport.Builder report) {
    if (cpu >= 0) {
      report.setCpuUtilization(cpu);
    }
    if (memory >= 0) {
      report.setMemUtilization(memory);
    }
    if (application >= 0) {
      report.setApplicationUtilization(application);
    }
    if (qps >= 0) {
      report.setRpsFractional(qps);
    }
    if (eps >= 0) {
      report.setEps(eps);
    }
    report.putAllUtilization(utilization);
    report.putAllRequestCost(requestCost);
    report.putAllNamedMetrics(named);
  }

  private static String name(String name) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("name: must be a non-empty string");
    }
    return name;
  }

  private static double finite(String argument, double value) {
    if (!Double.isFinite(value)) {
      throw new IllegalArgumentException(argument + ": must be finite, was " + value);
    }
    return value;
  }

  private static double nonNegative(String argument, double value) {
    if (!(finite(argument, value) >= 0)) {
      throw new IllegalArgumentException(argument + ": must be at least 0, was " + value);
    }
    return value;
  }

  private static double fraction(String argument, double value) {
    if (nonNegative(argument, value) > 1) {
      throw new IllegalArgumentException(argument + ": must be in [0, 1], was " + value);
    }
    return value;
  }
}
