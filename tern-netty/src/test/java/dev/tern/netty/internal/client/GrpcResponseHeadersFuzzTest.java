package dev.tern.netty.internal.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tern.Metadata;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Fuzzes how {@link GrpcResponseHeaders} turns decoded header fields into {@link Metadata}, against
 * the gRPC rules: ASCII values are kept byte for byte; a {@code -bin} value is split at commas and
 * each element base64-decoded, padded or not, to exactly what the JDK's decoder gives; an element
 * that is not base64 is reported for the transport to fail the call, never thrown; a value with
 * NUL, CR or LF is refused with an IllegalArgumentException. Values arrive as views into a larger
 * array. See docs/fuzzing.md for long runs.
 */
class GrpcResponseHeadersFuzzTest {
  /** One base64 element as gRPC allows it: whole quanta, then an optional padded or bare tail. */
  private static final Pattern BASE64 =
      Pattern.compile("([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}(==)?|[A-Za-z0-9+/]{3}=?)?");

  private static final String[] NAMES = {"x-data-bin", "x-ascii", "grpc-trace-bin", "x-other"};

  @FuzzTest
  void keepsAsciiValuesAndDecodesBinaryOnesElementByElement(FuzzedDataProvider data) {
    GrpcResponseHeaders headers = GrpcResponseHeaders.create();
    List<byte[][]> expected = new ArrayList<>();
    boolean expectInvalid = false;
    int fields = data.consumeInt(0, 8);
    for (int f = 0; f < fields; f++) {
      String name = NAMES[data.consumeInt(0, NAMES.length - 1)];
      int before = data.consumeInt(0, 3);
      int after = data.consumeInt(0, 3);
      byte[] value = data.consumeBytes(data.consumeInt(0, 64));
      if (name.endsWith("-bin") && data.consumeBoolean()) {
        value = validBinaryValue(data, value);
      }
      byte[] padded = new byte[before + value.length + after];
      Arrays.fill(padded, (byte) ',');
      System.arraycopy(value, 0, padded, before, value.length);
      AsciiString view = new AsciiString(padded, before, value.length, false);
      if (hasNulCrOrLf(value)) {
        // Malformed (RFC 9113, section 8.2.1): refused before it reaches the metadata, which the
        // connection turns into the call's failure; the rest of the block no longer matters.
        assertThatThrownBy(() -> headers.add(new AsciiString(name), view))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("NUL, CR or LF");
        return;
      }
      headers.add(new AsciiString(name), view);

      byte[] nameBytes = name.getBytes(StandardCharsets.US_ASCII);
      if (!name.endsWith("-bin")) {
        expected.add(new byte[][] {nameBytes, value});
        continue;
      }
      for (String element : new String(value, StandardCharsets.ISO_8859_1).split(",", -1)) {
        if (expectInvalid) {
          break; // the call fails anyway; later elements are not checked
        }
        if (!BASE64.matcher(element).matches()) {
          expectInvalid = true;
          break;
        }
        expected.add(new byte[][] {nameBytes, Base64.getDecoder().decode(element)});
      }
    }

    if (expectInvalid) {
      assertThat(headers.invalidBinaryHeader()).as("reported invalid base64").contains("-bin");
      return;
    }
    assertThat(headers.invalidBinaryHeader()).as("reported invalid base64").isNull();
    byte[][] actual = headers.toMetadata().toSerialized();
    assertThat(actual.length).isEqualTo(2 * expected.size());
    for (int i = 0; i < expected.size(); i++) {
      assertThat(actual[2 * i]).isEqualTo(expected.get(i)[0]);
      assertThat(actual[2 * i + 1]).isEqualTo(expected.get(i)[1]);
    }
  }

  private static boolean hasNulCrOrLf(byte[] value) {
    for (byte b : value) {
      if (b == 0 || b == '\r' || b == '\n') {
        return true;
      }
    }
    return false;
  }

  /** Comma-separated base64 elements of slices of {@code bytes}, padded or not. */
  private static byte[] validBinaryValue(FuzzedDataProvider data, byte[] bytes) {
    StringBuilder value = new StringBuilder();
    int offset = 0;
    do {
      int length = data.consumeInt(0, bytes.length - offset);
      byte[] element = Arrays.copyOfRange(bytes, offset, offset + length);
      offset += length;
      Base64.Encoder encoder =
          data.consumeBoolean() ? Base64.getEncoder() : Base64.getEncoder().withoutPadding();
      if (value.length() > 0) {
        value.append(',');
      }
      value.append(encoder.encodeToString(element));
    } while (offset < bytes.length && data.remainingBytes() > 0);
    return value.toString().getBytes(StandardCharsets.US_ASCII);
  }
}
