package dev.tern.xds.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** XXH64 against the published test vectors of the xxHash project and its ports. */
class XxHash64Test {
  private static long hash(String text, long seed) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    return XxHash64.hash(bytes, 0, bytes.length, seed);
  }

  @Test
  void shortInputs() {
    assertThat(hash("", 0)).isEqualTo(0xEF46DB3751D8E999L);
    assertThat(hash("", 1)).isEqualTo(0xD5AFBA1336A3BE4BL);
    assertThat(hash("a", 0)).isEqualTo(0xD24EC4F1A98C6E5BL);
    assertThat(hash("abc", 0)).isEqualTo(0x44BC2CF5AD770999L);
    assertThat(hash("abc", 5381)).isEqualTo(0x19D1C1B5C673451FL);
  }

  @Test
  void inputsOfThirtyTwoBytesAndMoreUseTheFourLanes() {
    assertThat(hash("12345678901234567890123456789012", 0)).isEqualTo(0x40FD1AA52D98274CL);
    assertThat(hash("The quick brown fox jumps over the lazy dog", 0))
        .isEqualTo(0x0B242D361FDA71BCL);
    assertThat(hash("Nobody inspects the spammish repetition", 123)).isEqualTo(0xA8BA45551F24B7AEL);
  }

  @Test
  void stringAndLongForms() {
    assertThat(XxHash64.hash("abc")).isEqualTo(0x44BC2CF5AD770999L);
    byte[] little = {1, 2, 3, 4, 5, 6, 7, 8};
    assertThat(XxHash64.hash(0x0807060504030201L)).isEqualTo(XxHash64.hash(little, 0, 8, 0));
  }

  @Test
  void rangeOfALargerArray() {
    byte[] bytes = "xxabcxx".getBytes(StandardCharsets.UTF_8);
    assertThat(XxHash64.hash(bytes, 2, 3, 0)).isEqualTo(0x44BC2CF5AD770999L);
    assertThatThrownBy(() -> XxHash64.hash(bytes, 5, 3, 0))
        .isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessageContaining("offset 5, length 3 of 7 bytes");
  }
}
