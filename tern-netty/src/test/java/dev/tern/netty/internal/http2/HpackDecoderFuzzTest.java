package dev.tern.netty.internal.http2;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Fuzzes {@link HpackDecoder} with arbitrary header blocks, several in a row on one decoder (the
 * dynamic table carries over), as a hostile peer would send them. Each block either decodes, or
 * fails with an {@link HpackException} with a reason (a stream error, after which decoding goes on,
 * or a connection error, after which it stops); never another exception. What a block delivers
 * stays within the header-list limit, the dynamic table within its size, and encoding the delivered
 * fields with {@link HpackEncoder} decodes back to the same fields. See docs/fuzzing.md for long
 * runs.
 */
class HpackDecoderFuzzTest {

  @FuzzTest
  void decodesWithinTheLimitsOrFailsWithAReason(FuzzedDataProvider data) throws HpackException {
    int maxHeaderListSize = data.consumeInt(1, 16 * 1024);
    int tableSize = data.consumeInt(0, 4096);
    int blocks = data.consumeInt(1, 4);
    int[] sizes = new int[blocks - 1];
    for (int i = 0; i < sizes.length; i++) {
      sizes[i] = data.consumeInt(0, 256);
    }
    byte[] input = data.consumeRemainingAsBytes();

    HpackDecoder decoder = new HpackDecoder(maxHeaderListSize, tableSize);
    int offset = 0;
    for (int i = 0; i < blocks; i++) {
      int size =
          i < sizes.length ? Math.min(sizes[i], input.length - offset) : input.length - offset;
      ByteBuf block = Unpooled.wrappedBuffer(Arrays.copyOfRange(input, offset, offset + size));
      offset += size;
      List<byte[][]> fields = new ArrayList<>();
      long listSize = 0;
      try {
        decoder.decode(block, (n, v, s) -> fields.add(new byte[][] {n, v, {(byte) (s ? 1 : 0)}}));
      } catch (HpackException e) {
        assertThat(e.getMessage()).as("reason").isNotBlank();
        if (e.connectionError()) {
          return;
        }
        continue;
      } finally {
        block.release();
      }
      for (byte[][] field : fields) {
        listSize += field[0].length + field[1].length + 32;
      }
      assertThat(listSize).as("header list size").isLessThanOrEqualTo(maxHeaderListSize);
      if (decoder.dynamicTable() != null) {
        assertThat(decoder.dynamicTable().size()).isLessThanOrEqualTo(tableSize);
      }
      assertReencodes(fields);
    }
  }

  private static void assertReencodes(List<byte[][]> fields) throws HpackException {
    HpackEncoder encoder = new HpackEncoder();
    ByteBuf out = Unpooled.buffer();
    List<String> again = new ArrayList<>();
    try {
      encoder.beginBlock(out);
      for (byte[][] field : fields) {
        encoder.header(out, field[0], field[1], field[2][0] == 1);
      }
      new HpackDecoder(Long.MAX_VALUE, 4096)
          .decode(
              out, (n, v, s) -> again.add(ByteBufUtil.hexDump(n) + ":" + ByteBufUtil.hexDump(v)));
    } finally {
      out.release();
    }
    List<String> expected = new ArrayList<>();
    for (byte[][] field : fields) {
      expected.add(ByteBufUtil.hexDump(field[0]) + ":" + ByteBufUtil.hexDump(field[1]));
    }
    assertThat(again).isEqualTo(expected);
  }
}
