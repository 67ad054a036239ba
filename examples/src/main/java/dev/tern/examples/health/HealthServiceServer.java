package dev.tern.examples.health;

import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.examples.ExampleMain;
import dev.tern.examples.helloworld.GreeterTern;
import dev.tern.examples.helloworld.HelloReply;
import dev.tern.examples.helloworld.HelloRequest;
import dev.tern.services.health.HealthStatusManager;
import dev.tern.services.health.v1.HealthCheckResponse.ServingStatus;
import dev.tern.stub.StreamObserver;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@code Greeter} on {@code --port=N} (default 50051; 0 for any free port) with the standard
 * health service ({@code grpc.health.v1.Health}, from tern-services). The greeter has a quota of
 * {@code --greetings=G} calls (default 3): it is SERVING until it has used them, NOT_SERVING after.
 * Its shutdown hook says NOT_SERVING for every service before the server stops taking calls.
 */
public final class HealthServiceServer {
  /** The name clients check: the greeter's full service name. */
  public static final String SERVICE = GreeterTern.SERVICE_NAME;

  private HealthServiceServer() {}

  /** Greets until its quota is used up, then marks itself NOT_SERVING. Thread-safe. */
  static final class QuotaGreeter extends GreeterTern.GreeterImplBase {
    private final HealthStatusManager health;
    private final AtomicInteger left;

    QuotaGreeter(HealthStatusManager health, int greetings) {
      this.health = health;
      this.left = new AtomicInteger(greetings);
    }

    @Override
    public void sayHello(HelloRequest request, StreamObserver<HelloReply> responseObserver) {
      int remaining = left.decrementAndGet();
      if (remaining <= 0) {
        // Said before the reply goes out, so a Check after this call sees it.
        health.setStatus(SERVICE, ServingStatus.NOT_SERVING);
      }
      responseObserver.onNext(
          HelloReply.newBuilder().setMessage("Hello, " + request.getName() + "!").build());
      responseObserver.onCompleted();
    }
  }

  /**
   * Starts the server on {@code port}, its greeter SERVING in {@code health} for {@code greetings}
   * calls.
   *
   * @throws IllegalArgumentException if {@code greetings} is not positive
   */
  public static Server start(int port, HealthStatusManager health, int greetings)
      throws IOException {
    if (greetings <= 0) {
      throw new IllegalArgumentException("greetings must be > 0, was " + greetings);
    }
    Server server =
        ServerBuilder.forPort(port)
            .addService(new QuotaGreeter(health, greetings))
            .addService(health.getHealthService())
            .build()
            .start();
    health.setStatus(SERVICE, ServingStatus.SERVING);
    return server;
  }

  /** {@code java ... HealthServiceServer [--port=N] [--greetings=G]}. */
  public static void main(String[] args) throws IOException, InterruptedException {
    HealthStatusManager health = new HealthStatusManager();
    Server server =
        start(
            ExampleMain.intFlag(args, "port", 50051),
            health,
            ExampleMain.intFlag(args, "greetings", 3));
    System.out.println("Greeter with health listening on port " + server.getPort());
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  health.enterTerminalState(); // probes and health-checking clients go elsewhere
                  server.shutdownNow(); // open Watch calls would keep a graceful shutdown waiting
                }));
    server.awaitTermination(Long.MAX_VALUE, TimeUnit.DAYS);
  }
}
