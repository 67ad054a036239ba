package dev.tern.zstd;

import dev.tern.Decompressor;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Tern's zstd decompressor, counting the messages it opens: a test's proof that what arrived was
 * zstd and Tern decoded it. Thread-safe.
 */
final class CountingZstd implements Decompressor {
  final AtomicInteger messages = new AtomicInteger();
  private final ZstdCodec zstd = new ZstdCodec();

  @Override
  public String getMessageEncoding() {
    return ZstdCodec.ENCODING;
  }

  @Override
  public InputStream decompress(InputStream is) throws IOException {
    messages.incrementAndGet();
    return new FilterInputStream(zstd.decompress(is)) {};
  }
}
