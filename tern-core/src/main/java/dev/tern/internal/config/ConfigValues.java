package dev.tern.internal.config;

import dev.tern.Status;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Typed reads of config values that came from {@link JsonParser} (numbers are {@link Double}s) or
 * from users (any {@link Number}, strings, booleans, lists and maps). Each read takes {@code
 * where}, the start of its error message (e.g. {@code "service config: methodConfig[0].timeout"}),
 * and throws an {@link IllegalArgumentException} that goes on with the problem and the value.
 *
 * <p>Stateless; thread-safe.
 */
final class ConfigValues {
  /** The largest proto3 JSON Duration, 10,000 years. */
  static final long MAX_DURATION_SECONDS = 315_576_000_000L;

  private static final Pattern DURATION = Pattern.compile("(-?)([0-9]*)(?:\\.([0-9]*))?s");
  private static final Pattern DECIMAL_INTEGER = Pattern.compile("-?[0-9]+");

  private ConfigValues() {}

  static Map<String, ?> object(Object value, String where) {
    if (!(value instanceof Map<?, ?> map)) {
      throw invalid(where, "must be an object", value);
    }
    for (Object key : map.keySet()) {
      if (!(key instanceof String)) {
        throw new IllegalArgumentException(where + " has a key that is not a string: " + key);
      }
    }
    @SuppressWarnings("unchecked") // every key was just checked
    Map<String, ?> result = (Map<String, ?>) map;
    return result;
  }

  static List<?> list(Object value, String where) {
    if (!(value instanceof List<?> list)) {
      throw invalid(where, "must be a list", value);
    }
    return list;
  }

  static String string(Object value, String where) {
    if (!(value instanceof String string)) {
      throw invalid(where, "must be a string", value);
    }
    return string;
  }

  static boolean bool(Object value, String where) {
    if (!(value instanceof Boolean bool)) {
      throw invalid(where, "must be true or false", value);
    }
    return bool;
  }

  /**
   * An integral number from {@code min} to {@code max}; numbers beyond a long saturate.
   *
   * @param max {@link Long#MAX_VALUE} for no upper bound
   */
  static long integer(Object value, String where, long min, long max) {
    Long integral = integralValue(value);
    if (integral == null || integral < min || integral > max) {
      String range = max == Long.MAX_VALUE ? ">= " + min : "from " + min + " to " + max;
      throw invalid(where, "must be an integer " + range, value);
    }
    return integral;
  }

  /** A proto3 JSON uint32-style value: an integer {@code >= 0}, as a number or decimal string. */
  static long nonNegativeInteger(Object value, String where) {
    Object number = value;
    if (value instanceof String string && DECIMAL_INTEGER.matcher(string).matches()) {
      BigInteger big = new BigInteger(string);
      number = big.bitLength() < 64 ? big.longValue() : big.signum() * (double) Long.MAX_VALUE;
    }
    Long integral = integralValue(number);
    if (integral == null || integral < 0) {
      throw invalid(where, "must be an integer >= 0", value);
    }
    return integral;
  }

  /** A finite number greater than 0. */
  static double positiveNumber(Object value, String where) {
    if (!(value instanceof Number number)
        || !Double.isFinite(number.doubleValue())
        || number.doubleValue() <= 0) {
      throw invalid(where, "must be a number > 0", value);
    }
    return number.doubleValue();
  }

  /**
   * A proto3 JSON Duration such as {@code "1.5s"}, {@code ".1s"} or {@code "-2s"}, in nanoseconds,
   * saturated at {@link Long#MAX_VALUE} (and its negative).
   */
  static long durationNanos(Object value, String where) {
    if (!(value instanceof String text)) {
      throw invalid(where, "must be a duration string like \"1.5s\"", value);
    }
    Matcher matcher = DURATION.matcher(text);
    boolean matches = matcher.matches();
    String fraction = matches ? matcher.group(3) : null;
    if (!matches
        || (matcher.group(2).isEmpty() && fraction == null)
        || (fraction != null && fraction.isEmpty())) {
      throw new IllegalArgumentException(
          where + ": malformed duration " + show(text) + " (expected e.g. \"1.5s\")");
    }
    if (fraction != null && fraction.length() > 9) {
      throw new IllegalArgumentException(
          where + ": duration " + show(text) + " has more than 9 fractional digits");
    }
    String whole = matcher.group(2).replaceFirst("^0+", "");
    long seconds =
        whole.length() > 12 ? Long.MAX_VALUE : whole.isEmpty() ? 0 : Long.parseLong(whole);
    long nanos = fraction == null ? 0 : Long.parseLong((fraction + "00000000").substring(0, 9));
    if (seconds > MAX_DURATION_SECONDS || (seconds == MAX_DURATION_SECONDS && nanos > 0)) {
      throw new IllegalArgumentException(
          where
              + ": duration "
              + show(text)
              + " is out of range (at most "
              + MAX_DURATION_SECONDS
              + "s)");
    }
    long total;
    try {
      total = Math.addExact(Math.multiplyExact(seconds, 1_000_000_000L), nanos);
    } catch (ArithmeticException e) {
      total = Long.MAX_VALUE;
    }
    return matcher.group(1).isEmpty() ? total : -total;
  }

  /**
   * A status code, by its {@link Status.Code} name (e.g. {@code "UNAVAILABLE"}) or its number
   * (0..16).
   */
  static Status.Code statusCode(Object value, String where) {
    if (value instanceof String name) {
      for (Status.Code code : Status.Code.values()) {
        if (code.name().equals(name)) {
          return code;
        }
      }
    } else if (value instanceof Number) {
      Long number = integralValue(value);
      for (Status.Code code : Status.Code.values()) {
        if (number != null && code.value() == number) {
          return code;
        }
      }
    } else {
      throw invalid(where, "must be a status code name like \"UNAVAILABLE\" or 0..16", value);
    }
    throw new IllegalArgumentException(where + ": unknown status code " + show(value));
  }

  /** The value as a long if it is an integral number (saturating), else null. */
  private static Long integralValue(Object value) {
    if (value instanceof Integer
        || value instanceof Long
        || value instanceof Short
        || value instanceof Byte) {
      return ((Number) value).longValue();
    }
    if (value instanceof Number number) {
      double d = number.doubleValue();
      if (Double.isFinite(d) && d == Math.rint(d)) {
        return (long) d; // saturates
      }
    }
    return null;
  }

  static IllegalArgumentException invalid(String where, String requirement, Object value) {
    return new IllegalArgumentException(where + " " + requirement + ", was " + show(value));
  }

  /** A value as it would appear in JSON-ish text: strings quoted, numbers and the rest as is. */
  static String show(Object value) {
    if (value instanceof String string) {
      return "\"" + string.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
    return String.valueOf(value);
  }
}
