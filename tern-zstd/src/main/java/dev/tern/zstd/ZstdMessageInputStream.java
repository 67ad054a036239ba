package dev.tern.zstd;

import com.github.luben.zstd.RecyclingBufferPool;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.util.Objects;

/**
 * One message's decompressed bytes. zstd's native decoder is opened on the first read, not when the
 * message is opened (which the transport does on its own thread), and it refuses frames needing a
 * window over {@code 2^ZstdFrameHeader.MAX_WINDOW_LOG} bytes. Closing frees the decoder and closes
 * the compressed source.
 *
 * <p>Not thread-safe: one message, read by one thread at a time.
 */
final class ZstdMessageInputStream extends InputStream {
  private final InputStream compressed;
  private final byte[] oneByte = new byte[1];
  private ZstdInputStreamNoFinalizer decoder;
  private boolean closed;

  /**
   * @param header the bytes already read from {@code rest} (the checked frame header and perhaps
   *     more)
   * @param rest the rest of the compressed message
   */
  ZstdMessageInputStream(byte[] header, InputStream rest) {
    this.compressed = new SequenceInputStream(new ByteArrayInputStream(header), rest);
  }

  @Override
  public int read() throws IOException {
    int n = read(oneByte, 0, 1);
    return n == -1 ? -1 : oneByte[0] & 0xFF;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    Objects.checkFromIndexSize(off, len, b.length);
    if (len == 0) {
      return 0;
    }
    return decoder().read(b, off, len);
  }

  private ZstdInputStreamNoFinalizer decoder() throws IOException {
    if (closed) {
      throw new IOException("stream closed");
    }
    if (decoder == null) {
      ZstdInputStreamNoFinalizer opened =
          new ZstdInputStreamNoFinalizer(compressed, RecyclingBufferPool.INSTANCE);
      try {
        opened.setLongMax(ZstdFrameHeader.MAX_WINDOW_LOG);
      } catch (IOException | RuntimeException e) {
        opened.close();
        throw e;
      }
      decoder = opened;
    }
    return decoder;
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    if (decoder != null) {
      decoder.close(); // also closes the compressed source
    } else {
      compressed.close();
    }
  }
}
