package dev.tern.examples.helloworld;

import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.StatusRuntimeException;
import java.util.concurrent.TimeUnit;

/** Greets {@code --name=NAME} through the server at {@code --target=HOST:PORT}. */
public final class HelloWorldClient {
  private HelloWorldClient() {}

  /** {@code java ... HelloWorldClient [--target=HOST:PORT] [--name=NAME]}. */
  public static void main(String[] args) throws InterruptedException {
    String target = "localhost:50051";
    String name = "world";
    for (String arg : args) {
      if (arg.startsWith("--target=")) {
        target = arg.substring("--target=".length());
      } else if (arg.startsWith("--name=")) {
        name = arg.substring("--name=".length());
      }
    }
    ManagedChannel channel = ManagedChannelBuilder.forTarget(target).usePlaintext().build();
    try {
      HelloReply reply =
          GreeterTern.newBlockingStub(channel)
              .withDeadlineAfter(5, TimeUnit.SECONDS)
              .sayHello(HelloRequest.newBuilder().setName(name).build());
      System.out.println(reply.getMessage());
    } catch (StatusRuntimeException e) {
      System.err.println("SayHello failed: " + e.getStatus());
      System.exit(1);
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
