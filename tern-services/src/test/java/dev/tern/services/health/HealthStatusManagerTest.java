package dev.tern.services.health;

import static dev.tern.services.health.v1.HealthCheckResponse.ServingStatus.NOT_SERVING;
import static dev.tern.services.health.v1.HealthCheckResponse.ServingStatus.SERVICE_UNKNOWN;
import static dev.tern.services.health.v1.HealthCheckResponse.ServingStatus.SERVING;
import static dev.tern.services.health.v1.HealthCheckResponse.ServingStatus.UNKNOWN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import dev.tern.services.health.v1.HealthCheckRequest;
import dev.tern.services.health.v1.HealthCheckResponse.ServingStatus;
import dev.tern.services.health.v1.HealthListRequest;
import dev.tern.services.health.v1.HealthTern;
import dev.tern.testing.TernCleanupExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The health service as clients see it: Check, Watch and List over the in-process transport. */
class HealthStatusManagerTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private final HealthStatusManager health = new HealthStatusManager();
  private final List<WatchRecorder> watches = new ArrayList<>();
  private ExecutorService serverExecutor;
  private Server server;
  private ManagedChannel channel;
  private HealthTern.HealthBlockingStub stub;

  @BeforeEach
  void startServer() throws Exception {
    String name = cleanup.uniqueName();
    serverExecutor = cleanup.register(Executors.newFixedThreadPool(2));
    server =
        cleanup
            .register(
                InProcessServerBuilder.forName(name)
                    .executor(serverExecutor)
                    .addService(health.getHealthService())
                    .build())
            .start();
    channel = cleanup.register(InProcessChannelBuilder.forName(name).build());
    stub = HealthTern.newBlockingStub(channel);
  }

  @AfterEach
  void cancelWatches() {
    watches.forEach(WatchRecorder::cancel);
  }

  private WatchRecorder watch(String service, int initialRequest) {
    WatchRecorder watch = WatchRecorder.start(channel, service, initialRequest);
    watches.add(watch);
    return watch;
  }

  private ServingStatus check(String service) {
    return stub.check(HealthCheckRequest.newBuilder().setService(service).build()).getStatus();
  }

  @Test
  void theServerIsServingAndOtherServicesAreUnknownAtFirst() {
    assertThat(check("")).isEqualTo(SERVING);
    assertThatThrownBy(() -> check("helloworld.Greeter"))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
              assertThat(e.getStatus().getDescription())
                  .isEqualTo("unknown service helloworld.Greeter");
            });
  }

  @Test
  void checkAnswersWhatWasSetUntilItIsCleared() {
    health.setStatus("helloworld.Greeter", NOT_SERVING);
    assertThat(check("helloworld.Greeter")).isEqualTo(NOT_SERVING);
    health.setStatus("helloworld.Greeter", UNKNOWN);
    assertThat(check("helloworld.Greeter")).isEqualTo(UNKNOWN);
    health.clearStatus("helloworld.Greeter");
    assertThatThrownBy(() -> check("helloworld.Greeter"))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
  }

  @Test
  void watchSendsTheStatusAtOnceThenEveryChange() throws Exception {
    WatchRecorder watch = watch("", 100);
    assertThat(watch.next()).isEqualTo(SERVING);
    health.setStatus("", NOT_SERVING);
    health.setStatus("", NOT_SERVING); // no change, nothing sent
    health.setStatus("", SERVING);
    health.setStatus("", UNKNOWN);
    assertThat(List.of(watch.next(), watch.next(), watch.next()))
        .containsExactly(NOT_SERVING, SERVING, UNKNOWN);
    assertThat(watch.statuses).isEmpty();
    assertThat(watch.closed).isNotDone();
  }

  @Test
  void watchOfAnUnknownServiceSaysSoAndWaitsForIt() throws Exception {
    WatchRecorder watch = watch("helloworld.Greeter", 100);
    assertThat(watch.next()).isEqualTo(SERVICE_UNKNOWN);
    assertThat(watch.closed).isNotDone();
    health.setStatus("helloworld.Greeter", SERVING);
    assertThat(watch.next()).isEqualTo(SERVING);
    health.clearStatus("helloworld.Greeter");
    assertThat(watch.next()).isEqualTo(SERVICE_UNKNOWN);
    assertThat(watch.closed).isNotDone();
  }

  @Test
  void listAnswersEveryServiceUpToTheLimitThenResourceExhausted() {
    health.setStatus("a.A", NOT_SERVING);
    health.setStatus("b.B", SERVING);
    assertThat(stub.list(HealthListRequest.getDefaultInstance()).getStatusesMap())
        .hasSize(3)
        .hasEntrySatisfying("", r -> assertThat(r.getStatus()).isEqualTo(SERVING))
        .hasEntrySatisfying("a.A", r -> assertThat(r.getStatus()).isEqualTo(NOT_SERVING))
        .hasEntrySatisfying("b.B", r -> assertThat(r.getStatus()).isEqualTo(SERVING));

    for (int i = 3; i < HealthStatusManager.MAX_LIST_SERVICES; i++) {
      health.setStatus("service" + i, SERVING);
    }
    assertThat(stub.list(HealthListRequest.getDefaultInstance()).getStatusesCount())
        .isEqualTo(HealthStatusManager.MAX_LIST_SERVICES);
    health.setStatus("one.TooMany", SERVING);
    assertThatThrownBy(() -> stub.list(HealthListRequest.getDefaultInstance()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
              assertThat(e.getStatus().getDescription())
                  .isEqualTo(
                      "the server has 101 services, more than the 100 List answers for;"
                          + " Check or Watch them one by one");
            });
  }

  @Test
  void terminalStateMakesEverythingNotServingForGood() throws Exception {
    health.setStatus("helloworld.Greeter", SERVING);
    WatchRecorder server = watch("", 100);
    WatchRecorder greeter = watch("helloworld.Greeter", 100);
    assertThat(server.next()).isEqualTo(SERVING);
    assertThat(greeter.next()).isEqualTo(SERVING);

    health.enterTerminalState();
    assertThat(server.next()).isEqualTo(NOT_SERVING);
    assertThat(greeter.next()).isEqualTo(NOT_SERVING);

    health.setStatus("helloworld.Greeter", SERVING);
    health.setStatus("", SERVING);
    health.clearStatus("helloworld.Greeter");
    health.enterTerminalState();
    assertThat(check("")).isEqualTo(NOT_SERVING);
    assertThat(check("helloworld.Greeter")).isEqualTo(NOT_SERVING);
    assertThat(server.statuses).isEmpty();
    assertThat(greeter.statuses).isEmpty();
  }

  @Test
  void aThousandSlowWatchersEachKeepOnlyTheLatestStatusAndAllSeeIt() throws Exception {
    List<WatchRecorder> slow = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      slow.add(watch("", 1)); // takes the first status, then reads nothing
    }
    WatchRecorder fast = watch("", 1000);
    for (WatchRecorder watch : slow) {
      assertThat(watch.next()).isEqualTo(SERVING);
    }
    assertThat(fast.next()).isEqualTo(SERVING);

    for (int i = 0; i < 101; i++) {
      health.setStatus("", i % 2 == 0 ? NOT_SERVING : SERVING);
    }
    for (int i = 0; i < 101; i++) {
      assertThat(fast.next()).isEqualTo(i % 2 == 0 ? NOT_SERVING : SERVING);
    }
    // Each slow watcher kept one status (the last), not 101, and sends it once asked for more.
    for (WatchRecorder watch : slow) {
      assertThat(watch.statuses).isEmpty();
      watch.request(1000);
    }
    for (WatchRecorder watch : slow) {
      assertThat(watch.next()).isEqualTo(NOT_SERVING);
    }
    health.setStatus("", SERVING);
    for (WatchRecorder watch : slow) {
      assertThat(watch.next()).isEqualTo(SERVING);
      assertThat(watch.statuses).isEmpty();
    }

    HealthService service = (HealthService) health.getHealthService();
    assertThat(service.watcherCount()).isEqualTo(1001);
    watches.forEach(WatchRecorder::cancel);
    for (WatchRecorder watch : watches) {
      assertThat(watch.closed.get(5, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.CANCELLED);
    }
    // Once the server has terminated and its executor has run what was queued, every cancel
    // handler has run: the cancelled watchers are forgotten.
    assertThat(server.shutdown().awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    serverExecutor.shutdown();
    assertThat(serverExecutor.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    assertThat(service.watcherCount()).isZero();
  }

  @Test
  void badArgumentsAreRefusedNamingThem() {
    assertThatThrownBy(() -> health.setStatus("x", SERVICE_UNKNOWN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("status must be SERVING, NOT_SERVING or UNKNOWN, was SERVICE_UNKNOWN");
    assertThatThrownBy(() -> health.setStatus("x", ServingStatus.UNRECOGNIZED))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> health.setStatus(null, SERVING))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("service");
    assertThatThrownBy(() -> health.setStatus("x", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("status");
    assertThatThrownBy(() -> health.clearStatus(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("service");
  }
}
