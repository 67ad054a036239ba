package dev.tern;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import java.util.zip.InflaterInputStream;

/**
 * A message encoding that can both compress and decompress, with the built-in encodings gRPC
 * implementations commonly share: {@link Identity#NONE}, {@link Gzip} and {@link Deflate}. Other
 * encodings come from their own artifacts through {@link CodecProvider} ({@code zstd}: {@code
 * tern-zstd}).
 *
 * <p>Implementations must be thread-safe; the built-ins are immutable and thread-safe.
 */
public interface Codec extends Compressor, Decompressor {

  /**
   * The {@code "gzip"} encoding (RFC 1952), backed by {@link java.util.zip}. Immutable;
   * thread-safe.
   */
  final class Gzip implements Codec {
    /** Creates the gzip codec; instances are interchangeable. */
    public Gzip() {}

    @Override
    public String getMessageEncoding() {
      return "gzip";
    }

    @Override
    public OutputStream compress(OutputStream os) throws IOException {
      return new GZIPOutputStream(os);
    }

    @Override
    public InputStream decompress(InputStream is) throws IOException {
      return new GZIPInputStream(is);
    }
  }

  /**
   * The {@code "deflate"} encoding: zlib-wrapped deflate data (RFC 1950), as the HTTP and gRPC
   * specifications define it (not raw deflate). Immutable; thread-safe.
   */
  final class Deflate implements Codec {
    /** Creates the deflate codec; instances are interchangeable. */
    public Deflate() {}

    @Override
    public String getMessageEncoding() {
      return "deflate";
    }

    @Override
    public OutputStream compress(OutputStream os) {
      // The one-argument constructors own their Deflater/Inflater and end it on close, so native
      // memory is freed as soon as the stream is closed rather than when it is garbage collected.
      return new DeflaterOutputStream(os);
    }

    @Override
    public InputStream decompress(InputStream is) {
      return new InflaterInputStream(is);
    }
  }

  /**
   * The {@code "identity"} encoding: no compression. {@link #compress} and {@link #decompress}
   * return their argument. Immutable; thread-safe.
   */
  final class Identity implements Codec {
    /** The only instance. */
    public static final Codec NONE = new Identity();

    private Identity() {}

    @Override
    public String getMessageEncoding() {
      return "identity";
    }

    @Override
    public OutputStream compress(OutputStream os) {
      return os;
    }

    @Override
    public InputStream decompress(InputStream is) {
      return is;
    }
  }
}
