package dev.tern.zstd;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Fuzzes {@link ZstdCodec#decompress} with arbitrary bytes as a peer's compressed message, read in
 * arbitrary chunk sizes and given up one byte past a limit, as the runtime reads a message.
 * Whatever the bytes:
 *
 * <ul>
 *   <li>opening the message either fails with an {@link java.io.IOException} saying why (the frame
 *       header is refused) or gives a stream; reading it ends, or fails with an IOException, never
 *       with another exception, and never gives more bytes than were asked for;
 *   <li>closing the stream closes the compressed source;
 *   <li>and bytes this codec compressed, at any level, come back as they were.
 * </ul>
 *
 * <p>See docs/fuzzing.md for long runs.
 */
class ZstdCodecFuzzTest {
  /** How much a reader takes before giving up, as the runtime's message limit does. */
  private static final int LIMIT = 1 << 20;

  @FuzzTest
  void decodesWhatItEncodedAndRefusesAnythingElseWithAnIoException(FuzzedDataProvider data)
      throws IOException {
    boolean roundTrip = data.consumeBoolean();
    int level = data.consumeInt(-5, 5);
    int chunk = data.consumeInt(1, 1 << 16);
    byte[] input = data.consumeRemainingAsBytes();
    ZstdCodec codec = ZstdCodec.withLevel(level);

    if (roundTrip) {
      byte[] compressed = ZstdCodecTest.compress(codec, input);
      try (InputStream in = codec.decompress(new ByteArrayInputStream(compressed))) {
        assertThat(readUpTo(in, chunk, input.length + 1)).isEqualTo(input);
      }
      return;
    }

    boolean[] sourceClosed = {false};
    InputStream source =
        new ByteArrayInputStream(input) {
          @Override
          public void close() {
            sourceClosed[0] = true;
          }
        };
    InputStream message;
    try {
      message = codec.decompress(source);
    } catch (IOException refused) {
      assertThat(refused.getMessage()).as("why the header was refused").contains("zstd frame");
      return;
    }
    try (message) {
      readUpTo(message, chunk, LIMIT + 1);
    } catch (IOException corrupt) {
      // A broken frame after a good header: zstd says why, the message fails when read.
      assertThat(corrupt.getMessage()).isNotNull();
    }
    assertThat(sourceClosed[0]).as("the compressed source closed with the message").isTrue();
  }

  /** Reads {@code in} in reads of at most {@code chunk} bytes until its end or {@code limit}. */
  private static byte[] readUpTo(InputStream in, int chunk, int limit) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[chunk];
    while (out.size() < limit) {
      int want = Math.min(chunk, limit - out.size());
      int n = in.read(buffer, 0, want);
      if (n == -1) {
        break;
      }
      assertThat(n).as("bytes read for %d asked", want).isBetween(0, want);
      out.write(buffer, 0, n);
    }
    return out.toByteArray();
  }
}
