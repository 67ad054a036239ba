package dev.tern;

import java.io.IOException;
import java.io.OutputStream;

/**
 * Compresses outbound messages for one {@code grpc-encoding}.
 *
 * <p>Implementations must be thread-safe: one instance is shared by every call that uses the
 * encoding, each call getting its own stream from {@link #compress}.
 */
public interface Compressor {

  /**
   * Returns the name of this encoding as sent in the {@code grpc-encoding} header, such as {@code
   * "gzip"}. Must be a lower-case token without commas or whitespace.
   */
  String getMessageEncoding();

  /**
   * Wraps {@code os} so that bytes written to the returned stream reach {@code os} compressed. The
   * caller closes the returned stream to finish the compressed data; closing it also closes {@code
   * os}.
   */
  OutputStream compress(OutputStream os) throws IOException;
}
