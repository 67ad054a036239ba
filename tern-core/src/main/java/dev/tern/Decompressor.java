package dev.tern;

import java.io.IOException;
import java.io.InputStream;

/**
 * Decompresses inbound messages for one {@code grpc-encoding}.
 *
 * <p>Implementations must be thread-safe: one instance is shared by every call that uses the
 * encoding, each message getting its own stream from {@link #decompress}.
 */
public interface Decompressor {

  /**
   * Returns the name of this encoding as received in the {@code grpc-encoding} header, such as
   * {@code "gzip"}. Must be a lower-case token without commas or whitespace.
   */
  String getMessageEncoding();

  /**
   * Wraps {@code is} so that reading the returned stream yields the decompressed bytes of {@code
   * is}. Closing the returned stream closes {@code is}.
   *
   * @throws IOException if {@code is} does not start like data of this encoding
   */
  InputStream decompress(InputStream is) throws IOException;
}
