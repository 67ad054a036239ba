package dev.tern.protobuf;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import java.util.Objects;

/** Factories that connect protobuf-java messages to Tern's marshalling and metadata. */
public final class ProtoUtils {

  /**
   * protobuf-java's own default nesting limit: deep enough for real schemas, shallow enough that a
   * hostile message cannot exhaust the parsing thread's stack.
   */
  public static final int DEFAULT_RECURSION_LIMIT = 100;

  private ProtoUtils() {}

  /**
   * Returns a marshaller for messages of {@code defaultInstance}'s type, e.g. {@code
   * ProtoUtils.marshaller(HelloRequest.getDefaultInstance())}. Parsing fails with a {@link
   * dev.tern.StatusRuntimeException} carrying {@code INTERNAL} when the bytes are not a valid
   * message or nest deeper than {@value #DEFAULT_RECURSION_LIMIT} levels.
   *
   * @throws NullPointerException naming {@code defaultInstance} if it is null
   */
  public static <T extends MessageLite> MethodDescriptor.Marshaller<T> marshaller(
      T defaultInstance) {
    return new ProtoMarshaller<>(defaultInstance, DEFAULT_RECURSION_LIMIT);
  }

  /**
   * Like {@link #marshaller(MessageLite)}, with a different limit on how deeply messages may nest.
   *
   * @throws IllegalArgumentException naming {@code recursionLimit} if it is not positive
   */
  public static <T extends MessageLite> MethodDescriptor.Marshaller<T> marshallerWithRecursionLimit(
      T defaultInstance, int recursionLimit) {
    if (recursionLimit <= 0) {
      throw new IllegalArgumentException("recursionLimit must be positive: " + recursionLimit);
    }
    return new ProtoMarshaller<>(defaultInstance, recursionLimit);
  }

  /**
   * Returns a binary metadata key whose values are messages of {@code defaultInstance}'s type. Its
   * name is the message's full name plus {@code "-bin"}, e.g. {@code "google.rpc.status-bin"}
   * (metadata names are lower case). Reading a value that is not a valid message throws {@link
   * IllegalArgumentException}.
   *
   * @throws NullPointerException naming {@code defaultInstance} if it is null
   */
  public static <T extends Message> Metadata.Key<T> keyForProto(T defaultInstance) {
    Objects.requireNonNull(defaultInstance, "defaultInstance");
    return Metadata.Key.of(
        defaultInstance.getDescriptorForType().getFullName() + Metadata.BINARY_HEADER_SUFFIX,
        metadataMarshaller(defaultInstance));
  }

  /**
   * Returns a binary metadata marshaller for messages of {@code defaultInstance}'s type. Reading a
   * value that is not a valid message throws {@link IllegalArgumentException}.
   */
  public static <T extends MessageLite> Metadata.BinaryMarshaller<T> metadataMarshaller(
      T defaultInstance) {
    Objects.requireNonNull(defaultInstance, "defaultInstance");
    return new MessageMetadataMarshaller<>(defaultInstance);
  }

  /** Serializes with {@code toByteArray}; parses with the message's parser. Thread-safe. */
  private static final class MessageMetadataMarshaller<T extends MessageLite>
      implements Metadata.BinaryMarshaller<T> {
    private final T defaultInstance;
    private final Parser<T> parser;

    @SuppressWarnings("unchecked") // a message's parser produces messages of its own type
    MessageMetadataMarshaller(T defaultInstance) {
      this.defaultInstance = defaultInstance;
      this.parser = (Parser<T>) defaultInstance.getParserForType();
    }

    @Override
    public byte[] toBytes(T value) {
      return Objects.requireNonNull(value, "value").toByteArray();
    }

    @Override
    public T parseBytes(byte[] serialized) {
      try {
        return parser.parseFrom(serialized);
      } catch (InvalidProtocolBufferException e) {
        throw new IllegalArgumentException(
            "metadata value is not a valid " + ProtoMarshaller.typeName(defaultInstance), e);
      }
    }

    @Override
    public String toString() {
      return "ProtoMetadataMarshaller[" + ProtoMarshaller.typeName(defaultInstance) + "]";
    }
  }
}
