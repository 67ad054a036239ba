package dev.tern.conformance;

import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The conformance runner's framing on a program's stdin and stdout: each message is a 4-byte
 * big-endian length followed by that many bytes of the binary protobuf message.
 *
 * <p>Stateless; callers serialize their own reads and writes on a stream.
 */
final class DelimitedMessages {
  /**
   * The largest message accepted: the runner's requests are small, except for the test cases with
   * large request messages (a few megabytes); a garbled length must not allocate gigabytes.
   */
  static final int MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

  private DelimitedMessages() {}

  /**
   * Reads the next message, or returns null at a clean end of {@code in} (before a length).
   *
   * @throws IOException if the stream ends inside a message, the length is out of range, or the
   *     bytes do not parse
   */
  static <T> T read(InputStream in, Parser<T> parser) throws IOException {
    DataInputStream data = new DataInputStream(in);
    int first = data.read();
    if (first < 0) {
      return null;
    }
    byte[] rest = new byte[3];
    try {
      data.readFully(rest);
    } catch (EOFException e) {
      throw new IOException("input ended inside a message's 4-byte length", e);
    }
    int length =
        (first << 24) | ((rest[0] & 0xff) << 16) | ((rest[1] & 0xff) << 8) | (rest[2] & 0xff);
    if (length < 0 || length > MAX_MESSAGE_BYTES) {
      throw new IOException(
          "message length " + Integer.toUnsignedString(length) + " is over " + MAX_MESSAGE_BYTES);
    }
    byte[] bytes = new byte[length];
    try {
      data.readFully(bytes);
    } catch (EOFException e) {
      throw new IOException("input ended inside a message of " + length + " bytes", e);
    }
    return parser.parseFrom(bytes);
  }

  /** Writes {@code message} with its length, and flushes. */
  static void write(OutputStream out, MessageLite message) throws IOException {
    byte[] bytes = message.toByteArray();
    int length = bytes.length;
    out.write(
        new byte[] {
          (byte) (length >>> 24), (byte) (length >>> 16), (byte) (length >>> 8), (byte) length
        });
    out.write(bytes);
    out.flush();
  }
}
