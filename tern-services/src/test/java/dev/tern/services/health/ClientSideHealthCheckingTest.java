package dev.tern.services.health;

import static dev.tern.services.health.v1.HealthCheckResponse.ServingStatus.NOT_SERVING;
import static dev.tern.services.health.v1.HealthCheckResponse.ServingStatus.SERVING;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.BindableService;
import dev.tern.CallOptions;
import dev.tern.LoadBalancerRegistry;
import dev.tern.ManagedChannel;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.services.health.v1.HealthCheckRequest;
import dev.tern.services.health.v1.HealthCheckResponse;
import dev.tern.services.health.v1.HealthTern;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.StreamObserver;
import dev.tern.testing.EchoService;
import dev.tern.testing.LogCapture;
import dev.tern.testing.TernCleanupExtension;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Client-side health checking (gRFC A17) end to end: three Tern servers on 127.0.0.2, .3 and .4,
 * each with its own {@link HealthStatusManager}, and a round_robin channel to all three whose
 * service config names the service to watch. What the test observes is where the calls go.
 */
class ClientSideHealthCheckingTest {
  private static final String ECHO = EchoService.SERVICE_NAME;
  private static final String WATCH = HealthTern.getWatchMethod().getFullMethodName();
  private static final String ROUND_ROBIN_HEALTH =
      "{\"loadBalancingConfig\": [{\"round_robin\": {}}],"
          + " \"healthCheckConfig\": {\"serviceName\": \""
          + ECHO
          + "\"}}";

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private final Map<String, HealthStatusManager> health = new HashMap<>();

  private BindableService healthOf(String host) {
    HealthStatusManager manager = new HealthStatusManager();
    health.put(host, manager);
    return manager.getHealthService();
  }

  private static boolean allReached(List<Integer> counts) {
    return counts.stream().allMatch(count -> count > 0);
  }

  @Test
  void withTernServicesOnTheClassPathRoundRobinIsTheHealthCheckingOne() {
    assertThat(LoadBalancerRegistry.getDefaultRegistry().getProvider("round_robin"))
        .isInstanceOf(HealthCheckingLoadBalancerProvider.class);
  }

  @Test
  void aServerThatSaysNotServingGetsNoCallsUntilItSaysServingAgain() throws Exception {
    HealthFarm farm = HealthFarm.start(cleanup, this::healthOf);
    health.values().forEach(manager -> manager.setStatus(ECHO, SERVING));
    ManagedChannel channel = farm.channel(ROUND_ROBIN_HEALTH);
    farm.echoUntil(channel, ClientSideHealthCheckingTest::allReached, "calls on every server");
    assertThat(farm.echoDelta(channel, 60)).containsExactly(20, 20, 20);

    health.get("127.0.0.4").setStatus(ECHO, NOT_SERVING);
    farm.echoUntilAvoided(channel, "127.0.0.4");
    assertThat(farm.echoDelta(channel, 60)).containsExactly(30, 30, 0);

    int before = farm.echoCalls().get(2);
    health.get("127.0.0.4").setStatus(ECHO, SERVING);
    farm.echoUntil(channel, counts -> counts.get(2) > before, "calls on 127.0.0.4 again");
    assertThat(farm.echoDelta(channel, 60)).containsExactly(20, 20, 20);

    health.get("127.0.0.3").enterTerminalState();
    farm.echoUntilAvoided(channel, "127.0.0.3");
    assertThat(farm.echoDelta(channel, 60)).containsExactly(30, 0, 30);
    for (String host : HealthFarm.HOSTS) {
      assertThat(farm.calls(host, WATCH)).as("Watch calls on %s", host).isEqualTo(1);
    }
  }

  @Test
  void aServerWithoutTheHealthServiceCountsAsHealthyAndOneThatDoesNotKnowTheServiceDoesNot()
      throws Exception {
    LogCapture logs = new LogCapture(HealthCheckedSubchannel.class);
    try {
      HealthFarm farm =
          HealthFarm.start(cleanup, host -> host.equals("127.0.0.4") ? null : healthOf(host));
      health.get("127.0.0.2").setStatus(ECHO, SERVING); // .3 never names the service
      ManagedChannel channel = farm.channel(ROUND_ROBIN_HEALTH);
      farm.echoUntil(
          channel, counts -> counts.get(0) > 0 && counts.get(2) > 0, "calls on .2 and .4");
      assertThat(farm.echoDelta(channel, 60)).containsExactly(30, 0, 30);
      assertThat(farm.calls("127.0.0.3", WATCH)).isEqualTo(1);

      health.get("127.0.0.3").setStatus(ECHO, SERVING); // the service appears: SERVICE_UNKNOWN ends
      farm.echoUntil(channel, counts -> counts.get(1) > 0, "calls on .3 once it knows the service");
      assertThat(farm.echoDelta(channel, 60)).containsExactly(20, 20, 20);
    } finally {
      logs.close();
    }
    assertThat(logs.records()).hasSize(1);
    assertThat(logs.records().get(0).getLevel()).isEqualTo(Level.WARNING);
    assertThat(logs.records().get(0).getParameters()[0].toString()).contains("127.0.0.4");
  }

