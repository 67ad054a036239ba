package dev.tern.netty.shaded;

import dev.tern.testing.EchoService;
import dev.tern.testing.TestMarshallers;
import io.grpc.MethodDescriptor;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import java.io.InputStream;

/**
 * grpc-java's side of the calls: the unary and server-streaming methods of Tern's {@link
 * EchoService} (same names, same answers) and {@link #WHERE}, written on grpc-java's API.
 * Immutable.
 */
final class GrpcJavaEcho {
  /** {@code tern.shaded.Probe/Where}: answers with {@link ServingThread#transportClass()}. */
  static final String WHERE_NAME = "tern.shaded.Probe/Where";

  /** Tern's UTF-8 test marshaller, seen through grpc-java's interface. */
  static final MethodDescriptor.Marshaller<String> UTF8 =
      new MethodDescriptor.Marshaller<>() {
        private final dev.tern.MethodDescriptor.Marshaller<String> tern = TestMarshallers.utf8();

        @Override
        public InputStream stream(String value) {
          return tern.stream(value);
        }

        @Override
        public String parse(InputStream stream) {
          return tern.parse(stream);
        }
      };

  static final MethodDescriptor<String, String> UNARY =
      method(EchoService.UNARY.getFullMethodName(), MethodType.UNARY);
  static final MethodDescriptor<String, String> SERVER_STREAMING =
      method(EchoService.SERVER_STREAMING.getFullMethodName(), MethodType.SERVER_STREAMING);
  static final MethodDescriptor<String, String> WHERE = method(WHERE_NAME, MethodType.UNARY);

  private GrpcJavaEcho() {}

  /** The echo service and the probe, for a grpc-java server. */
  static ServerServiceDefinition[] definitions() {
    ServerServiceDefinition echo =
        ServerServiceDefinition.builder(EchoService.SERVICE_NAME)
            .addMethod(
                UNARY,
                ServerCalls.asyncUnaryCall(
                    (request, responses) -> {
                      responses.onNext(request);
                      responses.onCompleted();
                    }))
            .addMethod(
                SERVER_STREAMING,
                ServerCalls.asyncServerStreamingCall(
                    (request, responses) -> {
                      int count = Integer.parseInt(request);
                      for (int i = 0; i < count; i++) {
                        responses.onNext(Integer.toString(i));
                      }
                      responses.onCompleted();
                    }))
            .build();
    ServerServiceDefinition probe =
        ServerServiceDefinition.builder(WHERE.getServiceName())
            .addMethod(
                WHERE,
                ServerCalls.asyncUnaryCall(
                    (request, responses) -> {
                      responses.onNext(ServingThread.transportClass());
                      responses.onCompleted();
                    }))
            .build();
    return new ServerServiceDefinition[] {echo, probe};
  }

  private static MethodDescriptor<String, String> method(String fullName, MethodType type) {
    return MethodDescriptor.newBuilder(UTF8, UTF8)
        .setFullMethodName(fullName)
        .setType(type)
        .build();
  }
}
