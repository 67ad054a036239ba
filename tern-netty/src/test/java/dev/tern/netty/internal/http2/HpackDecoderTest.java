package dev.tern.netty.internal.http2;

import static dev.tern.netty.internal.http2.HpackRfcExamplesTest.decode;
import static dev.tern.netty.internal.http2.HpackRfcExamplesTest.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every malformed block is refused with its reason; limits hold while decoding. */
class HpackDecoderTest {
  private final HpackDecoder decoder = new HpackDecoder(8192, 4096);

  private void assertCompressionError(String block, String reason) {
    assertThatThrownBy(() -> decode(decoder, hex(block)))
        .isInstanceOf(HpackException.class)
        .hasMessageContaining(reason)
        .matches(e -> ((HpackException) e).connectionError(), "is a connection error");
  }

  @Test
  void truncatedInteger() {
    assertCompressionError("ff", "truncated integer");
    assertCompressionError("3f e1", "truncated integer");
  }

  @Test
  void integerOverflow() {
    assertCompressionError("ff ff ff ff ff 0f", "integer overflows 31 bits");
    assertCompressionError("ff 80 80 80 80 80 80 01", "integer overflows 31 bits");
  }

  @Test
  void indexZero() {
    assertCompressionError("80", "indexed header field with index 0");
  }

  @Test
  void indexBeyondTheTables() {
    assertCompressionError("be", "index 62 out of range (static table 61, dynamic table 0");
    // A literal whose name refers to a missing dynamic entry.
    assertCompressionError("7f 03 01 61", "index 66 out of range");
  }

  @Test
  void stringLongerThanTheBlock() {
    assertCompressionError("40 0a 63 75", "string length 10 beyond the block's end (2 left)");
    assertCompressionError("41", "string literal missing");
    assertCompressionError("41 ff ff ff ff 07", "beyond the block's end");
  }

  @Test
  void huffmanWithEosOrBadPadding() {
    // Name "a" then a Huffman value: EOS (30 ones) and two more ones.
    assertCompressionError("00 01 61 84 ff ff ff ff", "contains EOS");
    // 'a' (00011) then 11 one bits of padding.
    assertCompressionError("00 01 61 82 1f ff", "padding longer than 7 bits");
    // 'a' then 000: padding that is not the EOS prefix.
    assertCompressionError("00 01 61 81 18", "padding longer than 7 bits or not all ones");
  }

  @Test
  void tableSizeUpdateAboveTheSetting() throws HpackException {
    HpackDecoder small = new HpackDecoder(8192, 100);
    assertThat(decode(small, hex("3f 45 82"))).containsExactly(":method: GET"); // 100: allowed
    assertThatThrownBy(() -> decode(small, hex("3f 46 82")))
        .isInstanceOf(HpackException.class)
        .hasMessage("dynamic table size update to 101 above SETTINGS_HEADER_TABLE_SIZE 100");
  }

  @Test
  void tableSizeUpdateAfterAField() {
    assertCompressionError(
        "82 20",
        "dynamic table size update after a header field (only allowed at a block's start)");
  }

  @Test
  void shrunkSettingRequiresAnUpdate() throws HpackException {
    decode(decoder, hex("400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572"));
    decoder.setHeaderTableSize(0);
    assertThat(decoder.dynamicTable().length()).as("evicted at once").isZero();
    assertCompressionError("82", "missing dynamic table size update");
    HpackDecoder again = new HpackDecoder(8192, 4096);
    again.setHeaderTableSize(0);
    assertThat(decode(again, hex("20 20 82"))).containsExactly(":method: GET");
    assertThat(decode(again, hex("82"))).containsExactly(":method: GET");
  }

  @Test
  void noDynamicTableUntilSomethingIsIndexed() throws HpackException {
    assertThat(decode(decoder, hex("8286 84 0f 2b 03 61 62 63"))).hasSize(4);
    assertThat(decoder.dynamicTable()).isNull();
  }

  @Test
  void neverIndexedIsKept() throws HpackException {
    assertThat(decode(decoder, hex("1f 08 05 73 65 63 72 74"))) // authorization, never indexed
        .containsExactly("authorization: secrt (sensitive)");
    assertThat(decode(decoder, hex("0f 08 05 73 65 63 72 74")))
        .containsExactly("authorization: secrt");
  }

  /**
   * An HPACK bomb: a 4,000-byte entry, then 10,000 one-byte references to it (40 MB of header list
   * from a 14 KB block). The sink hears nothing past the limit, the block fails as an error of its
   * stream only, and the table is still in step for the next block.
   */
  @Test
  void headerListBombStopsAtTheLimit() throws HpackException {
    ByteBuf block = Unpooled.buffer();
    block.writeBytes(hex("40 01 78 7f a1 1e")); // name "x", raw value of 31 + 3,969 = 4,000 bytes
    block.writeZero(4000);
    for (int i = 0; i < 10_000; i++) {
      block.writeByte(0xbe); // index 62: the entry just added
    }
    List<byte[]> heard = new ArrayList<>();
    try {
      assertThatThrownBy(() -> decoder.decode(block, (n, v, s) -> heard.add(v)))
          .isInstanceOf(HpackException.class)
          .hasMessage("header list larger than SETTINGS_MAX_HEADER_LIST_SIZE 8192")
          .matches(e -> !((HpackException) e).connectionError(), "is a stream error");
    } finally {
      block.release();
    }
    assertThat(heard).as("fields heard (4,033 bytes each against 8,192)").hasSize(2);
    assertThat(decode(decoder, hex("be"))).hasSize(1).allMatch(f -> f.length() == 4003);
  }

  @Test
  void sinkErrorsPropagate() {
    ByteBuf block = hex("82");
    try {
      assertThatThrownBy(
              () ->
                  decoder.decode(
                      block,
                      (n, v, s) -> {
                        throw HpackException.stream("no");
                      }))
          .hasMessage("no");
    } finally {
      block.release();
    }
  }

  @Test
  void pseudoHeadersAreRecognisedByTheirColon() {
    assertThat(HeaderSink.isPseudoHeader(HpackStaticTable.name(4))).isTrue();
    assertThat(HeaderSink.isPseudoHeader(HpackStaticTable.name(31))).isFalse();
    assertThat(HeaderSink.isPseudoHeader(new byte[0])).isFalse();
  }

  @Test
  void commonGrpcStringsInsertedByTwoConnectionsShareOneArray() throws HpackException {
    // Literals with incremental indexing and new names: "te: trailers" (strings every gRPC client
    // sends), then "x: abc".
    String block = "40 02 7465 08 7472 6169 6c65 7273 40 01 78 03 616263";
    HpackDecoder other = new HpackDecoder(8192, 4096);
    List<byte[]> values = new ArrayList<>();
    HeaderSink sink = (name, value, sensitive) -> values.add(value);
    for (HpackDecoder d : List.of(decoder, other)) {
      ByteBuf in = hex(block);
      try {
        d.decode(in, sink);
      } finally {
        in.release();
      }
    }

    assertThat(decode(new HpackDecoder(8192, 4096), hex(block)))
        .containsExactly("te: trailers", "x: abc");
    assertThat(values.get(0)).isSameAs(values.get(2)).isSameAs(other.dynamicTable().value(2));
    assertThat(decoder.dynamicTable().name(2)).isSameAs(other.dynamicTable().name(2));
    assertThat(values.get(1)).as("each connection's own copy").isNotSameAs(values.get(3));
  }
}
