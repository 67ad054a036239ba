package dev.tern.examples.retrying;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.tern.ClientStreamTracer;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Metadata;
import dev.tern.StatusRuntimeException;
import dev.tern.examples.ExampleMain;
import dev.tern.examples.helloworld.GreeterTern;
import dev.tern.examples.helloworld.HelloRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Greets the {@link RetryingHelloWorldServer} at {@code --target=HOST:PORT} {@code --calls=N} times
 * (default 20) through a channel whose service config ({@code retrying_service_config.json}, next
 * to this class) retries {@code SayHello} on UNAVAILABLE, up to 5 attempts. Prints how many calls
 * succeeded (all of them, against the default server) and how many attempts that took. {@code
 * --disable-retry} ignores the retry policy, to see the failures it hides.
 */
public final class RetryingHelloWorldClient {
  private RetryingHelloWorldClient() {}

  /** How many calls succeeded, and how many attempts they all took. */
  public record Result(int calls, int succeeded, int attempts) {}

  /** The service config, read from the class path as an application would ship it. */
  public static String serviceConfig() {
    try (InputStream in =
        RetryingHelloWorldClient.class.getResourceAsStream("retrying_service_config.json")) {
      if (in == null) {
        throw new IllegalStateException("retrying_service_config.json is not on the class path");
      }
      return new String(in.readAllBytes(), UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Greets {@code calls} times through {@code target}, one call after the other. */
  public static Result greet(String target, int calls, boolean retry) throws InterruptedException {
    AtomicInteger attempts = new AtomicInteger();
    ManagedChannelBuilder<?> builder =
        ManagedChannelBuilder.forTarget(target)
            .usePlaintext()
            .defaultServiceConfigJson(serviceConfig())
            // A retried call gets a new stream tracer for each attempt: count them.
            .addStreamTracerFactory(
                new ClientStreamTracer.Factory() {
                  @Override
                  public ClientStreamTracer newClientStreamTracer(
                      ClientStreamTracer.StreamInfo info, Metadata headers) {
                    attempts.incrementAndGet();
                    return new ClientStreamTracer() {};
                  }
                });
    if (!retry) {
      builder.disableRetry();
    }
    ManagedChannel channel = builder.build();
    int succeeded = 0;
    try {
      GreeterTern.GreeterBlockingStub stub = GreeterTern.newBlockingStub(channel);
      for (int i = 1; i <= calls; i++) {
        try {
          stub.withDeadlineAfter(5, TimeUnit.SECONDS)
              .sayHello(HelloRequest.newBuilder().setName("call " + i).build());
          succeeded++;
        } catch (StatusRuntimeException e) {
          System.err.println("call " + i + " failed: " + e.getStatus());
        }
      }
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    return new Result(calls, succeeded, attempts.get());
  }

  /**
   * {@code java ... RetryingHelloWorldClient [--target=HOST:PORT] [--calls=N] [--disable-retry]}.
   */
  public static void main(String[] args) throws InterruptedException {
    boolean retry = !ExampleMain.hasFlag(args, "disable-retry");
    Result result =
        greet(
            ExampleMain.flag(args, "target", "localhost:50051"),
            ExampleMain.intFlag(args, "calls", 20),
            retry);
    System.out.println(
        result.succeeded()
            + " of "
            + result.calls()
            + " calls succeeded, in "
            + result.attempts()
            + " attempts"
            + (retry ? "" : " (retries disabled)"));
  }
}
