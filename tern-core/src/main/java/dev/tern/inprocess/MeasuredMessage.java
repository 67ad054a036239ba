package dev.tern.inprocess;

import dev.tern.KnownLength;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * One serialized message on its way to the other side of an in-process stream, with its size in
 * bytes (so the receiver's size limit can be checked without reading it). Immutable; handed from
 * the sender's thread to the receiver's under the stream's lock.
 */
final class MeasuredMessage {
  final InputStream stream;
  final int size;

  private MeasuredMessage(InputStream stream, int size) {
    this.stream = stream;
    this.size = size;
  }

  /**
   * Measures {@code message}: a stream that knows its length ({@link KnownLength}, or a {@link
   * ByteArrayInputStream}) reports it through {@code available()}; any other stream is read into
   * memory and replaced by a {@link ByteArrayInputStream} over its bytes (and closed).
   *
   * @throws IOException if reading the message fails; {@code message} is then closed
   */
  static MeasuredMessage measure(InputStream message) throws IOException {
    if (message instanceof KnownLength || message instanceof ByteArrayInputStream) {
      return new MeasuredMessage(message, message.available());
    }
    try (InputStream in = message) {
      byte[] bytes = in.readAllBytes();
      return new MeasuredMessage(new ByteArrayInputStream(bytes), bytes.length);
    }
  }

  /** Releases the message without delivering it. */
  void discard() {
    closeQuietly(stream);
  }

  static void closeQuietly(InputStream stream) {
    try {
      stream.close();
    } catch (IOException ignored) {
      // Nothing was to be read from it anyway.
    }
  }
}
