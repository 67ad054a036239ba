package dev.tern.zstd;

import com.github.luben.zstd.RecyclingBufferPool;
import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import dev.tern.Codec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Objects;

/**
 * The {@code "zstd"} message encoding (RFC 8878; proposed gRFC A122): each message is one zstd
 * frame, without a dictionary, compressed at {@linkplain #getLevel() a level} (zstd's default, 3,
 * unless {@link #withLevel} chose another).
 *
 * <p>Inbound messages: the first frame's header is checked before zstd's decoder is opened, and a
 * frame that names a dictionary or needs a window over {@link #MAX_WINDOW_BYTES} (8 MiB, the window
 * RFC 9659 asks every decoder of the HTTP {@code zstd} coding to support) fails the message, with
 * the reason, before any buffer is sized by it; the decoder enforces the same window on any frame
 * after the first. How far a message may expand is the runtime's business, as for gzip: the
 * decompressed stream is read through the max inbound message size, so a zstd bomb ends with
 * RESOURCE_EXHAUSTED after at most one byte past the limit has been decoded.
 *
 * <p>zstd's native memory is freed when a stream is closed (Tern's runtime closes every message
 * stream; a caller using the codec directly must close the streams it opens, as zstd-jni's streams
 * used here have no finalizer). Outbound frames never need a window over 8 MiB (levels above 19,
 * which would, are refused).
 *
 * <p>Immutable; thread-safe.
 */
public final class ZstdCodec implements Codec {
  /** The encoding's name in {@code grpc-encoding} and {@code grpc-accept-encoding}. */
  public static final String ENCODING = "zstd";

  /** zstd's own default level, a good balance of speed and size. */
  public static final int DEFAULT_LEVEL = 3;

  /**
   * The highest level {@link #withLevel} takes: levels 20 to 22 use windows of 32 to 128 MiB, which
   * peers keeping to RFC 9659's 8 MiB (Tern among them) refuse.
   */
  public static final int MAX_LEVEL = 19;

  /** The largest window an inbound frame may need: 8 MiB (RFC 9659). */
  public static final int MAX_WINDOW_BYTES = 1 << ZstdFrameHeader.MAX_WINDOW_LOG;

  private final int level;

  /** The codec at {@link #DEFAULT_LEVEL}. */
  public ZstdCodec() {
    this(DEFAULT_LEVEL);
  }

  private ZstdCodec(int level) {
    this.level = level;
  }

  /**
   * Returns a codec that compresses at {@code level}: from zstd's fastest negative levels (trading
   * size for speed) to {@link #MAX_LEVEL}; 0 means {@link #DEFAULT_LEVEL}. The level changes only
   * what this side sends; any level decompresses.
   *
   * @throws IllegalArgumentException if {@code level} is above {@link #MAX_LEVEL} or below zstd's
   *     lowest level
   */
  public static ZstdCodec withLevel(int level) {
    int lowest = Zstd.minCompressionLevel();
    if (level < lowest || level > MAX_LEVEL) {
      throw new IllegalArgumentException(
          "level must be from " + lowest + " to " + MAX_LEVEL + ", got " + level);
    }
    return new ZstdCodec(level == 0 ? DEFAULT_LEVEL : level);
  }

  /** The level outbound messages are compressed at. */
  public int getLevel() {
    return level;
  }

  @Override
  public String getMessageEncoding() {
    return ENCODING;
  }

  /**
   * {@inheritDoc} The frame is finished, and zstd's native compressor freed, when the returned
   * stream is closed.
   */
  @Override
  public OutputStream compress(OutputStream os) throws IOException {
    Objects.requireNonNull(os, "os");
    // Buffers come from zstd-jni's shared pool: every message opens a stream.
    ZstdOutputStreamNoFinalizer out =
        new ZstdOutputStreamNoFinalizer(os, RecyclingBufferPool.INSTANCE);
    try {
      out.setLevel(level);
    } catch (IOException | RuntimeException e) {
      out.close();
      throw e;
    }
    return out;
  }

  /**
   * {@inheritDoc}
   *
   * @throws IOException if {@code is} does not start with a zstd frame header this codec accepts
   *     (the message says why: not zstd, truncated, reserved bits set, a dictionary, or a window
   *     over {@link #MAX_WINDOW_BYTES})
   */
  @Override
  public InputStream decompress(InputStream is) throws IOException {
    Objects.requireNonNull(is, "is");
    byte[] header = is.readNBytes(ZstdFrameHeader.MAX_LENGTH);
    ZstdFrameHeader.check(header);
    return new ZstdMessageInputStream(header, is);
  }

  @Override
  public String toString() {
    return "ZstdCodec[level=" + level + "]";
  }
}
