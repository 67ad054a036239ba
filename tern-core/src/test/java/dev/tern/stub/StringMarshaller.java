package dev.tern.stub;

import dev.tern.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Marshals strings as UTF-8 for the stub tests. Immutable; thread-safe. */
final class StringMarshaller implements MethodDescriptor.Marshaller<String> {
  static final StringMarshaller INSTANCE = new StringMarshaller();

  private StringMarshaller() {}

  @Override
  public InputStream stream(String value) {
    return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public String parse(InputStream stream) {
    try {
      return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A String-to-String method of the given type named {@code test.Echo/<type>}. */
  static MethodDescriptor<String, String> method(MethodDescriptor.MethodType type) {
    return MethodDescriptor.newBuilder(INSTANCE, INSTANCE)
        .setType(type)
        .setFullMethodName("test.Echo/" + type)
        .build();
  }
}
