package dev.tern.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.math.BigInteger;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Fuzzes {@link GrpcTimeoutCodec}: a {@code grpc-timeout} value from a peer either parses to a
 * non-negative duration that agrees with the protocol's grammar, or fails with an {@link
 * IllegalArgumentException} that quotes the header; every timeout Tern sends parses back to at most
 * the intended duration, losing less than one unit. See docs/fuzzing.md for long runs.
 */
class GrpcTimeoutCodecFuzzTest {
  private static final Pattern GRAMMAR = Pattern.compile("[0-9]{1,8}[HMSmun]");

  @FuzzTest
  void decodeAcceptsExactlyTheGrammarAndEncodeRoundTrips(FuzzedDataProvider data) {
    long timeoutNanos = data.consumeLong();
    String header = data.consumeRemainingAsString();

    checkDecode(header);
    checkEncode(timeoutNanos);
  }

  private static void checkDecode(String header) {
    long nanos;
    try {
      nanos = GrpcTimeoutCodec.decode(header);
    } catch (IllegalArgumentException e) {
      assertThat(GRAMMAR.matcher(header).matches())
          .as("'%s' follows the grammar but was rejected: %s", header, e.getMessage())
          .isFalse();
      assertThat(e.getMessage()).contains("grpc-timeout");
      return;
    }
    assertThat(GRAMMAR.matcher(header).matches())
        .as("'%s' breaks the grammar but decoded to %d", header, nanos)
        .isTrue();
    BigInteger exact =
        new BigInteger(header.substring(0, header.length() - 1))
            .multiply(BigInteger.valueOf(unitNanos(header.charAt(header.length() - 1))));
    BigInteger expected = exact.min(BigInteger.valueOf(Long.MAX_VALUE));
    assertThat(nanos).as("decode('%s')", header).isEqualTo(expected.longValueExact());
  }

  private static void checkEncode(long timeoutNanos) {
    String header = GrpcTimeoutCodec.encode(timeoutNanos);
    assertThat(header).matches(GRAMMAR);
    long decoded = GrpcTimeoutCodec.decode(header);
    if (timeoutNanos <= 0) {
      assertThat(decoded).isEqualTo(1);
      return;
    }
    long unit = unitNanos(header.charAt(header.length() - 1));
    assertThat(decoded)
        .as("decode(encode(%d)) = decode('%s')", timeoutNanos, header)
        .isBetween(timeoutNanos - unit + 1, timeoutNanos);
  }

  private static long unitNanos(char unit) {
    switch (unit) {
      case 'H':
        return TimeUnit.HOURS.toNanos(1);
      case 'M':
        return TimeUnit.MINUTES.toNanos(1);
      case 'S':
        return TimeUnit.SECONDS.toNanos(1);
      case 'm':
        return TimeUnit.MILLISECONDS.toNanos(1);
      case 'u':
        return TimeUnit.MICROSECONDS.toNanos(1);
      case 'n':
        return 1;
      default:
        throw new AssertionError("unit " + unit);
    }
  }
}
