package dev.tern.netty.internal.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * RFC 7541 Appendix C's examples: each block decodes to the listed header list and leaves the
 * listed dynamic table size, and encoding the list (indexing as the examples do) gives the block
 * byte for byte.
 */
class HpackRfcExamplesTest {
  static final String[] C3_REQUESTS = {
    "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
    "8286 84be 5808 6e6f 2d63 6163 6865",
    "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
  };
  static final String[] C4_REQUESTS = {
    "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
    "8286 84be 5886 a8eb 1064 9cbf",
    "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
  };
  static final String[] C5_RESPONSES = {
    "4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a"
        + " 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
    "4803 3330 37c1 c0bf",
    "88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04"
        + " 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745"
        + " 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31",
  };
  static final String[] C6_RESPONSES = {
    "4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e"
        + " 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3",
    "4883 640e ffc1 c0bf",
    "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7"
        + " 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0"
        + " 03ed 4ee5 b106 3d50 07",
  };

  static final List<List<String>> REQUESTS =
      List.of(
          List.of(":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com"),
          List.of(
              ":method: GET",
              ":scheme: http",
              ":path: /",
              ":authority: www.example.com",
              "cache-control: no-cache"),
          List.of(
              ":method: GET",
              ":scheme: https",
              ":path: /index.html",
              ":authority: www.example.com",
              "custom-key: custom-value"));
  static final long[] REQUEST_TABLE_SIZES = {57, 110, 164};

  static final List<List<String>> RESPONSES =
      List.of(
          List.of(
              ":status: 302",
              "cache-control: private",
              "date: Mon, 21 Oct 2013 20:13:21 GMT",
              "location: https://www.example.com"),
          List.of(
              ":status: 307",
              "cache-control: private",
              "date: Mon, 21 Oct 2013 20:13:21 GMT",
              "location: https://www.example.com"),
          List.of(
              ":status: 200",
              "cache-control: private",
              "date: Mon, 21 Oct 2013 20:13:22 GMT",
              "location: https://www.example.com",
              "content-encoding: gzip",
              "set-cookie: foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"));
  static final long[] RESPONSE_TABLE_SIZES = {222, 222, 215};

  static ByteBuf hex(String hex) {
    return Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(hex.replace(" ", "")));
  }

  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  /** Decodes a block into "name: value" lines ("name: value (sensitive)" when never indexed). */
  static List<String> decode(HpackDecoder decoder, ByteBuf block) throws HpackException {
    List<String> fields = new ArrayList<>();
    try {
      decoder.decode(
          block,
          (name, value, sensitive) ->
              fields.add(
                  new String(name, StandardCharsets.ISO_8859_1)
                      + ": "
                      + new String(value, StandardCharsets.ISO_8859_1)
                      + (sensitive ? " (sensitive)" : "")));
    } finally {
      block.release();
    }
    return fields;
  }

  static String encode(HpackEncoder encoder, List<String> fields) {
    ByteBuf out = Unpooled.buffer();
    try {
      encoder.beginBlock(out);
      for (String field : fields) {
        int colon = field.indexOf(": ", 1);
        encoder.header(
            out, ascii(field.substring(0, colon)), ascii(field.substring(colon + 2)), false);
      }
      return ByteBufUtil.hexDump(out);
    } finally {
      out.release();
    }
  }

  private static void decodesSeries(
      long tableSize, String[] blocks, List<List<String>> lists, long[] sizes)
      throws HpackException {
    HpackDecoder decoder = new HpackDecoder(Long.MAX_VALUE, tableSize);
    for (int i = 0; i < blocks.length; i++) {
      assertThat(decode(decoder, hex(blocks[i]))).as("block %s", i + 1).isEqualTo(lists.get(i));
      assertThat(decoder.dynamicTable().size())
          .as("table size after %s", i + 1)
          .isEqualTo(sizes[i]);
    }
  }

  private static void encodesSeries(
      long tableSize, boolean huffman, String[] blocks, List<List<String>> lists) {
    HpackEncoder encoder = new HpackEncoder(tableSize, huffman, true);
    for (int i = 0; i < blocks.length; i++) {
      assertThat(encode(encoder, lists.get(i)))
          .as("block %s", i + 1)
          .isEqualTo(blocks[i].replace(" ", ""));
    }
  }

  @Test
  void c2LiteralsAndIndexedField() throws HpackException {
    HpackDecoder decoder = new HpackDecoder(Long.MAX_VALUE, 4096);
    assertThat(
            decode(
                decoder, hex("400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572")))
        .containsExactly("custom-key: custom-header");
    assertThat(decoder.dynamicTable().size()).isEqualTo(55);
    assertThat(decode(decoder, hex("040c 2f73 616d 706c 652f 7061 7468")))
        .containsExactly(":path: /sample/path");
    assertThat(decode(decoder, hex("1008 7061 7373 776f 7264 0673 6563 7265 74")))
        .containsExactly("password: secret (sensitive)");
    assertThat(decode(decoder, hex("82"))).containsExactly(":method: GET");
    assertThat(decoder.dynamicTable().length()).as("only C.2.1 was indexed").isEqualTo(1);
  }

  @Test
  void c3RequestsWithoutHuffman() throws HpackException {
    decodesSeries(4096, C3_REQUESTS, REQUESTS, REQUEST_TABLE_SIZES);
    encodesSeries(4096, false, C3_REQUESTS, REQUESTS);
  }

  @Test
  void c4RequestsWithHuffman() throws HpackException {
    decodesSeries(4096, C4_REQUESTS, REQUESTS, REQUEST_TABLE_SIZES);
    encodesSeries(4096, true, C4_REQUESTS, REQUESTS);
  }

  @Test
  void c5ResponsesWithoutHuffmanEvicting() throws HpackException {
    decodesSeries(256, C5_RESPONSES, RESPONSES, RESPONSE_TABLE_SIZES);
    encodesSeries(256, false, C5_RESPONSES, RESPONSES);
  }

  @Test
  void c6ResponsesWithHuffmanEvicting() throws HpackException {
    decodesSeries(256, C6_RESPONSES, RESPONSES, RESPONSE_TABLE_SIZES);
    encodesSeries(256, true, C6_RESPONSES, RESPONSES);
  }
}
