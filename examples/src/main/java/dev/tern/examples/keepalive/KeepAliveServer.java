package dev.tern.examples.keepalive;

import dev.tern.Server;
import dev.tern.examples.helloworld.GreeterTern;
import dev.tern.examples.helloworld.HelloReply;
import dev.tern.examples.helloworld.HelloRequest;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.StreamObserver;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Serves {@code Greeter} on {@code --port=N} (default 50051; 0 for any free port) with keepalive
 * set up for clients that sit behind NATs and load balancers, which drop quiet connections:
 *
 * <ul>
 *   <li>the server pings a client it has heard nothing from for 5 minutes, and closes the
 *       connection if the client does not answer within 20 seconds (so calls and buffers of a
 *       client that vanished are freed);
 *   <li>clients may ping every 30 seconds or more, even while they have no call open ({@link
 *       KeepAliveClient} does); more frequent pings get GOAWAY "too_many_pings".
 * </ul>
 */
public final class KeepAliveServer {
  /** The most frequent client pings the server accepts. */
  static final long PERMITTED_CLIENT_PING_SECONDS = 30;

  private KeepAliveServer() {}

  /** Says hello. Stateless; thread-safe. */
  private static final class Greeter extends GreeterTern.GreeterImplBase {
    @Override
    public void sayHello(HelloRequest request, StreamObserver<HelloReply> responseObserver) {
      responseObserver.onNext(
          HelloReply.newBuilder().setMessage("Hello, " + request.getName() + "!").build());
      responseObserver.onCompleted();
    }
  }

  /** Starts the greeter on {@code port} with the keepalive settings above. */
  public static Server start(int port) throws IOException {
    return NettyServerBuilder.forPort(port)
        .addService(new Greeter())
        // The server's own probe of silent clients.
        .keepAliveTime(5, TimeUnit.MINUTES)
        .keepAliveTimeout(20, TimeUnit.SECONDS)
        // What it tolerates from clients' probes.
        .permitKeepAliveTime(PERMITTED_CLIENT_PING_SECONDS, TimeUnit.SECONDS)
        .permitKeepAliveWithoutCalls(true)
        .build()
        .start();
  }

  /** {@code java ... KeepAliveServer [--port=N]}. */
  public static void main(String[] args) throws IOException, InterruptedException {
    int port =
        args.length > 0 && args[0].startsWith("--port=")
            ? Integer.parseInt(args[0].substring("--port=".length()))
            : 50051;
    Server server = start(port);
    System.out.println("Greeter with keepalive listening on port " + server.getPort());
    Runtime.getRuntime().addShutdownHook(new Thread(server::shutdown));
    server.awaitTermination();
  }
}
