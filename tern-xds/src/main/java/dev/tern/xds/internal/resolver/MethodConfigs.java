package dev.tern.xds.internal.resolver;

import dev.tern.Status;
import dev.tern.xds.XdsFeatures;
import dev.tern.xds.XdsRouteConfig.RetryPolicy;
import dev.tern.xds.XdsRouteConfig.RouteAction;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A route's method config as service-config JSON maps, for the channel's parser: {@code timeout}
 * from the route's {@code max_stream_duration} ({@code grpc_timeout_header_max} first), else the
 * listener's {@code common_http_protocol_options.max_stream_duration}; zero means none (A31). And
 * {@code retryPolicy} from the route's retry policy (A44), the back-off multiplier 2 as Envoy's; a
 * policy that retries no status Tern knows, or allows no retry, is left out. Stateless.
 */
final class MethodConfigs {
  private MethodConfigs() {}

  static Map<String, Object> forRoute(RouteAction action, Duration listenerMaxStreamDuration) {
    Map<String, Object> config = new LinkedHashMap<>();
    Duration timeout = action.timeout() != null ? action.timeout() : listenerMaxStreamDuration;
    if (timeout != null
        && !timeout.isZero()
        && !timeout.isNegative()
        && XdsFeatures.current().timeout()) {
      config.put("timeout", duration(timeout));
    }
    RetryPolicy retry = action.retryPolicy();
    if (retry != null && !retry.retryOn().isEmpty() && retry.maxAttempts() >= 2) {
      Map<String, Object> policy = new LinkedHashMap<>();
      policy.put("maxAttempts", (double) retry.maxAttempts());
      policy.put("initialBackoff", duration(retry.initialBackoff()));
      policy.put("maxBackoff", duration(retry.maxBackoff()));
      policy.put("backoffMultiplier", 2.0);
      policy.put(
          "retryableStatusCodes",
          retry.retryOn().stream().map(Status.Code::name).sorted().toList());
      config.put("retryPolicy", policy);
    }
    return config;
  }

  /** {@code "1.500000000s"}: the form service configs spell durations in. */
  static String duration(Duration d) {
    return d.getSeconds() + "." + String.format("%09d", d.getNano()) + "s";
  }
}
