package dev.tern.xds;

import java.time.Duration;

/** Checks and converts protobuf Durations. Stateless. */
final class Durations {
  private Durations() {}

  /** The duration, or an exception naming {@code field} when it is negative or out of range. */
  static Duration of(com.google.protobuf.Duration d, String field) throws XdsResourceException {
    if (d.getSeconds() < 0 || d.getNanos() < 0 || d.getNanos() > 999_999_999) {
      throw new XdsResourceException(
          field
              + ": must be a non-negative duration, was "
              + d.getSeconds()
              + "s "
              + d.getNanos()
              + "ns");
    }
    if (d.getSeconds() > 315_576_000_000L) {
      throw new XdsResourceException(field + ": out of range (" + d.getSeconds() + "s)");
    }
    return Duration.ofSeconds(d.getSeconds(), d.getNanos());
  }
}
