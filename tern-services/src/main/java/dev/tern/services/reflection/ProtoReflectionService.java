package dev.tern.services.reflection;

import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import dev.tern.BindableService;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.ServiceDescriptor;
import dev.tern.services.reflection.v1.ServerReflectionRequest;
import dev.tern.services.reflection.v1.ServerReflectionResponse;
import dev.tern.services.reflection.v1.ServerReflectionTern;
import dev.tern.stub.ServerCallStreamObserver;
import dev.tern.stub.ServerCalls;
import dev.tern.stub.StreamObserver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The gRPC server reflection service, which lets clients such as grpcurl discover a server's
 * services and fetch the protobuf descriptors that define them, without local {@code .proto} files.
 * Add it to a server like any service:
 *
 * <pre>{@code
 * Server server = ServerBuilder.forPort(8080)
 *     .addService(new GreeterImpl())
 *     .addService(ProtoReflectionService.v1())
 *     .addService(ProtoReflectionService.v1alpha()) // for older clients
 *     .build()
 *     .start();
 * }</pre>
 *
 * <p>It describes the services of the server it runs on (found through {@link Server#CONTEXT_KEY}):
 * those added to the builder and those of the fallback registry ({@link
 * Server#getMutableServices()}) as they are when each request arrives, so services added to a
 * {@link dev.tern.MutableHandlerRegistry} later appear. Only services generated from {@code .proto}
 * files (whose schema descriptor is a {@link dev.tern.protobuf.ProtoFileDescriptorSupplier}) are
 * listed and described; others are left out. On a {@link Server} that does not set {@link
 * Server#CONTEXT_KEY} (every Tern server does) it knows no services.
 *
 * <p>Reflection reveals the server's whole schema, including methods a client may not be meant to
 * know about: add it deliberately, and guard it (for example with an interceptor) where that
 * matters.
 *
 * <p>The descriptors protoc embeds in generated code keep no comments. To serve the comments too
 * (grpcurl's {@code describe}, the Tern console), build a descriptor set with {@code protoc
 * --include_source_info --descriptor_set_out=...} and give it to {@link #builder()}: {@code
 * ProtoReflectionService.builder().descriptorSet(path).v1()}.
 *
 * <p>{@code grpc.reflection.v1} and {@code grpc.reflection.v1alpha} have the same messages, so both
 * are served by one implementation: the v1alpha service reads and writes the v1 messages.
 */
public final class ProtoReflectionService {
  private ProtoReflectionService() {}

  /** The {@code grpc.reflection.v1.ServerReflection} service. */
  public static BindableService v1() {
    return v1(SourceInfoFiles.NONE);
  }

  /**
   * The {@code grpc.reflection.v1alpha.ServerReflection} service, the protocol's first version,
   * which older clients ask for (grpcurl asks for v1 first, then v1alpha).
   */
  public static BindableService v1alpha() {
    return v1alpha(SourceInfoFiles.NONE);
  }

  /** A builder of reflection services that serve descriptors with their comments. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Reflection services that describe files with the descriptors of sets built by {@code protoc
   * --include_source_info}, comments included. A set's file is served in place of the descriptor
   * embedded in the generated code of the same file name when the two describe the same thing (they
   * may differ only in source info and fields' JSON names); a set's file that differs (built from
   * another version of the {@code .proto}) is not served, and a WARNING names it when reflection
   * indexes the file. Files of a set that no service reaches are not served.
   *
   * <p>Not thread-safe: build on one thread; the services it builds are thread-safe.
   */
  public static final class Builder {
    private final SourceInfoFiles.Collector files = new SourceInfoFiles.Collector();

    private Builder() {}

    /**
     * Adds the files of {@code descriptorSet}, a {@code FileDescriptorSet} written by {@code protoc
     * --include_source_info --descriptor_set_out=FILE} (with {@code --include_imports} to comment
     * the imported files too).
     *
     * @throws IllegalArgumentException naming {@code descriptorSet} if it holds no files, none with
     *     source info, or a file with the name of a different file added before
     */
    public Builder descriptorSet(FileDescriptorSet descriptorSet) {
      files.add(Objects.requireNonNull(descriptorSet, "descriptorSet"), "descriptorSet");
      return this;
    }

    /**
     * Adds the files of a serialized {@code FileDescriptorSet}, as {@link
     * #descriptorSet(FileDescriptorSet)} does; for one packed as a resource: {@code
     * descriptorSet(in.readAllBytes())}.
     *
     * @throws IllegalArgumentException naming {@code descriptorSet} if the bytes are not a {@code
     *     FileDescriptorSet}, or as {@link #descriptorSet(FileDescriptorSet)}
     */
    public Builder descriptorSet(byte[] descriptorSet) {
      files.add(Objects.requireNonNull(descriptorSet, "descriptorSet"), "descriptorSet");
      return this;
    }

    /**
     * Adds the files of the {@code FileDescriptorSet} in the file at {@code descriptorSet}, as
     * {@link #descriptorSet(FileDescriptorSet)} does.
     *
     * @throws IOException if the file cannot be read
     * @throws IllegalArgumentException naming {@code descriptorSet} and its path if the file is not
     *     a {@code FileDescriptorSet}, or as {@link #descriptorSet(FileDescriptorSet)}
     */
    public Builder descriptorSet(Path descriptorSet) throws IOException {
      Objects.requireNonNull(descriptorSet, "descriptorSet");
      files.add(Files.readAllBytes(descriptorSet), "descriptorSet " + descriptorSet);
      return this;
    }

    /** The {@code grpc.reflection.v1.ServerReflection} service, with the sets added so far. */
    public BindableService v1() {
      return ProtoReflectionService.v1(files.build());
    }

    /** The {@code grpc.reflection.v1alpha.ServerReflection} service, with the sets added so far. */
    public BindableService v1alpha() {
      return ProtoReflectionService.v1alpha(files.build());
    }
  }

  private static BindableService v1(SourceInfoFiles sourceInfo) {
    return () -> ServerReflectionTern.bindService(new ReflectionService(sourceInfo));
  }

  private static BindableService v1alpha(SourceInfoFiles sourceInfo) {
    return () -> {
      MethodDescriptor<ServerReflectionRequest, ServerReflectionResponse> v1 =
          ServerReflectionTern.getServerReflectionInfoMethod();
      MethodDescriptor<?, ?> alpha =
          dev.tern.services.reflection.v1alpha.ServerReflectionTern.getServerReflectionInfoMethod();
      // Same messages on the wire; only the names and the schema are v1alpha's.
      MethodDescriptor<ServerReflectionRequest, ServerReflectionResponse> method =
          v1.toBuilder()
              .setFullMethodName(alpha.getFullMethodName())
              .setSchemaDescriptor(alpha.getSchemaDescriptor())
              .build();
      ServiceDescriptor descriptor =
          ServiceDescriptor.newBuilder(
                  dev.tern.services.reflection.v1alpha.ServerReflectionTern.SERVICE_NAME)
              .setSchemaDescriptor(
                  dev.tern.services.reflection.v1alpha.ServerReflectionTern.getServiceDescriptor()
                      .getSchemaDescriptor())
              .addMethod(method)
              .build();
      ReflectionService service = new ReflectionService(sourceInfo);
      return ServerServiceDefinition.builder(descriptor)
          .addMethod(method, ServerCalls.asyncBidiStreamingCall(service::serverReflectionInfo))
          .build();
    };
  }

  /**
   * Starts a {@link ReflectionStream} per call, on the server found in the call's context. Keeps
   * the last index built, reused while the server's services stay the same.
   *
   * <p>Thread-safe: calls on any number of servers may use it at once; the cached index is
   * immutable and replaced whole (two calls racing may both build one; either is right).
   */
  private static final class ReflectionService implements ServerReflectionTern.AsyncService {
    private final SourceInfoFiles sourceInfo;
    private volatile ReflectionIndex lastIndex;

    ReflectionService(SourceInfoFiles sourceInfo) {
      this.sourceInfo = sourceInfo;
    }

    @Override
    public StreamObserver<ServerReflectionRequest> serverReflectionInfo(
        StreamObserver<ServerReflectionResponse> responses) {
      Server server = Server.CONTEXT_KEY.get();
      // Tern's runtime hands every streaming service method a ServerCallStreamObserver.
      return new ReflectionStream(
          () -> index(server), (ServerCallStreamObserver<ServerReflectionResponse>) responses);
    }

    private ReflectionIndex index(Server server) {
      List<ServerServiceDefinition> services = new ArrayList<>();
      if (server != null) {
        services.addAll(server.getServices());
        services.addAll(server.getMutableServices());
      }
      ReflectionIndex index = lastIndex;
      if (index == null || !index.isFor(services)) {
        index = ReflectionIndex.of(services, sourceInfo);
        lastIndex = index;
      }
      return index;
    }
  }
}
