package dev.tern.http3.internal.frame;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class QpackDecoderTest {
  private final QpackDecoder decoder = new QpackDecoder(8192);

  private List<String> decode(String hex) throws Http3Exception {
    List<String> fields = new ArrayList<>();
    ByteBuf block = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(hex));
    assertThat(
            decoder.decode(
                block,
                (name, value, sensitive) ->
                    fields.add(
                        new String(name, StandardCharsets.ISO_8859_1)
                            + ": "
                            + new String(value, StandardCharsets.ISO_8859_1))))
        .isTrue();
    return fields;
  }

  @Test
  void decodesTheRfcsStaticTableExample() throws Exception {
    // RFC 9204 Appendix B.1: a literal with a static name reference to :path.
    assertThat(decode("0000510b2f696e6465782e68746d6c")).containsExactly(":path: /index.html");
  }

  @Test
  void decodesIndexedLiteralAndHuffmanFields() throws Exception {
    // :method POST (static 20), content-type by name reference (static 44) with a literal value,
    // and a literal name with a Huffman-coded value ("www.example.com", RFC 7541 C.4.1).
    assertThat(
            decode(
                "0000"
                    + "d4"
                    + "5f1d"
                    + "10"
                    + ByteBufUtil.hexDump("application/grpc".getBytes(StandardCharsets.US_ASCII))
                    + "23"
                    + ByteBufUtil.hexDump("x-a".getBytes(StandardCharsets.US_ASCII))
                    + "8c"
                    + "f1e3c2e5f23a6ba0ab90f4ff"))
        .containsExactly(":method: POST", "content-type: application/grpc", "x-a: www.example.com");
  }

  @Test
  void roundTripsWhatTheEncoderWrites() throws Exception {
    byte[][] fields = {
      ascii(":status"), ascii("200"),
      ascii("content-type"), ascii("application/grpc"),
      ascii("grpc-status"), ascii("0"),
      ascii("x-custom"), ascii("some value with spaces"),
    };
    ByteBuf block = Unpooled.buffer();
    QpackEncoder.encode(fields, block);

    assertThat(decode(ByteBufUtil.hexDump(block)))
        .containsExactly(
            ":status: 200",
            "content-type: application/grpc",
            "grpc-status: 0",
            "x-custom: some value with spaces");
  }

  @Test
  void dynamicTableReferencesFailDecompressionWhenItsCapacityIsZero() {
    for (String hex :
        new String[] {
          "0200" + "80", // Required Insert Count 2
          "0000" + "80", // indexed field line, dynamic (T=0)
          "0000" + "4000", // name reference, dynamic
          "0000" + "10", // indexed, post-base
          "0000" + "0000", // name reference, post-base
        }) {
      assertThatThrownBy(() -> decode(hex))
          .as(hex)
          .isInstanceOfSatisfying(
              Http3Exception.class,
              e -> {
                assertThat(e.code()).isEqualTo(Http3Errors.QPACK_DECOMPRESSION_FAILED);
                assertThat(e.connectionError()).isTrue();
              });
    }
  }

  @Test
  void truncatedAndOversizedInputsFailDecompression() {
    for (String hex :
        new String[] {
          "", // no prefix
          "00", // half a prefix
          "0000ff", // static index with a truncated continuation
          "0000ffffffffffffffffffff01", // an integer of more than 62 bits
          "000027ffffffffffffffff7f0000", // a string length past 2^63 (once wrapped negative)
          "000027ffffffffffffffff400000", // a string length of 2^62 + 6, just past QPACK's range
          "0000c063", // static index 99, past the table's end
          "0000510b2f69", // a string longer than what is left
          "00002380ff", // Huffman string that is all padding (EOS)
        }) {
      assertThatThrownBy(() -> decode(hex))
          .as(hex)
          .isInstanceOfSatisfying(
              Http3Exception.class,
              e -> assertThat(e.code()).isEqualTo(Http3Errors.QPACK_DECOMPRESSION_FAILED));
    }
  }

  @Test
  void sectionsOverTheLimitStopDecoding() throws Exception {
    QpackDecoder small = new QpackDecoder(100);
    ByteBuf block = Unpooled.buffer();
    QpackEncoder.encode(new byte[][] {ascii("x-big"), new byte[100]}, block);
    List<byte[]> seen = new ArrayList<>();

    assertThat(small.decode(block, (name, value, sensitive) -> seen.add(name))).isFalse();
    assertThat(seen).isEmpty();
    assertThat(block.isReadable()).isFalse();
  }

  @Test
  void aNonPositiveLimitIsRefused() {
    assertThatThrownBy(() -> new QpackDecoder(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxFieldSectionSize");
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
