package dev.tern.internal.resolver;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TxtRecordsTest {
  /** TXT record data: each string a length byte and its bytes (RFC 1035, section 3.3.14). */
  private static byte[] rdata(byte[]... strings) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] string : strings) {
      out.write(string.length);
      out.writeBytes(string);
    }
    return out.toByteArray();
  }

  private static byte[] bytes(String text) {
    return text.getBytes(UTF_8);
  }

  @Test
  void characterStringsAreReadInOrderIncludingEmptyAndFullOnes() {
    byte[] full = new byte[255];
    Arrays.fill(full, (byte) 'x');

    List<byte[]> strings =
        TxtRecords.characterStrings(rdata(bytes("grpc_config="), new byte[0], full));

    assertThat(strings).hasSize(3);
    assertThat(strings.get(0)).isEqualTo(bytes("grpc_config="));
    assertThat(strings.get(1)).isEmpty();
    assertThat(strings.get(2)).isEqualTo(full);
    assertThat(TxtRecords.characterStrings(new byte[0])).isEmpty();
  }

  @Test
  void textJoinsTheStringsWithNothingBetween() {
    String text = "grpc_config=[{\"serviceConfig\": {\"loadBalancingConfig\": []}}]";

    assertThat(TxtRecords.text(rdata(bytes(text.substring(0, 20)), bytes(text.substring(20)))))
        .isEqualTo(text);
  }

  /** A split at 255 bytes may cut a UTF-8 character in two: it is decoded after the join. */
  @Test
  void textIsUtf8DecodedAfterTheJoin() {
    byte[] euro = bytes("\u20ac"); // three bytes

    String text =
        TxtRecords.text(rdata(new byte[] {'a', euro[0]}, new byte[] {euro[1], euro[2], 'b'}));

    assertThat(text).isEqualTo("a\u20acb");
  }

  @Test
  void aStringLongerThanTheRestOfTheDataIsMalformed() {
    byte[] data = {3, 'a', 'b', 'c', 5, 'd'};

    assertThatThrownBy(() -> TxtRecords.characterStrings(data))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("character-string of 5 bytes at offset 4")
        .hasMessageContaining("6-byte record");
  }

  /** Data cut after each byte: whole strings are read, a cut inside a string is rejected. */
  @Test
  void everyPrefixOfTheDataIsReadOrRejected() {
    byte[] data = rdata(bytes("ab"), bytes("cde")); // 2 a b 3 c d e
    Map<Integer, String> whole = Map.of(0, "", 3, "ab", 7, "abcde");
    for (int length = 0; length <= data.length; length++) {
      byte[] prefix = Arrays.copyOf(data, length);
      if (whole.containsKey(length)) {
        assertThat(TxtRecords.text(prefix)).isEqualTo(whole.get(length));
      } else {
        assertThatThrownBy(() -> TxtRecords.text(prefix))
            .as("cut after %d bytes", length)
            .isInstanceOf(IllegalArgumentException.class);
      }
    }
  }

  @Test
  void jndiPresentationIsUnquotedUnescapedAndJoined() {
    // What JNDI's DNS provider makes of the strings [grpc_config=[{"a": "b\c"}], ] and [x]:
    // quoted (a space, quote or backslash, or empty), quotes and backslashes escaped.
    String presented = "\"grpc_config=[{\\\"a\\\": \\\"b\\\\c\\\"}]\" \"\" x";

    assertThat(TxtRecords.fromJndi(presented)).isEqualTo("grpc_config=[{\"a\": \"b\\c\"}]x");
    assertThat(TxtRecords.fromJndi("plain")).isEqualTo("plain");
    assertThat(TxtRecords.fromJndi("")).isEmpty();
  }

  /** JNDI gives one char per byte: UTF-8 text comes back whole. */
  @Test
  void jndiPresentationIsUtf8Decoded() {
    String presented = new String(bytes("caf\u00e9"), ISO_8859_1);

    assertThat(TxtRecords.fromJndi(presented)).isEqualTo("caf\u00e9");
  }
}
