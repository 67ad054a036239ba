package dev.tern.examples.helloworld;

import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.Status;
import dev.tern.services.health.HealthStatusManager;
import dev.tern.services.reflection.ProtoReflectionService;
import dev.tern.stub.StreamObserver;
import java.io.IOException;

/**
 * Serves {@code Greeter} over HTTP/2 on {@code --port=N} (default 50051; 0 for any free port), with
 * the standard health service and server reflection beside it ({@code grpcurl -plaintext
 * 127.0.0.1:50051 list}).
 */
public final class HelloWorldServer {
  private HelloWorldServer() {}

  /** The greeter: says hello, refuses an empty name. Stateless; thread-safe. */
  public static final class GreeterService extends GreeterTern.GreeterImplBase {
    @Override
    public void sayHello(HelloRequest request, StreamObserver<HelloReply> responseObserver) {
      if (request.getName().isEmpty()) {
        responseObserver.onError(
            Status.INVALID_ARGUMENT.withDescription("name must not be empty").asRuntimeException());
        return;
      }
      responseObserver.onNext(
          HelloReply.newBuilder().setMessage("Hello, " + request.getName() + "!").build());
      responseObserver.onCompleted();
    }
  }

  /** Starts a greeter server on {@code port}, with health and reflection. */
  public static Server start(int port) throws IOException {
    return ServerBuilder.forPort(port)
        .addService(new GreeterService())
        .addService(new HealthStatusManager().getHealthService())
        .addService(ProtoReflectionService.v1())
        .addService(ProtoReflectionService.v1alpha())
        .build()
        .start();
  }

  /** {@code java ... HelloWorldServer [--port=N]}. */
  public static void main(String[] args) throws IOException, InterruptedException {
    int port =
        args.length > 0 && args[0].startsWith("--port=")
            ? Integer.parseInt(args[0].substring(7))
            : 50051;
    Server server = start(port);
    System.out.println("Greeter listening on port " + server.getPort());
    Runtime.getRuntime().addShutdownHook(new Thread(server::shutdown));
    server.awaitTermination();
  }
}
