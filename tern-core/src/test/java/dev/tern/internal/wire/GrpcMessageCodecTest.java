package dev.tern.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GrpcMessageCodecTest {
  /** The message the gRPC interop "special_status_message" test case sends. */
  private static final String INTEROP_MESSAGE =
      "\t\ntest with whitespace\r\nand Unicode BMP \u263A and non-BMP \uD83D\uDE08\t\n";

  @Test
  void interopSpecialMessageRoundTrips() {
    String encoded = GrpcMessageCodec.encode(INTEROP_MESSAGE);
    assertThat(encoded).matches("[\\x20-\\x7E]*");
    assertThat(GrpcMessageCodec.decode(encoded)).isEqualTo(INTEROP_MESSAGE);
    assertThat(GrpcMessageCodec.decode(encoded.getBytes(StandardCharsets.US_ASCII)))
        .isEqualTo(INTEROP_MESSAGE);
  }

  @Test
  void encodesControlAndNonAsciiAsUpperCaseUtf8Escapes() {
    assertThat(GrpcMessageCodec.encode("\t\n")).isEqualTo("%09%0A");
    assertThat(GrpcMessageCodec.encode("\u263A")).isEqualTo("%E2%98%BA");
    assertThat(GrpcMessageCodec.encode("a\u007Fb")).isEqualTo("a%7Fb");
    assertThat(GrpcMessageCodec.encode("\uD83D\uDE08")).isEqualTo("%F0%9F%98%88");
  }

  @Test
  void escapesThePercentSign() {
    assertThat(GrpcMessageCodec.encode("100%")).isEqualTo("100%25");
    assertThat(GrpcMessageCodec.decode("100%25")).isEqualTo("100%");
  }

  @Test
  void printableAsciiIsReturnedAsTheSameInstance() {
    String message = "Method not found: a.B/C ~!@#$^&*()";
    assertThat(GrpcMessageCodec.encode(message)).isSameAs(message);
    assertThat(GrpcMessageCodec.decode(message)).isSameAs(message);
  }

  @Test
  void keepsAsciiPrefixAndSuffixAroundEscapes() {
    assertThat(GrpcMessageCodec.encode("abc\ndef")).isEqualTo("abc%0Adef");
  }

  @Test
  void decodesLowerCaseHex() {
    assertThat(GrpcMessageCodec.decode("%e2%98%ba")).isEqualTo("\u263A");
  }

  @ParameterizedTest
  @CsvSource({
    "%, %",
    "%G1, %G1",
    "%4, %4",
    "%4G, %4G",
    "50%, 50%",
    "a%%b, a%%b",
    "%%41, %A",
    "%41%G1%42%, A%G1B%"
  })
  void malformedEscapesPassThroughUnchanged(String value, String expected) {
    assertThat(GrpcMessageCodec.decode(value)).isEqualTo(expected);
    assertThat(GrpcMessageCodec.decode(value.getBytes(StandardCharsets.US_ASCII)))
        .isEqualTo(expected);
  }

  @Test
  void invalidUtf8DecodesToReplacementCharacterWithoutThrowing() {
    assertThat(GrpcMessageCodec.decode("bad %FF%FE byte")).isEqualTo("bad \uFFFD\uFFFD byte");
    assertThat(GrpcMessageCodec.decode("cut %E2%98")).isEqualTo("cut \uFFFD");
  }

  @Test
  void rawUtf8FromALenientPeerIsUnderstood() {
    byte[] raw = "caf\u00e9 \u263A".getBytes(StandardCharsets.UTF_8);
    assertThat(GrpcMessageCodec.decode(raw)).isEqualTo("caf\u00e9 \u263A");
    // The same bytes seen as a header String (one char per byte).
    String headerString = new String(raw, StandardCharsets.ISO_8859_1);
    assertThat(GrpcMessageCodec.decode(headerString)).isEqualTo("caf\u00e9 \u263A");
  }

  @Test
  void alreadyDecodedTextWithCharsAboveLatin1IsKept() {
    assertThat(GrpcMessageCodec.decode("smile \u263A 100%25")).isEqualTo("smile \u263A 100%");
  }

  @Test
  void unpairedSurrogateEncodesAsQuestionMark() {
    assertThat(GrpcMessageCodec.encode("x\uD83Dy")).isEqualTo("x?y");
  }

  @Test
  void everyCharBelowU0800SurvivesEncodeDecode() {
    StringBuilder allChars = new StringBuilder();
    for (char c = 0; c < 0x800; c++) {
      allChars.append(c);
    }
    String message = allChars.toString();
    assertThat(GrpcMessageCodec.decode(GrpcMessageCodec.encode(message))).isEqualTo(message);
  }
}
