package dev.tern.netty.balancing;

import dev.tern.MethodDescriptor;
import dev.tern.MethodDescriptor.MethodType;
import dev.tern.ServerServiceDefinition;
import dev.tern.stub.ServerCalls;
import dev.tern.testing.TestMarshallers;

/**
 * A service that says which server answered: its one unary method returns the name the server was
 * built with (the address it listens on, such as {@code 127.0.0.3}), whatever the request. Lets a
 * client count where a balancer sent its calls. Immutable; thread-safe.
 */
final class ServerNameService {
  /** {@code tern.test.ServerName/Get}: any request in, the server's name out. */
  static final MethodDescriptor<String, String> GET =
      MethodDescriptor.newBuilder(TestMarshallers.utf8(), TestMarshallers.utf8())
          .setFullMethodName(MethodDescriptor.generateFullMethodName("tern.test.ServerName", "Get"))
          .setType(MethodType.UNARY)
          .build();

  private ServerNameService() {}

  /** The service of the server called {@code name}. */
  static ServerServiceDefinition definition(String name) {
    return ServerServiceDefinition.builder("tern.test.ServerName")
        .addMethod(
            GET,
            ServerCalls.asyncUnaryCall(
                (request, response) -> {
                  response.onNext(name);
                  response.onCompleted();
                }))
        .build();
  }
}
