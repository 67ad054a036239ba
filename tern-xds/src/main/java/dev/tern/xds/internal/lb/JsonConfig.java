package dev.tern.xds.internal.lb;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads the fields of a balancer's JSON config (the maps and lists of tern-core's JSON parser),
 * throwing {@link IllegalArgumentException} with the policy and field named on a wrong kind of
 * value. Stateless; thread-safe.
 */
final class JsonConfig {
  private static final Pattern DURATION = Pattern.compile("\\d{1,12}(\\.\\d{1,9})?s");

  private final String policy;
  private final Map<String, ?> json;

  JsonConfig(String policy, Map<String, ?> json) {
    this.policy = policy;
    this.json = json == null ? Map.of() : json;
  }

  /** Whether {@code field} is present (and not null). */
  boolean has(String field) {
    return json.get(field) != null;
  }

  String string(String field, boolean required) {
    Object value = get(field, required);
    if (value == null) {
      return null;
    }
    if (!(value instanceof String s)) {
      throw wrong(field, "a string", value);
    }
    return s;
  }

  /** A non-negative whole number, or {@code fallback} when absent. */
  long wholeNumber(String field, long fallback) {
    Object value = get(field, false);
    if (value == null) {
      return fallback;
    }
    if (!(value instanceof Number n)
        || n.doubleValue() != Math.rint(n.doubleValue())
        || n.doubleValue() < 0) {
      throw wrong(field, "a non-negative integer", value);
    }
    return n.longValue();
  }

  boolean bool(String field) {
    Object value = get(field, false);
    if (value == null) {
      return false;
    }
    if (!(value instanceof Boolean b)) {
      throw wrong(field, "a boolean", value);
    }
    return b;
  }

  List<?> list(String field, boolean required) {
    Object value = get(field, required);
    if (value == null) {
      return List.of();
    }
    if (!(value instanceof List<?> l)) {
      throw wrong(field, "a list", value);
    }
    return l;
  }

  Map<String, ?> object(String field, boolean required) {
    return asObject(field, get(field, required));
  }

  JsonConfig nested(String field, Object value) {
    return new JsonConfig(policy, asObject(field, value));
  }

  @SuppressWarnings("unchecked")
  Map<String, ?> asObject(String field, Object value) {
    if (value == null) {
      return Map.of();
    }
    if (!(value instanceof Map<?, ?> m)) {
      throw wrong(field, "an object", value);
    }
    return (Map<String, ?>) m;
  }

  /** A protobuf JSON duration ({@code "1.5s"}), non-negative, or {@code fallback} when absent. */
  Duration duration(String field, Duration fallback) {
    String text = string(field, false);
    if (text == null) {
      return fallback;
    }
    if (!DURATION.matcher(text).matches()) {
      throw error(field, "must be a non-negative duration such as \"1.5s\", was " + text);
    }
    BigDecimal seconds = new BigDecimal(text.substring(0, text.length() - 1));
    return Duration.ofSeconds(
        seconds.longValue(), seconds.remainder(BigDecimal.ONE).movePointRight(9).longValue());
  }

  /** A finite number, or {@code fallback} when absent. */
  double number(String field, double fallback) {
    Object value = get(field, false);
    if (value == null) {
      return fallback;
    }
    if (!(value instanceof Number n) || !Double.isFinite(n.doubleValue())) {
      throw wrong(field, "a number", value);
    }
    return n.doubleValue();
  }

  IllegalArgumentException error(String field, String fault) {
    return new IllegalArgumentException(policy + " config: " + field + ": " + fault);
  }

  private Object get(String field, boolean required) {
    Object value = json.get(field);
    if (value == null && required) {
      throw error(field, "missing");
    }
    return value;
  }

  private IllegalArgumentException wrong(String field, String kind, Object value) {
    return error(field, "must be " + kind + ", was " + value);
  }
}
