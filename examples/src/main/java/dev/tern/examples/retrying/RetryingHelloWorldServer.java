package dev.tern.examples.retrying;

import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.Status;
import dev.tern.examples.ExampleMain;
import dev.tern.examples.helloworld.GreeterTern;
import dev.tern.examples.helloworld.HelloReply;
import dev.tern.examples.helloworld.HelloRequest;
import dev.tern.stub.StreamObserver;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A flaky {@code Greeter} on {@code --port=N} (default 50051; 0 for any free port): of every {@code
 * --failures=F}+1 requests (default 2+1), it refuses the first F with UNAVAILABLE and answers the
 * last, as a server does while it is overloaded or restarting. A client whose service config
 * retries UNAVAILABLE ({@link RetryingHelloWorldClient}) never notices.
 */
public final class RetryingHelloWorldServer {
  private RetryingHelloWorldServer() {}

  /** The flaky greeter. Thread-safe. */
  static final class FlakyGreeter extends GreeterTern.GreeterImplBase {
    private final int failures;
    private final AtomicLong requests = new AtomicLong();

    FlakyGreeter(int failures) {
      this.failures = failures;
    }

    @Override
    public void sayHello(HelloRequest request, StreamObserver<HelloReply> responseObserver) {
      if (requests.incrementAndGet() % (failures + 1) != 0) {
        responseObserver.onError(
            Status.UNAVAILABLE.withDescription("flaky server: try again").asRuntimeException());
        return;
      }
      responseObserver.onNext(
          HelloReply.newBuilder().setMessage("Hello, " + request.getName() + "!").build());
      responseObserver.onCompleted();
    }
  }

  /**
   * Starts the flaky server on {@code port}, failing {@code failures} of every {@code failures + 1}
   * requests.
   *
   * @throws IllegalArgumentException if {@code failures} is negative
   */
  public static Server start(int port, int failures) throws IOException {
    if (failures < 0) {
      throw new IllegalArgumentException("failures must be >= 0, was " + failures);
    }
    return ServerBuilder.forPort(port).addService(new FlakyGreeter(failures)).build().start();
  }

  /** {@code java ... RetryingHelloWorldServer [--port=N] [--failures=F]}. */
  public static void main(String[] args) throws IOException, InterruptedException {
    int failures = ExampleMain.intFlag(args, "failures", 2);
    Server server = start(ExampleMain.intFlag(args, "port", 50051), failures);
    ExampleMain.serve(server, "Flaky greeter (failing " + failures + " in " + (failures + 1) + ")");
  }
}
