package dev.tern.http3.internal.frame;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;

/**
 * Fuzzes what tern-http3 parses of a peer: arbitrary bytes read as one stream's frames ({@link
 * Http3FrameReader}, as a request or a control stream), whole and in arbitrary chunks, with every
 * HEADERS block decoded by {@link QpackDecoder} under an arbitrary limit. Both readings give the
 * same events and end in the same {@link Http3Exception} (code and reason), or none; a block
 * decodes within the limit, reports that it is over it, or fails with QPACK_DECOMPRESSION_FAILED;
 * every buffer, the reader's own included, is released. See docs/fuzzing.md.
 */
class Http3FrameReaderFuzzTest {

  @FuzzTest
  void readsTheSameWholeOrInChunksAndReleasesEverything(FuzzedDataProvider data) {
    boolean control = data.consumeBoolean();
    int chunk = data.consumeInt(1, 64);
    int limit = data.consumeInt(1, 4096);
    byte[] input = data.consumeRemainingAsBytes();
    Http3FrameReader.Kind kind =
        control ? Http3FrameReader.Kind.CONTROL : Http3FrameReader.Kind.REQUEST;

    Reading whole = read(kind, limit, input, input.length);
    Reading chunked = read(kind, limit, input, chunk);

    assertThat(chunked.failure).isEqualTo(whole.failure);
    if (whole.failure == null) {
      // DATA payloads may be cut differently; everything else comes whole.
      assertThat(chunked.joined()).isEqualTo(whole.joined());
    }
  }

  private static Reading read(Http3FrameReader.Kind kind, int limit, byte[] input, int chunk) {
    Reading reading = new Reading(limit);
    Http3FrameReader reader = new Http3FrameReader(kind, reading, 2 * limit);
    List<ByteBuf> fed = new ArrayList<>();
    try {
      for (int i = 0; i < input.length; i += chunk) {
        ByteBuf piece = Unpooled.copiedBuffer(input, i, Math.min(chunk, input.length - i));
        fed.add(piece);
        reader.receive(piece);
        assertThat(piece.isReadable()).isFalse();
      }
    } catch (Http3Exception e) {
      assertThat(e.getMessage()).isNotBlank();
      reading.failure = e.code() + " " + e.connectionError() + " " + e.getMessage();
    } finally {
      reader.release();
      for (ByteBuf piece : fed) {
        assertThat(piece.release()).isTrue();
      }
    }
    return reading;
  }

  /** The events of one reading, as text. */
  private static final class Reading implements Http3FrameReader.Listener {
    private final QpackDecoder decoder;
    private final long limit;
    final List<String> events = new ArrayList<>();
    final StringBuilder dataRun = new StringBuilder();
    String failure;

    Reading(long limit) {
      this.decoder = new QpackDecoder(limit);
      this.limit = limit;
    }

    String joined() {
      flushData();
      return String.join("\n", events);
    }

    private void flushData() {
      if (dataRun.length() > 0) {
        events.add("DATA " + dataRun);
        dataRun.setLength(0);
      }
    }

    @Override
    public void onHeaders(ByteBuf block) throws Http3Exception {
      flushData();
      long[] size = {0};
      StringBuilder fields = new StringBuilder();
      boolean within =
          decoder.decode(
              block,
              (name, value, sensitive) -> {
                size[0] += name.length + value.length + 32;
                fields.append(name.length).append(':').append(value.length).append(' ');
              });
      assertThat(size[0]).isLessThanOrEqualTo(limit);
      events.add("HEADERS " + (within ? fields : "over the limit"));
    }

    @Override
    public void onHeadersTooLarge(long length) {
      flushData();
      events.add("HEADERS too large " + length);
    }

    @Override
    public void onData(ByteBuf data) {
      try {
        dataRun.append(ByteBufUtil.hexDump(data));
      } finally {
        data.release();
      }
    }

    @Override
    public void onSettings(long[] settings) {
      flushData();
      events.add("SETTINGS " + java.util.Arrays.toString(settings));
    }

    @Override
    public void onGoAway(long id) {
      flushData();
      events.add("GOAWAY " + id);
    }
  }
}
