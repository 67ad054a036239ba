package dev.tern.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class GrpcTimeoutCodecTest {

  @ParameterizedTest
  @CsvSource({
    "1, 1n",
    "99999999, 99999999n",
    "100000000, 100000u",
    "99999999999, 99999999u",
    "100000000000, 100000m",
    "99999999999999, 99999999m",
    "100000000000000, 100000S",
    "99999999000000000, 99999999S",
    "100000000000000000, 1666666M",
    "5999999940000000000, 99999999M",
    "6000000000000000000, 1666666H",
    "9223372036854775807, 2562047H"
  })
  void encodesInTheFinestUnitThatFitsInEightDigits(long nanos, String expected) {
    assertThat(GrpcTimeoutCodec.encode(nanos)).isEqualTo(expected);
  }

  @Test
  void encodingTruncatesSoThePeerNeverWaitsLonger() {
    assertThat(GrpcTimeoutCodec.encode(123_456_789_999L)).isEqualTo("123456m");
    assertThat(GrpcTimeoutCodec.decode(GrpcTimeoutCodec.encode(123_456_789_999L)))
        .isLessThanOrEqualTo(123_456_789_999L);
  }

  @ParameterizedTest
  @ValueSource(longs = {0, -1, Long.MIN_VALUE})
  void nonPositiveTimeoutIsSentAsOneNanosecond(long nanos) {
    assertThat(GrpcTimeoutCodec.encode(nanos)).isEqualTo("1n");
  }

  @Test
  void decodesEachUnit() {
    assertThat(GrpcTimeoutCodec.decode("7n")).isEqualTo(7);
    assertThat(GrpcTimeoutCodec.decode("7u")).isEqualTo(TimeUnit.MICROSECONDS.toNanos(7));
    assertThat(GrpcTimeoutCodec.decode("7m")).isEqualTo(TimeUnit.MILLISECONDS.toNanos(7));
    assertThat(GrpcTimeoutCodec.decode("7S")).isEqualTo(TimeUnit.SECONDS.toNanos(7));
    assertThat(GrpcTimeoutCodec.decode("7M")).isEqualTo(TimeUnit.MINUTES.toNanos(7));
    assertThat(GrpcTimeoutCodec.decode("7H")).isEqualTo(TimeUnit.HOURS.toNanos(7));
  }

  @Test
  void decodesEightDigitsAndLeadingZeros() {
    assertThat(GrpcTimeoutCodec.decode("99999999n")).isEqualTo(99_999_999L);
    assertThat(GrpcTimeoutCodec.decode("00000001S")).isEqualTo(1_000_000_000L);
    assertThat(GrpcTimeoutCodec.decode("0n")).isZero();
  }

  @Test
  void decodeSaturatesOnOverflow() {
    assertThat(GrpcTimeoutCodec.decode("99999999H")).isEqualTo(Long.MAX_VALUE);
    assertThat(GrpcTimeoutCodec.decode("2562048H")).isEqualTo(Long.MAX_VALUE);
    assertThat(GrpcTimeoutCodec.decode("2562047H")).isEqualTo(2_562_047L * 3_600_000_000_000L);
  }

  @Test
  void decodeAcceptsAnyCharSequence() {
    assertThat(GrpcTimeoutCodec.decode(new StringBuilder("5S"))).isEqualTo(5_000_000_000L);
  }

  @Test
  void roundTripsAcrossTheRange() {
    for (long nanos = 1; nanos > 0 && nanos < Long.MAX_VALUE / 7; nanos *= 7) {
      String encoded = GrpcTimeoutCodec.encode(nanos);
      long decoded = GrpcTimeoutCodec.decode(encoded);
      long oneUnit = GrpcTimeoutCodec.decode("1" + encoded.charAt(encoded.length() - 1));
      // Truncation loses less than one unit of the chosen (finest fitting) unit.
      assertThat(nanos - decoded).isBetween(0L, oneUnit - 1);
    }
  }

  @Test
  void rejectsEmptyAndUnitOnly() {
    assertThatThrownBy(() -> GrpcTimeoutCodec.decode(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1 to 8 digits");
    assertThatThrownBy(() -> GrpcTimeoutCodec.decode("S"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'S'");
  }

  @Test
  void rejectsMoreThanEightDigits() {
    assertThatThrownBy(() -> GrpcTimeoutCodec.decode("123456789n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("9 digits");
  }

  @ParameterizedTest
  @ValueSource(strings = {"10s", "10h", "10", "10x", "10N", "1 "})
  void rejectsUnknownUnit(String value) {
    assertThatThrownBy(() -> GrpcTimeoutCodec.decode(value))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unit");
  }

  @ParameterizedTest
  @ValueSource(strings = {"-1S", "1.5S", " 1S", "+1S", "1a2m", "\u0661S"})
  void rejectsNonDigits(String value) {
    assertThatThrownBy(() -> GrpcTimeoutCodec.decode(value))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("non-digit");
  }

  @Test
  void rejectsNull() {
    assertThatThrownBy(() -> GrpcTimeoutCodec.decode(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("value");
  }
}
