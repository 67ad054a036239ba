package dev.tern.interop;

import dev.tern.Codec;
import dev.tern.Decompressor;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Tells whether the message just parsed on this thread arrived compressed. The interop cases need
 * it (the {@code expect_compressed} probes and the server-compressed cases), and gRPC's API keeps
 * per-message compression out of the application's sight, so this gzip decompressor marks the
 * thread that reads through it. Messages are parsed on the thread that delivers them to the call's
 * listener, so an interceptor's {@code onMessage} sees the mark of the message in hand.
 *
 * <p>Thread-safety: the mark is a thread-local; the decompressor itself is stateless.
 */
final class CompressionProbe implements Decompressor {
  private static final ThreadLocal<Boolean> READ_COMPRESSED = ThreadLocal.withInitial(() -> false);
  private static final Codec GZIP = new Codec.Gzip();

  @Override
  public String getMessageEncoding() {
    return GZIP.getMessageEncoding();
  }

  @Override
  public InputStream decompress(InputStream is) throws IOException {
    return new FilterInputStream(GZIP.decompress(is)) {
      @Override
      public int read() throws IOException {
        READ_COMPRESSED.set(true);
        return super.read();
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        READ_COMPRESSED.set(true);
        return super.read(b, off, len);
      }
    };
  }

  /** Whether a compressed message was read on this thread since the last call; clears the mark. */
  static boolean takeMark() {
    boolean compressed = READ_COMPRESSED.get();
    if (compressed) {
      READ_COMPRESSED.set(false); // most messages are not compressed: no write for those
    }
    return compressed;
  }

  /** Clears this thread's mark. */
  static void clear() {
    READ_COMPRESSED.set(false);
  }
}
