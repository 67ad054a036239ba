package dev.tern.xds.internal.filter;

/**
 * An xDS {@code FractionalPercent}: {@code numerator} over a denominator of a hundred, ten thousand
 * or a million, kept as the factor that scales the numerator to parts per million. Immutable.
 */
record Fraction(long numerator, int perMillionFactor) {
  static final int MILLION = 1_000_000;

  /** The fraction in parts per million, at most a million. */
  int perMillion() {
    return scaled(numerator);
  }

  /**
   * A percentage header's numerator (A33) over this fraction's denominator, in parts per million,
   * capped by this fraction.
   */
  int cappedBy(long headerNumerator) {
    return Math.min(scaled(headerNumerator), perMillion());
  }

  private int scaled(long n) {
    // n is at most 2^32-1 and the factor at most 10^4: the product cannot overflow.
    return (int) Math.min(Math.min(n, 0xFFFF_FFFFL) * perMillionFactor, MILLION);
  }
}
