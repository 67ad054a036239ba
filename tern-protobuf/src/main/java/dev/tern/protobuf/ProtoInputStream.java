package dev.tern.protobuf;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import dev.tern.KnownLength;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Objects;

/**
 * The bytes of one protobuf message, serialized only when read. Its {@link #available()} is exact
 * ({@link KnownLength}), so {@link dev.tern.internal.wire.MessageFramer} writes the length prefix
 * and then reads the message straight behind it. A read whose array has room for the whole message
 * serializes directly into that array; {@link #transferTo} writes the message straight to the
 * output. Only a reader that takes the message in smaller pieces causes one full serialization into
 * an intermediate array.
 *
 * <p>Not thread-safe: a stream is read by one thread at a time (the one framing the message, or the
 * in-process receiver it was handed to).
 */
final class ProtoInputStream extends InputStream implements KnownLength {
  private final Parser<?> parser;

  /** The message, until it is serialized or taken. */
  private MessageLite message;

  /** The serialized rest of the message, once a partial read forced serialization. */
  private ByteArrayInputStream partial;

  ProtoInputStream(MessageLite message, Parser<?> parser) {
    this.message = message;
    this.parser = parser;
  }

  Parser<?> parser() {
    return parser;
  }

  /** Returns the message if nothing of it has been read yet (and marks it read), else null. */
  MessageLite takeMessage() {
    MessageLite taken = message;
    message = null;
    return taken;
  }

  @Override
  public int available() {
    if (message != null) {
      return message.getSerializedSize();
    }
    return partial != null ? partial.available() : 0;
  }

  @Override
  public int read() {
    if (message != null) {
      serializeAll();
    }
    return partial != null ? partial.read() : -1;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    Objects.checkFromIndexSize(off, len, b.length);
    if (message != null) {
      int size = message.getSerializedSize();
      if (size == 0) {
        message = null;
        return len == 0 ? 0 : -1;
      }
      if (len >= size) {
        CodedOutputStream output = CodedOutputStream.newInstance(b, off, size);
        message.writeTo(output);
        output.checkNoSpaceLeft();
        message = null;
        return size;
      }
      serializeAll();
    }
    if (partial == null) {
      return len == 0 ? 0 : -1;
    }
    return partial.read(b, off, len);
  }

  @Override
  public long transferTo(OutputStream out) throws IOException {
    Objects.requireNonNull(out, "out");
    if (message != null) {
      int size = message.getSerializedSize();
      if (size > 0) { // an empty message (google.protobuf.Empty, say) has nothing to write
        message.writeTo(out);
      }
      message = null;
      return size;
    }
    return partial != null ? partial.transferTo(out) : 0;
  }

  @Override
  public long skip(long n) {
    if (message != null) {
      serializeAll();
    }
    return partial != null ? partial.skip(n) : 0;
  }

  @Override
  public void close() {
    message = null;
    partial = null;
  }

  private void serializeAll() {
    partial = new ByteArrayInputStream(message.toByteArray());
    message = null;
  }
}
