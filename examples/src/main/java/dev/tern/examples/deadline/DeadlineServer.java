package dev.tern.examples.deadline;

import static java.util.concurrent.TimeUnit.MILLISECONDS;

import dev.tern.Context;
import dev.tern.Deadline;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.examples.ExampleMain;
import dev.tern.examples.helloworld.GreeterTern;
import dev.tern.examples.helloworld.HelloReply;
import dev.tern.examples.helloworld.HelloRequest;
import dev.tern.stub.StreamObserver;
import java.io.IOException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A slow {@code Greeter} on {@code --port=N} (default 50051; 0 for any free port): each call takes
 * {@value #WORK_MILLIS} ms. A name starting with {@code >} is forwarded, without its first {@code
 * >}, to a downstream greeter (this same server, through its own channel), so {@code >>Ada} makes
 * two hops before the last server greets Ada.
 *
 * <p>The downstream call needs no deadline of its own: it is made in the incoming call's {@link
 * Context}, which carries the client's deadline, so it gets what is left of it. When that runs out,
 * every hop is cancelled and the client sees DEADLINE_EXCEEDED.
 *
 * <p>Thread-safe.
 */
public final class DeadlineServer {
  /** How long each call "works" before it answers or forwards. */
  public static final long WORK_MILLIS = 200;

  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  private final Server server;
  private final ManagedChannel downstream;

  private DeadlineServer(int port) throws IOException {
    server = ServerBuilder.forPort(port).addService(new SlowGreeter()).build().start();
    downstream =
        ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
    downstream.getState(true); // connect now, rather than on the first forwarded call
  }

  /** Starts the server on {@code port} (0 for any free port). */
  public static DeadlineServer start(int port) throws IOException {
    return new DeadlineServer(port);
  }

  /** The port the server listens on. */
  public int getPort() {
    return server.getPort();
  }

  /** Waits until the server has stopped. */
  public void awaitTermination() throws InterruptedException {
    server.awaitTermination();
  }

  /** Stops the server, its downstream channel and its timer. */
  public void stop() throws InterruptedException {
    downstream.shutdownNow();
    server.shutdownNow();
    timer.shutdownNow();
    downstream.awaitTermination(5, TimeUnit.SECONDS);
    server.awaitTermination(5, TimeUnit.SECONDS);
  }

  /** Greets after {@link #WORK_MILLIS}, or forwards the call downstream. Thread-safe. */
  private final class SlowGreeter extends GreeterTern.GreeterImplBase {
    @Override
    public void sayHello(HelloRequest request, StreamObserver<HelloReply> responseObserver) {
      // The client's deadline arrived with the call (the grpc-timeout header) and is the deadline
      // of the current Context.
      System.out.println("SayHello(" + request.getName() + "): " + left());
      // Context.wrap carries the call's Context, and so its deadline, to the timer's thread.
      timer.schedule(
          Context.current().wrap(() -> answer(request, responseObserver)),
          WORK_MILLIS,
          MILLISECONDS);
    }

    private void answer(HelloRequest request, StreamObserver<HelloReply> responseObserver) {
      if (Context.current().isCancelled()) {
        return; // the deadline passed (or the client gave up): nobody waits for an answer
      }
      String name = request.getName();
      if (name.startsWith(">")) {
        // Made in the call's Context: the downstream call gets the remaining deadline. Its reply
        // or its error goes straight back to our caller.
        HelloRequest forwarded = request.toBuilder().setName(name.substring(1)).build();
        GreeterTern.newStub(downstream).sayHello(forwarded, responseObserver);
        return;
      }
      responseObserver.onNext(
          HelloReply.newBuilder()
              .setMessage("Hello, " + name + "! (the last hop had " + left() + ")")
              .build());
      responseObserver.onCompleted();
    }

    private String left() {
      Deadline deadline = Context.current().getDeadline();
      return deadline == null ? "no deadline" : deadline.timeRemaining(MILLISECONDS) + " ms left";
    }
  }

  /** {@code java ... DeadlineServer [--port=N]}. */
  public static void main(String[] args) throws IOException, InterruptedException {
    DeadlineServer server = start(ExampleMain.intFlag(args, "port", 50051));
    System.out.println("Slow greeter listening on port " + server.getPort());
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    server.stop();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                }));
    server.awaitTermination();
  }
}
