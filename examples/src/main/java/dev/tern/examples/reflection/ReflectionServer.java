package dev.tern.examples.reflection;

import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.examples.ExampleMain;
import dev.tern.examples.helloworld.HelloWorldServer;
import dev.tern.services.reflection.ProtoReflectionService;
import java.io.IOException;

/**
 * A {@code Greeter} on {@code --port=N} (default 50051; 0 for any free port) with server reflection
 * (from tern-services), so that tools need no {@code .proto} file to call it:
 *
 * <pre>
 * grpcurl -plaintext localhost:50051 list
 * grpcurl -plaintext localhost:50051 describe tern.examples.helloworld.Greeter
 * grpcurl -plaintext -d '{"name": "Ada"}' localhost:50051 tern.examples.helloworld.Greeter/SayHello
 * </pre>
 *
 * <p>The reflection service describes every service the server has from the descriptors of their
 * generated classes; add it like any other service. {@code v1} is the current protocol; {@code
 * v1alpha} is the one older tools ask for.
 */
public final class ReflectionServer {
  private ReflectionServer() {}

  /** Starts the greeter with reflection on {@code port}. */
  public static Server start(int port) throws IOException {
    return ServerBuilder.forPort(port)
        .addService(new HelloWorldServer.GreeterService())
        .addService(ProtoReflectionService.v1())
        .addService(ProtoReflectionService.v1alpha())
        .build()
        .start();
  }

  /** {@code java ... ReflectionServer [--port=N]}. */
  public static void main(String[] args) throws IOException, InterruptedException {
    Server server = start(ExampleMain.intFlag(args, "port", 50051));
    ExampleMain.serve(server, "Greeter with reflection");
  }
}
