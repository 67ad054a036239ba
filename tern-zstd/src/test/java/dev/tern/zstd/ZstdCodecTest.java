package dev.tern.zstd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import dev.tern.Codec;
import dev.tern.CompressorRegistry;
import dev.tern.DecompressorRegistry;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ZstdCodecTest {
  private static final byte[] TEXT = text(1024 * 1024);

  @Test
  void theJarOnThePathAddsZstdToTheDefaultRegistriesAdvertisedAfterTheBuiltIns() {
    DecompressorRegistry decompressors = DecompressorRegistry.getDefaultInstance();

    assertThat(decompressors.getAdvertisedMessageEncodingsHeader()).isEqualTo("gzip,identity,zstd");
    assertThat(decompressors.lookupDecompressor("zstd")).isInstanceOf(ZstdCodec.class);
    assertThat(CompressorRegistry.getDefaultInstance().lookupCompressor("zstd"))
        .isInstanceOf(ZstdCodec.class);
    assertThat(new ZstdCodecProvider().isAvailable()).isTrue();
  }

  @Test
  void messagesSurviveTheRoundTripAtEveryKindOfLevel() throws IOException {
    for (int level : new int[] {-5, 1, ZstdCodec.DEFAULT_LEVEL, ZstdCodec.MAX_LEVEL}) {
      ZstdCodec codec = ZstdCodec.withLevel(level);
      byte[] compressed = compress(codec, TEXT);

      assertThat(compressed.length).as("level %d", level).isLessThan(TEXT.length / 3);
      assertThat(decompress(codec, compressed)).as("level %d", level).isEqualTo(TEXT);
    }
  }

  @Test
  void aMessageFedAndReadOneByteAtATimeComesOutWhole() throws IOException {
    byte[] message = text(64 * 1024);
    InputStream trickle =
        new ByteArrayInputStream(compress(new ZstdCodec(), message)) {
          @Override
          public synchronized int read(byte[] b, int off, int len) {
            return super.read(b, off, Math.min(len, 1));
          }
        };
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (InputStream in = new ZstdCodec().decompress(trickle)) {
      for (int b = in.read(); b != -1; b = in.read()) {
        out.write(b);
      }
    }

    assertThat(out.toByteArray()).isEqualTo(message);
  }

  @Test
  void anEmptyMessageIsOneEmptyFrame() throws IOException {
    ZstdCodec codec = new ZstdCodec();
    byte[] compressed = compress(codec, new byte[0]);

    assertThat(compressed).isNotEmpty();
    assertThat(decompress(codec, compressed)).isEmpty();
  }

  @Test
  void evenTheHighestLevelSendsFramesAnyRfc9659DecoderTakes() throws IOException {
    // Streamed, so the size is unknown when the header is written: the level alone sets the window.
    byte[] compressed = compress(ZstdCodec.withLevel(ZstdCodec.MAX_LEVEL), text(64 * 1024));

    ZstdFrameHeader.check(Arrays.copyOf(compressed, ZstdFrameHeader.MAX_LENGTH));
    assertThat(windowLog(compressed)).isEqualTo(23);
  }

  @Test
  void levelsOutsideTheRangeAreRefusedNamingTheRange() {
    assertThat(ZstdCodec.withLevel(0).getLevel()).isEqualTo(ZstdCodec.DEFAULT_LEVEL);
    assertThatThrownBy(() -> ZstdCodec.withLevel(20))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageEndingWith(" to 19, got 20");
    assertThatThrownBy(() -> ZstdCodec.withLevel(Integer.MIN_VALUE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("level must be from -");
  }

  @Test
  void dataThatIsNotZstdFailsWhenTheMessageIsOpened() throws IOException {
    byte[] gzip = compress(new Codec.Gzip(), TEXT);

    assertRefused(gzip, "not a zstd frame: magic number 0x00088B1F, expected 0xFD2FB528");
    assertRefused(new byte[0], "zstd frame truncated: 0 bytes, too few for a frame header");
    byte[] frame = compress(new ZstdCodec(), TEXT);
    assertRefused(Arrays.copyOf(frame, 5), "zstd frame truncated: 5 bytes, too few");
  }

  @Test
  void headersWithReservedBitsOrADictionaryAreRefused() throws IOException {
    byte[] frame = compress(new ZstdCodec(), TEXT);
    byte[] reserved = frame.clone();
    reserved[4] |= 0x08;
    assertRefused(reserved, "zstd frame header has its reserved bit set");

    // Dictionary_ID_flag 1: one byte of dictionary ID after the window descriptor.
    byte[] dictionary = header(0x01, 0x00, 7);
    assertRefused(dictionary, "zstd frame needs dictionary 7; gRPC's zstd uses no dictionary");
    assertRefused(header(0x02, 0x00, 7), "zstd frame truncated: 7 bytes, its header needs 8");
  }

  @Test
  void framesDeclaringWindowsOver8MiBAreRefusedBeforeTheDecoderOpens() throws IOException {
    // Window descriptor: exponent 21 (2^31 bytes), mantissa 0.
    assertRefused(
        header(0x00, 21 << 3),
        "zstd frame needs a window of 2147483648 bytes, over the 8388608 this decoder allows");
    // Exponent 13 and mantissa 1: 8 MiB + 1 MiB.
    assertRefused(header(0x00, (13 << 3) | 1), "a window of 9437184 bytes");
    // Single segment: the window is the declared content size, 2^40 here, and 2^64 - 1.
    byte[] singleSegment = header(0xE0, 0, 0, 0, 0, 0, 1, 0, 0, 0);
    assertRefused(singleSegment, "a window of 1099511627776 bytes");
    byte[] largest = header(0xE0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF);
    assertRefused(largest, "a window of 18446744073709551615 bytes");
    // Exactly 8 MiB is fine (the window descriptor of a level 19 frame).
    ZstdFrameHeader.check(header(0x00, 13 << 3));
  }

  @Test
  void aLaterFrameWithAWindowOver8MiBFailsTheReadNotTheProcess() throws IOException {
    ByteArrayOutputStream message = new ByteArrayOutputStream();
    message.writeBytes(compress(new ZstdCodec(), TEXT));
    message.writeBytes(compressWithWindowLog(27, TEXT)); // what level 22 sends: 128 MiB
    ZstdCodec codec = new ZstdCodec();

    assertThatThrownBy(() -> decompress(codec, message.toByteArray()))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("Frame requires too much memory");
    assertRefused(compressWithWindowLog(27, TEXT), "a window of 134217728 bytes");
  }

  @Test
  void aCorruptBlockFailsTheReadWithZstdsReason() throws IOException {
    byte[] frame = compress(new ZstdCodec(), TEXT);
    // The first block header follows the 6-byte frame header; block type 3 is reserved.
    frame[6] |= 0x06;

    assertThatThrownBy(() -> decompress(new ZstdCodec(), frame))
        .isInstanceOf(IOException.class)
        .hasMessage("Data corruption detected");
  }

  @Test
  void closingBeforeReadingClosesTheSourceAndReadingAfterCloseFails() throws IOException {
    boolean[] closed = {false};
    InputStream source =
        new ByteArrayInputStream(compress(new ZstdCodec(), TEXT)) {
          @Override
          public void close() {
            closed[0] = true;
          }
        };
    InputStream message = new ZstdCodec().decompress(source);

    message.close();

    assertThat(closed[0]).isTrue();
    assertThatThrownBy(message::read).isInstanceOf(IOException.class).hasMessage("stream closed");
  }

  /** A frame header: magic, {@code descriptor}, then {@code rest}. */
  private static byte[] header(int descriptor, int... rest) {
    byte[] header = new byte[5 + rest.length];
    header[0] = 0x28;
    header[1] = (byte) 0xB5;
    header[2] = 0x2F;
    header[3] = (byte) 0xFD;
    header[4] = (byte) descriptor;
    for (int i = 0; i < rest.length; i++) {
      header[5 + i] = (byte) rest[i];
    }
    return header;
  }

  private static void assertRefused(byte[] compressed, String message) {
    assertThatThrownBy(() -> new ZstdCodec().decompress(new ByteArrayInputStream(compressed)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(message);
  }

  private static int windowLog(byte[] frame) {
    assertThat(frame[4] & 0x20).as("not single-segment").isZero();
    return 10 + ((frame[5] & 0xFF) >>> 3);
  }

  static byte[] compress(Codec codec, byte[] data) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (OutputStream compressing = codec.compress(out)) {
      compressing.write(data);
    }
    return out.toByteArray();
  }

  private static byte[] decompress(Codec codec, byte[] compressed) throws IOException {
    try (InputStream in = codec.decompress(new ByteArrayInputStream(compressed))) {
      return in.readAllBytes();
    }
  }

  /** A frame as a peer compressing with a {@code 2^windowLog} window sends it. */
  static byte[] compressWithWindowLog(int windowLog, byte[] data) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (ZstdOutputStreamNoFinalizer zstd = new ZstdOutputStreamNoFinalizer(out)) {
      zstd.setWindowLog(windowLog);
      zstd.write(data);
    }
    return out.toByteArray();
  }

  /** {@code length} bytes of compressible text, different on every line. */
  static byte[] text(int length) {
    StringBuilder text = new StringBuilder(length + 64);
    for (int line = 0; text.length() < length; line++) {
      text.append("message ").append(line).append(": the quick brown fox, ").append(line * 31);
      text.append('\n');
    }
    return Arrays.copyOf(text.toString().getBytes(StandardCharsets.US_ASCII), length);
  }
}
