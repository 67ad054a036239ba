package dev.tern.services.reflection;

import com.google.protobuf.Descriptors;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import dev.tern.services.reflection.testing.OrderServiceProto;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.protobuf.ProtoServiceDescriptorSupplier;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * A grpc-java server beside which Tern's reflection is compared: grpc-java's own health service,
 * its reflection services (v1 and v1alpha), and the test {@code tern.reflectiontest.OrderService}
 * described by the same proto descriptors Tern serves (its methods answer UNIMPLEMENTED: only the
 * schema is compared).
 */
final class GrpcJavaPeer {
  private GrpcJavaPeer() {}

  /** Starts the server on 127.0.0.1, on a free port. */
  @SuppressWarnings("deprecation") // grpc-java's v1alpha reflection service, for older clients
  static io.grpc.Server start() throws IOException {
    return io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder.forAddress(
            new InetSocketAddress("127.0.0.1", 0))
        .addService(new HealthStatusManager().getHealthService())
        .addService(ProtoReflectionServiceV1.newInstance())
        .addService(io.grpc.protobuf.services.ProtoReflectionService.newInstance())
        .addService(orderService())
        .build()
        .start();
  }

  private static ServerServiceDefinition orderService() {
    Descriptors.ServiceDescriptor proto =
        OrderServiceProto.getDescriptor().findServiceByName("OrderService");
    ServerCallHandler<Message, Message> unimplemented =
        (call, headers) -> {
          call.close(io.grpc.Status.UNIMPLEMENTED, new io.grpc.Metadata());
          return new ServerCall.Listener<>() {};
        };
    ServiceDescriptor.Builder service =
        ServiceDescriptor.newBuilder(proto.getFullName())
            .setSchemaDescriptor(
                new ProtoServiceDescriptorSupplier() {
                  @Override
                  public Descriptors.FileDescriptor getFileDescriptor() {
                    return proto.getFile();
                  }

                  @Override
                  public Descriptors.ServiceDescriptor getServiceDescriptor() {
                    return proto;
                  }
                });
    java.util.List<io.grpc.MethodDescriptor<Message, Message>> methods =
        new java.util.ArrayList<>();
    for (Descriptors.MethodDescriptor method : proto.getMethods()) {
      methods.add(
          io.grpc.MethodDescriptor.<Message, Message>newBuilder()
              .setType(type(method))
              .setFullMethodName(
                  io.grpc.MethodDescriptor.generateFullMethodName(
                      proto.getFullName(), method.getName()))
              .setRequestMarshaller(
                  ProtoUtils.marshaller(DynamicMessage.getDefaultInstance(method.getInputType())))
              .setResponseMarshaller(
                  ProtoUtils.marshaller(DynamicMessage.getDefaultInstance(method.getOutputType())))
              .build());
    }
    methods.forEach(service::addMethod);
    ServerServiceDefinition.Builder definition = ServerServiceDefinition.builder(service.build());
    methods.forEach(m -> definition.addMethod(m, unimplemented));
    return definition.build();
  }

  private static io.grpc.MethodDescriptor.MethodType type(Descriptors.MethodDescriptor method) {
    if (method.isClientStreaming()) {
      return method.isServerStreaming()
          ? io.grpc.MethodDescriptor.MethodType.BIDI_STREAMING
          : io.grpc.MethodDescriptor.MethodType.CLIENT_STREAMING;
    }
    return method.isServerStreaming()
        ? io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING
        : io.grpc.MethodDescriptor.MethodType.UNARY;
  }
}
