package dev.tern.examples.health;

import dev.tern.Channel;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.StatusRuntimeException;
import dev.tern.examples.ExampleMain;
import dev.tern.examples.helloworld.GreeterTern;
import dev.tern.examples.helloworld.HelloRequest;
import dev.tern.services.health.v1.HealthCheckRequest;
import dev.tern.services.health.v1.HealthCheckResponse.ServingStatus;
import dev.tern.services.health.v1.HealthTern;
import java.util.concurrent.TimeUnit;

/**
 * Talks to the {@link HealthServiceServer} at {@code --target=HOST:PORT} in the two ways a client
 * uses health:
 *
 * <ol>
 *   <li>asks {@code Health/Check} for the greeter's status before each greeting, and greets while
 *       it is SERVING;
 *   <li>greets through a channel with client-side health checking: its service config names the
 *       service to watch, and {@code round_robin} (with tern-services on the class path) sends
 *       calls only to servers whose {@code Health/Watch} says SERVING. With none, calls fail
 *       UNAVAILABLE.
 * </ol>
 */
public final class HealthServiceClient {
  private HealthServiceClient() {}

  /** The service config of the health-checked channel. */
  static final String HEALTH_CHECKED_CONFIG =
      "{\"loadBalancingConfig\": [{\"round_robin\": {}}],"
          + " \"healthCheckConfig\": {\"serviceName\": \""
          + HealthServiceServer.SERVICE
          + "\"}}";

  /** What {@code Health/Check} says of the greeter. */
  public static ServingStatus check(Channel channel) {
    return HealthTern.newBlockingStub(channel)
        .withDeadlineAfter(5, TimeUnit.SECONDS)
        .check(HealthCheckRequest.newBuilder().setService(HealthServiceServer.SERVICE).build())
        .getStatus();
  }

  /**
   * Greets {@code name} through a new channel to {@code target} with client-side health checking.
   *
   * @throws StatusRuntimeException UNAVAILABLE when the server says it is not SERVING
   */
  public static String greetHealthChecked(String target, String name) throws InterruptedException {
    ManagedChannel channel =
        ManagedChannelBuilder.forTarget(target)
            .usePlaintext()
            .defaultServiceConfigJson(HEALTH_CHECKED_CONFIG)
            .build();
    try {
      return GreeterTern.newBlockingStub(channel)
          .withDeadlineAfter(5, TimeUnit.SECONDS)
          .sayHello(HelloRequest.newBuilder().setName(name).build())
          .getMessage();
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  /** {@code java ... HealthServiceClient [--target=HOST:PORT]}. */
  public static void main(String[] args) throws InterruptedException {
    String target = ExampleMain.flag(args, "target", "localhost:50051");
    ManagedChannel channel = ManagedChannelBuilder.forTarget(target).usePlaintext().build();
    try {
      GreeterTern.GreeterBlockingStub greeter = GreeterTern.newBlockingStub(channel);
      for (int i = 1; ; i++) {
        ServingStatus status = check(channel);
        System.out.println("Health of " + HealthServiceServer.SERVICE + ": " + status);
        if (status != ServingStatus.SERVING) {
          break;
        }
        HelloRequest request = HelloRequest.newBuilder().setName("call " + i).build();
        System.out.println(
            greeter.withDeadlineAfter(5, TimeUnit.SECONDS).sayHello(request).getMessage());
      }
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    String result;
    try {
      result = greetHealthChecked(target, "Ada");
    } catch (StatusRuntimeException e) {
      result = e.getStatus().toString();
    }
    System.out.println("Through a health-checked channel: " + result);
  }
}
