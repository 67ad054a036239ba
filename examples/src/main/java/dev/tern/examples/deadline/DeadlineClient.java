package dev.tern.examples.deadline;

import static java.util.concurrent.TimeUnit.MILLISECONDS;

import dev.tern.Channel;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.StatusRuntimeException;
import dev.tern.examples.ExampleMain;
import dev.tern.examples.helloworld.GreeterTern;
import dev.tern.examples.helloworld.HelloRequest;
import java.util.concurrent.TimeUnit;

/**
 * Calls the {@link DeadlineServer} at {@code --target=HOST:PORT} with deadlines long and short
 * enough: each server takes {@value DeadlineServer#WORK_MILLIS} ms, and every {@code >} in front of
 * the name adds a hop.
 */
public final class DeadlineClient {
  private DeadlineClient() {}

  /**
   * Greets {@code name} with a deadline {@code deadlineMillis} from now.
   *
   * @return the greeting
   * @throws StatusRuntimeException DEADLINE_EXCEEDED when the deadline passes first
   */
  public static String sayHello(Channel channel, String name, long deadlineMillis) {
    return GreeterTern.newBlockingStub(channel)
        .withDeadlineAfter(deadlineMillis, MILLISECONDS)
        .sayHello(HelloRequest.newBuilder().setName(name).build())
        .getMessage();
  }

  /** {@code java ... DeadlineClient [--target=HOST:PORT] [--name=NAME]}. */
  public static void main(String[] args) throws InterruptedException {
    String target = ExampleMain.flag(args, "target", "localhost:50051");
    String name = ExampleMain.flag(args, "name", "world");
    ManagedChannel channel = ManagedChannelBuilder.forTarget(target).usePlaintext().build();
    try {
      greet(channel, name, 5000); // one server, 200 ms of work: in time (and connects)
      greet(channel, name, 100); // too short: DEADLINE_EXCEEDED
      greet(channel, ">>" + name, 2000); // three servers, 600 ms: in time, with less left each hop
      greet(channel, ">".repeat(9) + name, 1000); // ten servers, 2 s: DEADLINE_EXCEEDED
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static void greet(Channel channel, String name, long deadlineMillis) {
    String result;
    try {
      result = sayHello(channel, name, deadlineMillis);
    } catch (StatusRuntimeException e) {
      result = e.getStatus().getCode() + " (" + e.getStatus().getDescription() + ")";
    }
    System.out.println("SayHello(" + name + ") within " + deadlineMillis + " ms: " + result);
  }
}
