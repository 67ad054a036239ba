package dev.tern.testing;

import dev.tern.KnownLength;
import dev.tern.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Marshallers for tests that need no protobuf: raw bytes and UTF-8 strings. The streams they
 * produce know their length ({@link KnownLength}), as a real marshaller's should, so transports
 * frame them without copying. Immutable; thread-safe.
 */
public final class TestMarshallers {
  private static final MethodDescriptor.Marshaller<byte[]> BYTES = new BytesMarshaller();
  private static final MethodDescriptor.Marshaller<String> UTF8 = new Utf8Marshaller();

  private TestMarshallers() {}

  /** Passes byte arrays through unchanged (no copy on the way out; parse reads the stream). */
  public static MethodDescriptor.Marshaller<byte[]> bytes() {
    return BYTES;
  }

  /** Encodes strings as UTF-8. */
  public static MethodDescriptor.Marshaller<String> utf8() {
    return UTF8;
  }

  /** A stream over {@code bytes} (not copied) that knows its length. */
  public static InputStream knownLengthStream(byte[] bytes) {
    return new KnownLengthInputStream(Objects.requireNonNull(bytes, "bytes"));
  }

  /** Reads {@code stream} to its end and closes it. */
  public static byte[] readAll(InputStream stream) {
    try (InputStream in = stream) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("could not read message", e);
    }
  }

  /** A byte-array stream whose {@link #available()} is exact, so it may say {@link KnownLength}. */
  private static final class KnownLengthInputStream extends ByteArrayInputStream
      implements KnownLength {
    KnownLengthInputStream(byte[] bytes) {
      super(bytes);
    }
  }

  private static final class BytesMarshaller implements MethodDescriptor.Marshaller<byte[]> {
    @Override
    public InputStream stream(byte[] value) {
      return knownLengthStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      return readAll(stream);
    }

    @Override
    public String toString() {
      return "TestMarshallers.bytes()";
    }
  }

  private static final class Utf8Marshaller implements MethodDescriptor.Marshaller<String> {
    @Override
    public InputStream stream(String value) {
      return knownLengthStream(value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String parse(InputStream stream) {
      return new String(readAll(stream), StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
      return "TestMarshallers.utf8()";
    }
  }
}
