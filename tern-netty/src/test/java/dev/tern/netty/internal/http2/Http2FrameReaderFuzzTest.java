package dev.tern.netty.internal.http2;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * Fuzzes {@link Http2FrameReader} with arbitrary bytes, as a hostile peer would send them, in
 * arbitrary chunks. Reading them whole and reading them in chunks give the same frames and the same
 * error (a {@link Http2FrameException} with a reason; after a stream error reading goes on, after a
 * connection error it stops), never another exception; header blocks stay within the cap; and every
 * buffer, the reader's own included, is released. See docs/fuzzing.md.
 */
class Http2FrameReaderFuzzTest {
  private static final int MAX_HEADER_BLOCK = 4096;

  @FuzzTest
  void readsTheSameInAnyChunksAndReleasesEverything(FuzzedDataProvider data) {
    int[] chunkSizes = new int[data.consumeInt(1, 8)];
    for (int i = 0; i < chunkSizes.length; i++) {
      chunkSizes[i] = data.consumeInt(1, 64);
    }
    byte[] input = data.consumeRemainingAsBytes();

    TrackingAllocator alloc = new TrackingAllocator();
    List<String> whole = read(alloc, input, new int[] {Math.max(1, input.length)});
    List<String> chunked = read(alloc, input, chunkSizes);
    assertThat(chunked).isEqualTo(whole);
    alloc.assertAllReleased();
  }

  private static List<String> read(TrackingAllocator alloc, byte[] input, int[] chunkSizes) {
    RecordingListener listener =
        new RecordingListener() {
          @Override
          public void onHeaders(int streamId, ByteBuf headerBlock, boolean endStream) {
            assertThat(headerBlock.readableBytes()).isLessThanOrEqualTo(MAX_HEADER_BLOCK);
            super.onHeaders(streamId, headerBlock, endStream);
          }
        };
    List<String> events = listener.events;
    Http2FrameReader reader = new Http2FrameReader(MAX_HEADER_BLOCK);
    try {
      int offset = 0;
      for (int i = 0; offset < input.length; i++) {
        int n = Math.min(chunkSizes[i % chunkSizes.length], input.length - offset);
        ByteBuf chunk = alloc.of(input, offset, n);
        offset += n;
        try {
          while (chunk.isReadable()) {
            try {
              reader.read(chunk, listener);
            } catch (Http2FrameException e) {
              assertThat(e.getMessage()).isNotBlank();
              events.add(
                  (e.connectionError() ? "connection error " : "stream error " + e.streamId())
                      + " "
                      + e.errorCode()
                      + ": "
                      + e.getMessage());
              if (e.connectionError()) {
                return new ArrayList<>(events);
              }
            }
          }
        } finally {
          chunk.release();
        }
      }
      return new ArrayList<>(events);
    } finally {
      reader.close();
    }
  }
}