  @Test
  void withoutAHealthCheckConfigOrWithPickFirstHealthIsNotWatched() throws Exception {
    HealthFarm farm = HealthFarm.start(cleanup, this::healthOf);
    health.values().forEach(manager -> manager.setStatus(ECHO, NOT_SERVING));
    ManagedChannel roundRobin = farm.channel("{\"loadBalancingConfig\": [{\"round_robin\": {}}]}");
    farm.echoUntil(roundRobin, ClientSideHealthCheckingTest::allReached, "calls on every server");
    assertThat(farm.echoDelta(roundRobin, 30)).containsExactly(10, 10, 10);

    ManagedChannel pickFirst =
        farm.channel(
            "{\"loadBalancingConfig\": [{\"pick_first\": {}}],"
                + " \"healthCheckConfig\": {\"serviceName\": \""
                + ECHO
                + "\"}}");
    assertThat(farm.echoDelta(pickFirst, 10)).containsExactly(10, 0, 0);
    for (String host : HealthFarm.HOSTS) {
      assertThat(farm.calls(host, WATCH)).as("Watch calls on %s", host).isZero();
    }
  }

  @Test
  void aWatchThatFailsIsStartedAgainAfterABackoffAndTheServerIsAvoidedMeanwhile() throws Exception {
    HealthStatusManager manager = new HealthStatusManager();
    manager.setStatus(ECHO, NOT_SERVING);
    AtomicInteger watches = new AtomicInteger();
    CountDownLatch retried = new CountDownLatch(1);
    BindableService failingOnce =
        new HealthTern.HealthImplBase() {
          @Override
          public void watch(
              HealthCheckRequest request, StreamObserver<HealthCheckResponse> responseObserver) {
            if (watches.incrementAndGet() == 1) {
              responseObserver.onError(
                  Status.INTERNAL.withDescription("health store down").asRuntimeException());
            } else {
              ((HealthService) manager.getHealthService()).watch(request, responseObserver);
              retried.countDown();
            }
          }
        };
    HealthFarm farm =
        HealthFarm.start(cleanup, host -> host.equals("127.0.0.4") ? failingOnce : healthOf(host));
    health.values().forEach(m -> m.setStatus(ECHO, SERVING));
    ManagedChannel channel = farm.channel(ROUND_ROBIN_HEALTH);
    farm.echoUntil(channel, counts -> counts.get(0) > 0 && counts.get(1) > 0, "calls on .2, .3");
    assertThat(retried.await(10, TimeUnit.SECONDS)).as("the Watch is started again").isTrue();
    assertThat(farm.echoDelta(channel, 60)).containsExactly(30, 30, 0);

    manager.setStatus(ECHO, SERVING);
    farm.echoUntil(channel, counts -> counts.get(2) > 0, "calls on .4 once it says SERVING");
    assertThat(farm.echoDelta(channel, 60)).containsExactly(20, 20, 20);
    assertThat(watches.get()).isEqualTo(2);
  }

  @Test
  void whenNoServerIsHealthyCallsFailNamingTheHealthStatus() throws Exception {
    HealthFarm farm = HealthFarm.start(cleanup, this::healthOf);
    health.values().forEach(manager -> manager.setStatus(ECHO, NOT_SERVING));
    ManagedChannel channel = farm.channel(ROUND_ROBIN_HEALTH);
    channel.getState(true);
    StatusRuntimeException failure = null;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (failure == null
        || failure.getStatus().getDescription() == null
        || !failure.getStatus().getDescription().contains("NOT_SERVING")) {
      assertThat(System.nanoTime() - deadline).as("a failure naming NOT_SERVING").isNegative();
      try {
        ClientCalls.blockingUnaryCall(
            channel,
            EchoService.UNARY,
            CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS),
            "hi");
        throw new AssertionError("a call succeeded although no server is healthy");
      } catch (StatusRuntimeException e) {
        failure = e;
      }
    }
    assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(failure.getStatus().getDescription())
        .matches(
            "health check of service 'tern.testing.Echo' at \\[/127\\.0\\.0\\.[234]:\\d+\\]:"
                + " the server says NOT_SERVING");
    assertThat(farm.echoCalls()).containsExactly(0, 0, 0);
  }
}
