package dev.tern.web.internal;

import com.google.protobuf.Descriptors;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.protobuf.ProtoMethodDescriptorSupplier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The JSON codec of gRPC-Web and Connect for one method: the proto3 JSON mapping (protobuf-java-
 * util's {@link JsonFormat}), request JSON to the binary form the method's marshaller reads, and
 * binary responses back to JSON. Messages are handled as {@link DynamicMessage}s of the method's
 * input and output types, so any generated service works; {@code Any} fields resolve through a
 * registry of every message in the method's file and the files it imports. Unknown JSON fields are
 * ignored, as Connect's own implementations do.
 *
 * <p>Immutable; thread-safe. Registries are built once per file and shared.
 */
final class JsonCodec implements MessageTransform {
  private static final Map<Descriptors.FileDescriptor, JsonFormat.TypeRegistry> REGISTRIES =
      new ConcurrentHashMap<>();

  private final Descriptors.Descriptor input;
  private final Descriptors.Descriptor output;
  private final JsonFormat.Parser parser;
  private final JsonFormat.Printer printer;

  private JsonCodec(Descriptors.MethodDescriptor method) {
    this.input = method.getInputType();
    this.output = method.getOutputType();
    JsonFormat.TypeRegistry registry =
        REGISTRIES.computeIfAbsent(method.getFile(), JsonCodec::registryOf);
    this.parser = JsonFormat.parser().usingTypeRegistry(registry).ignoringUnknownFields();
    this.printer =
        JsonFormat.printer().usingTypeRegistry(registry).omittingInsignificantWhitespace();
  }

  /**
   * The JSON codec of {@code method}, or null if it has no protobuf schema (it was not generated
   * from a {@code .proto} file), in which case JSON cannot be mapped to its messages.
   */
  static JsonCodec forMethod(MethodDescriptor<?, ?> method) {
    if (method != null
        && method.getSchemaDescriptor() instanceof ProtoMethodDescriptorSupplier supplier) {
      return new JsonCodec(supplier.getMethodDescriptor());
    }
    return null;
  }

  /** The description of the error a JSON request to a method without a schema gets. */
  static Status noSchema(String fullMethodName) {
    return Status.INVALID_ARGUMENT.withDescription(
        "JSON is not available for "
            + fullMethodName
            + ": the method has no protobuf schema; send its binary form (proto) instead");
  }

  @Override
  public byte[] toBinary(byte[] json) {
    String text = new String(json, StandardCharsets.UTF_8);
    DynamicMessage.Builder builder = DynamicMessage.newBuilder(input);
    try {
      if (!text.isBlank()) {
        parser.merge(text, builder);
      }
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      throw Status.INVALID_ARGUMENT
          .withDescription(
              "Request is not valid JSON for " + input.getFullName() + ": " + e.getMessage())
          .asRuntimeException();
    }
    return builder.build().toByteArray();
  }

  @Override
  public byte[] fromBinary(byte[] binary) {
    try {
      DynamicMessage message = DynamicMessage.parseFrom(output, binary);
      return printer.print(message).getBytes(StandardCharsets.UTF_8);
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      throw Status.INTERNAL
          .withDescription(
              "Cannot write response " + output.getFullName() + " as JSON: " + e.getMessage())
          .withCause(e)
          .asRuntimeException();
    }
  }

  private static JsonFormat.TypeRegistry registryOf(Descriptors.FileDescriptor file) {
    JsonFormat.TypeRegistry.Builder registry = JsonFormat.TypeRegistry.newBuilder();
    Set<Descriptors.FileDescriptor> seen = new HashSet<>();
    ArrayDeque<Descriptors.FileDescriptor> pending = new ArrayDeque<>();
    pending.add(file);
    while (!pending.isEmpty()) {
      Descriptors.FileDescriptor next = pending.poll();
      if (!seen.add(next)) {
        continue;
      }
      for (Descriptors.Descriptor type : next.getMessageTypes()) {
        registry.add(type);
      }
      pending.addAll(next.getDependencies());
    }
    return registry.build();
  }
}
