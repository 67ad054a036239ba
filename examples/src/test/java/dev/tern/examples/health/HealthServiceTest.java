package dev.tern.examples.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.examples.helloworld.GreeterTern;
import dev.tern.examples.helloworld.HelloRequest;
import dev.tern.services.health.HealthStatusManager;
import dev.tern.services.health.v1.HealthCheckResponse.ServingStatus;
import dev.tern.testing.TernCleanupExtension;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The health example over HTTP/2: the client reads the greeter's health with {@code Health/Check},
 * and a health-checked channel stops calling it once it says NOT_SERVING.
 */
class HealthServiceTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();
  private final HealthStatusManager health = new HealthStatusManager();
  private ManagedChannel channel;
  private String target;

  @BeforeEach
  void start() throws Exception {
    Server server = cleanup.register(HealthServiceServer.start(0, health, 3));
    target = "127.0.0.1:" + server.getPort();
    channel = cleanup.register(ManagedChannelBuilder.forTarget(target).usePlaintext().build());
  }

  @Test
  void theGreeterIsServingUntilItsQuotaIsUsedThenHealthCheckedCallsFailFast() throws Exception {
    assertThat(HealthServiceClient.check(channel)).isEqualTo(ServingStatus.SERVING);
    assertThat(HealthServiceClient.greetHealthChecked(target, "Ada")).isEqualTo("Hello, Ada!");
    greet("Bob");
    assertThat(HealthServiceClient.check(channel)).isEqualTo(ServingStatus.SERVING);

    greet("Cy"); // the third greeting uses up the quota

    assertThat(HealthServiceClient.check(channel)).isEqualTo(ServingStatus.NOT_SERVING);
    assertThatThrownBy(() -> HealthServiceClient.greetHealthChecked(target, "Dee"))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
              assertThat(e.getStatus().getDescription()).contains("NOT_SERVING");
            });
  }

  @Test
  void theTerminalStateOfTheShutdownHookIsNotServing() {
    health.enterTerminalState();

    assertThat(HealthServiceClient.check(channel)).isEqualTo(ServingStatus.NOT_SERVING);
  }

  private void greet(String name) {
    GreeterTern.newBlockingStub(channel)
        .withDeadlineAfter(5, TimeUnit.SECONDS)
        .sayHello(HelloRequest.newBuilder().setName(name).build());
  }
}
