package dev.tern.services.reflection;

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
import java.util.ArrayList;
import java.util.List;

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
 * <p>{@code grpc.reflection.v1} and {@code grpc.reflection.v1alpha} have the same messages, so both
 * are served by one implementation: the v1alpha service reads and writes the v1 messages.
 */
public final class ProtoReflectionService {
  private ProtoReflectionService() {}

  /** The {@code grpc.reflection.v1.ServerReflection} service. */
  public static BindableService v1() {
    return () -> ServerReflectionTern.bindService(new ReflectionService());
  }

  /**
   * The {@code grpc.reflection.v1alpha.ServerReflection} service, the protocol's first version,
   * which older clients ask for (grpcurl asks for v1 first, then v1alpha).
   */
  public static BindableService v1alpha() {
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
      ReflectionService service = new ReflectionService();
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
    private volatile ReflectionIndex lastIndex;

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
        index = ReflectionIndex.of(services);
        lastIndex = index;
      }
      return index;
    }
  }
}
