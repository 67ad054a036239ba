package dev.tern.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * Fuzzes {@link GrpcMessageCodec}, the percent-encoding of {@code grpc-message}: any text encodes
 * to printable ASCII that decodes back to the same text (its UTF-8 form, so an unpaired surrogate
 * comes back as '?'), and any bytes a peer sends decode without an exception, to no more characters
 * than there were bytes. See docs/fuzzing.md for long runs.
 */
class GrpcMessageCodecFuzzTest {

  @FuzzTest
  void encodingRoundTripsAndDecodingNeverThrows(FuzzedDataProvider data) {
    byte[] bytes = data.consumeRemainingAsBytes();

    // Any bytes as a header value: decoding is lenient and never throws.
    String decoded = GrpcMessageCodec.decode(bytes);
    assertThat(decoded.length()).isLessThanOrEqualTo(bytes.length);
    String latin1 = new String(bytes, StandardCharsets.ISO_8859_1);
    assertThat(GrpcMessageCodec.decode(latin1)).isEqualTo(decoded);

    // The same bytes read as UTF-16: every char, surrogates included, as a status description.
    String message = new String(bytes, StandardCharsets.UTF_16BE);
    String encoded = GrpcMessageCodec.encode(message);
    assertThat(encoded.chars().allMatch(c -> c >= 0x20 && c <= 0x7E))
        .as("encode(%s) = %s is printable ASCII", message, encoded)
        .isTrue();
    String wellFormed =
        new String(message.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
    assertThat(GrpcMessageCodec.decode(encoded)).isEqualTo(wellFormed);
    assertThat(GrpcMessageCodec.decode(encoded.getBytes(StandardCharsets.US_ASCII)))
        .isEqualTo(wellFormed);
    // Text beyond Latin-1 held as a String (a transport without the raw bytes) is its UTF-8.
    if (wellFormed.chars().anyMatch(c -> c > 0xFF)) {
      assertThat(GrpcMessageCodec.decode(wellFormed))
          .isEqualTo(GrpcMessageCodec.decode(wellFormed.getBytes(StandardCharsets.UTF_8)));
    }
  }
}
