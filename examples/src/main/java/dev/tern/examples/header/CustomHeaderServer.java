package dev.tern.examples.header;

import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.ServerInterceptors;
import dev.tern.examples.ExampleMain;
import dev.tern.examples.helloworld.GreeterTern;
import dev.tern.examples.helloworld.HelloReply;
import dev.tern.examples.helloworld.HelloRequest;
import dev.tern.stub.StreamObserver;
import java.io.IOException;

/**
 * A {@code Greeter} on {@code --port=N} (default 50051; 0 for any free port) behind a {@link
 * HeaderServerInterceptor}: it greets the client by the id in its {@code x-client-id} header.
 */
public final class CustomHeaderServer {
  private CustomHeaderServer() {}

  /** Greets the name and the client's id, which the interceptor put in the Context. Thread-safe. */
  static final class GreeterService extends GreeterTern.GreeterImplBase {
    @Override
    public void sayHello(HelloRequest request, StreamObserver<HelloReply> responseObserver) {
      String clientId = HeaderServerInterceptor.CLIENT_ID_IN_CONTEXT.get();
      responseObserver.onNext(
          HelloReply.newBuilder()
              .setMessage("Hello, " + request.getName() + " (client " + clientId + ")!")
              .build());
      responseObserver.onCompleted();
    }
  }

  /** Starts the server on {@code port}; its response headers name it {@code serverName}. */
  public static Server start(int port, String serverName) throws IOException {
    return ServerBuilder.forPort(port)
        .addService(
            ServerInterceptors.intercept(
                new GreeterService(), new HeaderServerInterceptor(serverName)))
        .build()
        .start();
  }

  /** {@code java ... CustomHeaderServer [--port=N]}. */
  public static void main(String[] args) throws IOException, InterruptedException {
    Server server = start(ExampleMain.intFlag(args, "port", 50051), "greeter-1");
    ExampleMain.serve(server, "Greeter");
  }
}
