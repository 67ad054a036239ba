package dev.tern.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Arrays;
import java.util.Base64;

/**
 * Fuzzes {@link Base64Codec}, which decodes the {@code -bin} header values a peer sends: any bytes
 * either decode to what the JDK's decoder makes of them, or fail with an {@link
 * IllegalArgumentException} (never another exception); and every value Tern sends, or a peer sends
 * padded, decodes back to the original bytes. See docs/fuzzing.md for long runs.
 */
class Base64CodecFuzzTest {

  @FuzzTest
  void roundTripsAndRejectsGarbageWithIllegalArgumentException(FuzzedDataProvider data) {
    int offset = data.consumeInt(0, 3);
    int slack = data.consumeInt(0, 3);
    byte[] bytes = data.consumeRemainingAsBytes();

    // Round trip, unpadded (what Tern sends) and padded (what other peers may send).
    byte[] unpadded = Base64Codec.encodeBase64NoPadding(bytes);
    assertThat(new String(unpadded, java.nio.charset.StandardCharsets.US_ASCII))
        .isEqualTo(Base64.getEncoder().withoutPadding().encodeToString(bytes));
    assertThat(decodeAt(unpadded, offset, slack)).isEqualTo(bytes);
    assertThat(decodeAt(Base64.getEncoder().encode(bytes), offset, slack)).isEqualTo(bytes);

    // Arbitrary input: the same bytes as the JDK decodes, or IllegalArgumentException.
    byte[] decoded;
    try {
      decoded = decodeAt(bytes, offset, slack);
    } catch (IllegalArgumentException e) {
      assertThat(e.getMessage()).contains("base64");
      return;
    }
    byte[] jdk;
    try {
      jdk = Base64.getDecoder().decode(bytes);
    } catch (IllegalArgumentException e) {
      fail(
          "decoded %s to %s, which the JDK rejects: %s",
          Arrays.toString(bytes), Arrays.toString(decoded), e.getMessage());
      return;
    }
    assertThat(decoded).as("decoding %s", Arrays.toString(bytes)).isEqualTo(jdk);
  }

  /** Decodes {@code encoded} from inside a larger array, as header values arrive. */
  private static byte[] decodeAt(byte[] encoded, int offset, int slack) {
    byte[] padded = new byte[offset + encoded.length + slack];
    Arrays.fill(padded, (byte) 'A');
    System.arraycopy(encoded, 0, padded, offset, encoded.length);
    return Base64Codec.decodeBase64(padded, offset, encoded.length);
  }
}
