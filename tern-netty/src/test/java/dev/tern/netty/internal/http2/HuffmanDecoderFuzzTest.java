package dev.tern.netty.internal.http2;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

/**
 * Fuzzes {@link HuffmanDecoder}: arbitrary bytes either decode or fail with an {@link
 * HpackException} (EOS, bad padding), never another exception; what decodes is the one valid
 * encoding of its result (encoding it again gives the input back: the code is prefix-free and
 * padding is fixed), and any bytes encoded then decoded come back. See docs/fuzzing.md.
 */
class HuffmanDecoderFuzzTest {

  @FuzzTest
  void decodesOnlyValidEncodingsAndInvertsEncoding(FuzzedDataProvider data) {
    boolean encodeFirst = data.consumeBoolean();
    byte[] input = data.consumeRemainingAsBytes();
    HuffmanDecoder decoder = new HuffmanDecoder();
    ByteBuf in = Unpooled.buffer();
    try {
      if (encodeFirst) {
        HpackHuffman.encode(input, in);
        assertThat(in.readableBytes()).isEqualTo(HpackHuffman.encodedLength(input));
        assertThat(decode(decoder, in)).isEqualTo(input);
        return;
      }
      in.writeBytes(input);
      byte[] decoded;
      try {
        decoded = decode(decoder, in);
      } catch (HpackException e) {
        assertThat(e.getMessage()).isNotBlank();
        assertThat(e.connectionError()).isTrue();
        return;
      }
      assertThat(decoded.length).isLessThanOrEqualTo(input.length * 8 / 5);
      ByteBuf again = Unpooled.buffer();
      try {
        HpackHuffman.encode(decoded, again);
        assertThat(ByteBufUtil.getBytes(again)).isEqualTo(input);
      } finally {
        again.release();
      }
    } catch (HpackException e) {
      throw new AssertionError("encoded bytes failed to decode", e);
    } finally {
      in.release();
    }
  }

  private static byte[] decode(HuffmanDecoder decoder, ByteBuf in) throws HpackException {
    return decoder.decode(in, in.readerIndex(), in.readableBytes());
  }
}
