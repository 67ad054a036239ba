package dev.tern.protobuf;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.ExtensionRegistryLite;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import com.google.protobuf.UnsafeByteOperations;
import dev.tern.KnownLength;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;

/**
 * Marshals protobuf messages of one type. Outbound messages become a {@link ProtoInputStream},
 * which serializes lazily and knows its length. Inbound streams are parsed with a {@link
 * CodedInputStream}; when the stream knows its length the bytes are read into one exactly sized
 * array and parsed from there, its {@code bytes} fields sharing that array.
 *
 * <p>Immutable; thread-safe: one instance serves every call of a method concurrently.
 */
final class ProtoMarshaller<T extends MessageLite> implements MethodDescriptor.Marshaller<T> {
  private final T defaultInstance;
  private final Parser<T> parser;
  private final int recursionLimit;

  @SuppressWarnings("unchecked") // a message's parser produces messages of its own type
  ProtoMarshaller(T defaultInstance, int recursionLimit) {
    this.defaultInstance = Objects.requireNonNull(defaultInstance, "defaultInstance");
    this.parser = (Parser<T>) defaultInstance.getParserForType();
    this.recursionLimit = recursionLimit;
  }

  @Override
  public InputStream stream(T value) {
    return new ProtoInputStream(Objects.requireNonNull(value, "value"), parser);
  }

  @Override
  public T parse(InputStream stream) {
    Objects.requireNonNull(stream, "stream");
    if (stream instanceof ProtoInputStream) {
      // In-process calls hand the sender's stream straight over: messages are immutable, so
      // the receiver can take the message itself and skip serializing and parsing altogether.
      ProtoInputStream protoStream = (ProtoInputStream) stream;
      if (protoStream.parser() == parser) {
        @SuppressWarnings("unchecked") // same parser, so the same message type
        T message = (T) protoStream.takeMessage();
        if (message != null) {
          return message;
        }
      }
    }
    try {
      return parseFrom(stream);
    } catch (InvalidProtocolBufferException e) {
      throw Status.INTERNAL
          .withDescription("Invalid protobuf byte sequence for " + typeName(defaultInstance))
          .withCause(e)
          .asRuntimeException();
    } catch (IOException e) {
      throw Status.INTERNAL
          .withDescription("Failed to read " + typeName(defaultInstance) + " message")
          .withCause(e)
          .asRuntimeException();
    }
  }

  private T parseFrom(InputStream stream) throws IOException {
    CodedInputStream input;
    if (stream instanceof KnownLength) {
      int size = stream.available();
      if (size == 0) {
        return defaultInstance;
      }
      byte[] bytes = new byte[size];
      int read = stream.readNBytes(bytes, 0, size);
      if (read != size || stream.read() != -1) {
        throw new StatusRuntimeException(
            Status.INTERNAL.withDescription(
                "Message stream for "
                    + typeName(defaultInstance)
                    + " held a different number of bytes than the "
                    + size
                    + " it announced"));
      }
      // The array is ours alone and never written again, so bytes fields may share it instead of
      // copying. Protobuf shares only from an input it knows to be immutable, which a plain
      // newInstance(byte[]) is not (aliasing would silently copy every bytes field once more); a
      // wrapping ByteString's input is.
      input = UnsafeByteOperations.unsafeWrap(bytes).newCodedInput();
      input.enableAliasing(true);
    } else {
      input = CodedInputStream.newInstance(stream);
      // No size limit here: the transport already enforced the inbound message size limit.
      input.setSizeLimit(Integer.MAX_VALUE);
    }
    input.setRecursionLimit(recursionLimit);
    T message = parser.parseFrom(input, ExtensionRegistryLite.getEmptyRegistry());
    // parseFrom stops at an end-group tag; a whole message must end exactly at end of input.
    input.checkLastTagWas(0);
    return message;
  }

  /** The message's full proto name when it carries a descriptor, else its Java class name. */
  static String typeName(MessageLite message) {
    if (message instanceof Message) {
      return ((Message) message).getDescriptorForType().getFullName();
    }
    return message.getClass().getName();
  }

  @Override
  public String toString() {
    return "ProtoMarshaller[" + typeName(defaultInstance) + "]";
  }
}
