package dev.tern.examples.keepalive;

import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.StatusRuntimeException;
import dev.tern.examples.helloworld.GreeterTern;
import dev.tern.examples.helloworld.HelloRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Greets the server at {@code --target=HOST:PORT} once per name, waiting {@code --pause=SECONDS}
 * between greetings, over one channel with keepalive: a PING after 30 seconds without a word from
 * the server, calls or not, and the connection given up (its calls failing UNAVAILABLE, the next
 * call reconnecting) if 10 seconds pass without an answer. The keepalive options are those of every
 * channel builder ({@link ManagedChannelBuilder}); no transport class is named. The server must
 * permit pings that often ({@link KeepAliveServer} does).
 */
public final class KeepAliveClient {
  private KeepAliveClient() {}

  /** A channel to {@code target} with the keepalive settings above. */
  static ManagedChannel channel(String target) {
    return ManagedChannelBuilder.forTarget(target)
        .usePlaintext()
        .keepAliveTime(KeepAliveServer.PERMITTED_CLIENT_PING_SECONDS, TimeUnit.SECONDS)
        .keepAliveTimeout(10, TimeUnit.SECONDS)
        .keepAliveWithoutCalls(true)
        .build();
  }

  /**
   * Greets each of {@code names} through {@code channel}, pausing {@code pauseMillis} between
   * greetings; returns the replies.
   */
  static List<String> greet(ManagedChannel channel, List<String> names, long pauseMillis)
      throws InterruptedException {
    GreeterTern.GreeterBlockingStub greeter = GreeterTern.newBlockingStub(channel);
    List<String> replies = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      if (i > 0 && pauseMillis > 0) {
        Thread.sleep(pauseMillis); // a quiet spell, kept alive by the pings
      }
      replies.add(
          greeter
              .withDeadlineAfter(5, TimeUnit.SECONDS)
              .sayHello(HelloRequest.newBuilder().setName(names.get(i)).build())
              .getMessage());
    }
    return replies;
  }

  /** {@code java ... KeepAliveClient [--target=HOST:PORT] [--pause=SECONDS] [NAME...]}. */
  public static void main(String[] args) throws InterruptedException {
    String target = "localhost:50051";
    long pauseSeconds = 0;
    List<String> names = new ArrayList<>();
    for (String arg : args) {
      if (arg.startsWith("--target=")) {
        target = arg.substring("--target=".length());
      } else if (arg.startsWith("--pause=")) {
        pauseSeconds = Long.parseLong(arg.substring("--pause=".length()));
      } else {
        names.add(arg);
      }
    }
    if (names.isEmpty()) {
      names = List.of("Ada", "Grace");
    }
    ManagedChannel channel = channel(target);
    try {
      greet(channel, names, TimeUnit.SECONDS.toMillis(pauseSeconds)).forEach(System.out::println);
    } catch (StatusRuntimeException e) {
      System.err.println("SayHello failed: " + e.getStatus());
      System.exit(1);
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
