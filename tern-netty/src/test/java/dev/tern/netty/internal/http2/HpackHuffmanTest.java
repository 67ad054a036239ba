package dev.tern.netty.internal.http2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The code is RFC 7541 Appendix B's, and decoding inverts encoding. */
class HpackHuffmanTest {
  private final HuffmanDecoder decoder = new HuffmanDecoder();

  @Test
  void codesAreTheRfcs() {
    // A sample of Appendix B: (symbol, code, length).
    int[][] rfc = {
      {0, 0x1ff8, 13},
      {1, 0x7fffd8, 23},
      {10, 0x3ffffffc, 30},
      {32, 0x14, 6},
      {48, 0x0, 5},
      {'a', 0x3, 5},
      {'z', 0x7b, 7},
      {'~', 0x1ffd, 13},
      {127, 0xffffffc, 28},
      {128, 0xfffe6, 20},
      {200, 0x3ffffe2, 26},
      {255, 0x3ffffee, 26},
      {256, 0x3fffffff, 30},
    };
    for (int[] entry : rfc) {
      assertThat(HpackHuffman.code(entry[0])).as("code of %s", entry[0]).isEqualTo(entry[1]);
      assertThat(HpackHuffman.length(entry[0])).as("length of %s", entry[0]).isEqualTo(entry[2]);
    }
    // Complete: the Kraft sum of the code lengths is exactly 1.
    long kraft = 0;
    for (int s = 0; s <= 256; s++) {
      kraft += 1L << (30 - HpackHuffman.length(s));
    }
    assertThat(kraft).isEqualTo(1L << 30);
  }

  @Test
  void rfcStrings() throws HpackException {
    assertThat(decode("f1e3 c2e5 f23a 6ba0 ab90 f4ff")).isEqualTo("www.example.com");
    assertThat(decode("a8eb 1064 9cbf")).isEqualTo("no-cache");
    assertThat(decode("9d29 ad17 1863 c78f 0b97 c8e9 ae82 ae43 d3"))
        .isEqualTo("https://www.example.com");
    assertThat(encode("no-cache")).isEqualTo("a8eb10649cbf");
    assertThat(decode("")).isEmpty();
  }

  @Test
  void randomBytesRoundTrip() throws HpackException {
    Random random = new Random(7541);
    for (int i = 0; i < 2000; i++) {
      byte[] bytes = new byte[random.nextInt(64)];
      random.nextBytes(bytes);
      ByteBuf encoded = Unpooled.buffer();
      try {
        HpackHuffman.encode(bytes, encoded);
        assertThat(encoded.readableBytes()).isEqualTo(HpackHuffman.encodedLength(bytes));
        assertThat(decoder.decode(encoded, encoded.readerIndex(), encoded.readableBytes()))
            .isEqualTo(bytes);
      } finally {
        encoded.release();
      }
    }
  }

  @Test
  void refusesEosAndBadPadding() {
    assertThatThrownBy(() -> decode("ffff fffc")).hasMessageContaining("contains EOS");
    assertThatThrownBy(() -> decode("ff")).hasMessageContaining("padding longer than 7 bits");
    assertThatThrownBy(() -> decode("18")).hasMessageContaining("not all ones");
    assertThat(catchCompression("ff")).isTrue();
  }

  private boolean catchCompression(String hex) {
    try {
      decode(hex);
      return false;
    } catch (HpackException e) {
      return e.connectionError();
    }
  }

  private String decode(String hex) throws HpackException {
    ByteBuf in = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(hex.replace(" ", "")));
    try {
      return new String(decoder.decode(in, 0, in.readableBytes()), StandardCharsets.ISO_8859_1);
    } finally {
      in.release();
    }
  }

  private static String encode(String s) {
    ByteBuf out = Unpooled.buffer();
    try {
      HpackHuffman.encode(s.getBytes(StandardCharsets.ISO_8859_1), out);
      return ByteBufUtil.hexDump(out);
    } finally {
      out.release();
    }
  }
}
