package dev.tern.examples.compression;

import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.examples.ExampleMain;
import dev.tern.examples.helloworld.GreeterTern;
import dev.tern.examples.helloworld.HelloReply;
import dev.tern.examples.helloworld.HelloRequest;
import dev.tern.stub.ServerCallStreamObserver;
import dev.tern.stub.StreamObserver;
import java.io.IOException;

/**
 * A {@code Greeter} on {@code --port=N} (default 50051; 0 for any free port) that compresses its
 * replies with gzip. Requests may come compressed or not: the server reads the {@code
 * grpc-encoding} the client sent and decompresses.
 */
public final class CompressingHelloWorldServer {
  private CompressingHelloWorldServer() {}

  /** Greets, asking for its reply to be gzip-compressed. Stateless; thread-safe. */
  static final class GreeterService extends GreeterTern.GreeterImplBase {
    @Override
    public void sayHello(HelloRequest request, StreamObserver<HelloReply> responseObserver) {
      // Before the first message: the response's grpc-encoding header names the compressor. A
      // client that does not accept gzip (grpc-accept-encoding) gets the reply uncompressed.
      ((ServerCallStreamObserver<HelloReply>) responseObserver).setCompression("gzip");
      responseObserver.onNext(
          HelloReply.newBuilder().setMessage("Hello, " + request.getName() + "!").build());
      responseObserver.onCompleted();
    }
  }

  /** Starts the server on {@code port}. */
  public static Server start(int port) throws IOException {
    return ServerBuilder.forPort(port).addService(new GreeterService()).build().start();
  }

  /** {@code java ... CompressingHelloWorldServer [--port=N]}. */
  public static void main(String[] args) throws IOException, InterruptedException {
    Server server = start(ExampleMain.intFlag(args, "port", 50051));
    ExampleMain.serve(server, "Compressing greeter");
  }
}
