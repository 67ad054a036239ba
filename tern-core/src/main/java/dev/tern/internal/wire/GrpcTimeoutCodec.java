package dev.tern.internal.wire;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The {@code grpc-timeout} header: 1 to 8 ASCII digits followed by a unit, {@code H} hours, {@code
 * M} minutes, {@code S} seconds, {@code m} millis, {@code u} micros or {@code n} nanos.
 *
 * <p>Stateless; thread-safe.
 */
public final class GrpcTimeoutCodec {
  /** The protocol allows at most 8 digits. */
  private static final long MAX_VALUE = 99_999_999L;

  private static final char[] UNITS = {'n', 'u', 'm', 'S', 'M', 'H'};

  /** Nanoseconds per unit, parallel to {@link #UNITS}. */
  private static final long[] UNIT_NANOS = {
    1L,
    TimeUnit.MICROSECONDS.toNanos(1),
    TimeUnit.MILLISECONDS.toNanos(1),
    TimeUnit.SECONDS.toNanos(1),
    TimeUnit.MINUTES.toNanos(1),
    TimeUnit.HOURS.toNanos(1)
  };

  private GrpcTimeoutCodec() {}

  /**
   * Encodes a timeout in the finest unit whose value fits in 8 digits, truncating toward zero (so
   * the peer never waits longer than the caller). A timeout of zero or less (an already expired
   * deadline) is sent as {@code "1n"}, the smallest positive timeout, because the protocol requires
   * a positive value. Every {@code long} fits: {@code Long.MAX_VALUE} nanos is about 2.6 million
   * hours.
   */
  public static String encode(long timeoutNanos) {
    if (timeoutNanos <= 0) {
      return "1n";
    }
    int unit = 0;
    long value = timeoutNanos;
    while (value > MAX_VALUE) {
      unit++;
      value = timeoutNanos / UNIT_NANOS[unit];
    }
    return Long.toString(value).concat(String.valueOf(UNITS[unit]));
  }

  /**
   * Decodes a {@code grpc-timeout} value to nanoseconds. A value too large for a {@code long} (such
   * as {@code 99999999H}) saturates at {@link Long#MAX_VALUE}. Zero ({@code "0n"}) is accepted and
   * gives 0.
   *
   * @throws IllegalArgumentException if the value is empty, has no digits or more than 8, has a
   *     non-digit before the unit, or ends in an unknown unit
   */
  public static long decode(CharSequence value) {
    Objects.requireNonNull(value, "value");
    int length = value.length();
    if (length < 2) {
      throw new IllegalArgumentException(
          "grpc-timeout '" + value + "' must be 1 to 8 digits followed by a unit (H M S m u n)");
    }
    int digits = length - 1;
    if (digits > 8) {
      throw new IllegalArgumentException(
          "grpc-timeout '" + value + "' has " + digits + " digits; at most 8 are allowed");
    }
    char unitChar = value.charAt(digits);
    long unitNanos = unitNanos(unitChar);
    if (unitNanos == 0) {
      throw new IllegalArgumentException(
          "grpc-timeout '"
              + value
              + "' has unknown unit '"
              + unitChar
              + "' (expected H M S m u n)");
    }
    long amount = 0;
    for (int i = 0; i < digits; i++) {
      char c = value.charAt(i);
      if (c < '0' || c > '9') {
        throw new IllegalArgumentException(
            "grpc-timeout '" + value + "' has non-digit '" + c + "' at index " + i);
      }
      amount = amount * 10 + (c - '0');
    }
    if (amount > Long.MAX_VALUE / unitNanos) {
      return Long.MAX_VALUE;
    }
    return amount * unitNanos;
  }

  /** Nanoseconds per unit, or 0 for an unknown unit. */
  private static long unitNanos(char unit) {
    for (int i = 0; i < UNITS.length; i++) {
      if (UNITS[i] == unit) {
        return UNIT_NANOS[i];
      }
    }
    return 0;
  }
}
