package dev.tern.services.binarylog;

import dev.tern.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * Messages as their serialized bytes: what a logged call carries, so the log sees the bytes on the
 * wire. Stateless; thread-safe.
 */
final class ByteArrayMarshaller implements MethodDescriptor.Marshaller<byte[]> {
  static final ByteArrayMarshaller INSTANCE = new ByteArrayMarshaller();

  private ByteArrayMarshaller() {}

  @Override
  public InputStream stream(byte[] value) {
    return new ByteArrayInputStream(value);
  }

  @Override
  public byte[] parse(InputStream stream) {
    return serialize(stream);
  }

  /** Reads {@code stream} to its end and closes it. */
  static byte[] serialize(InputStream stream) {
    try (InputStream in = stream) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
