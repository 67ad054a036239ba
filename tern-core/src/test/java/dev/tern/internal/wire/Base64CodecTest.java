package dev.tern.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class Base64CodecTest {
  private static byte[] decode(String base64) {
    byte[] bytes = base64.getBytes(StandardCharsets.ISO_8859_1);
    return Base64Codec.decodeBase64(bytes, 0, bytes.length);
  }

  private static String encode(byte[] value) {
    return new String(Base64Codec.encodeBase64NoPadding(value), StandardCharsets.US_ASCII);
  }

  @ParameterizedTest
  @CsvSource({
    "'', ''",
    "f, Zg",
    "fo, Zm8",
    "foo, Zm9v",
    "foob, Zm9vYg",
    "fooba, Zm9vYmE",
    "foobar, Zm9vYmFy"
  })
  void encodesWithoutPaddingAndDecodesBothForms(String plain, String unpadded) {
    byte[] bytes = plain.getBytes(StandardCharsets.US_ASCII);
    assertThat(encode(bytes)).isEqualTo(unpadded);
    assertThat(decode(unpadded)).isEqualTo(bytes);
    String padded = unpadded + "==".substring(0, (4 - unpadded.length() % 4) % 4);
    assertThat(decode(padded)).isEqualTo(bytes);
  }

  @Test
  void roundTripsRandomBytesOfEveryLengthMod3() {
    Random random = new Random(42);
    for (int length = 0; length < 50; length++) {
      byte[] value = new byte[length];
      random.nextBytes(value);
      assertThat(decode(encode(value))).isEqualTo(value);
      assertThat(decode(Base64.getEncoder().encodeToString(value))).isEqualTo(value);
    }
  }

  @Test
  void decodesOnlyTheGivenRange() {
    byte[] buffer = "xxZm9vYmFyyy".getBytes(StandardCharsets.US_ASCII);
    assertThat(Base64Codec.decodeBase64(buffer, 2, 8))
        .isEqualTo("foobar".getBytes(StandardCharsets.US_ASCII));
  }

  @Test
  void decodesPlusAndSlash() {
    assertThat(decode("+/8")).containsExactly(0xFB, 0xFF);
  }

  @ParameterizedTest
  @ValueSource(strings = {"Zm9!", "Zm-_", "Zm9v Yg", "Zm\u00e9v"})
  void rejectsCharactersOutsideTheStandardAlphabet(String input) {
    assertThatThrownBy(() -> decode(input))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invalid base64 character");
  }

  @ParameterizedTest
  @ValueSource(strings = {"Z", "Zm9vY", "Zm9vY==="})
  void rejectsDanglingCharacter(String input) {
    assertThatThrownBy(() -> decode(input)).isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"Zg=", "Zm9vYg=", "Zm8==", "Z=g="})
  void rejectsMisplacedOrWrongPadding(String input) {
    assertThatThrownBy(() -> decode(input)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void rejectsBadRange() {
    assertThatThrownBy(() -> Base64Codec.decodeBase64(new byte[4], 2, 4))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> Base64Codec.decodeBase64(null, 0, 0))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("src");
  }
}
