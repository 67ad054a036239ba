package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Duration;
import com.google.protobuf.UInt32Value;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import io.envoyproxy.envoy.config.cluster.v3.OutlierDetection;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Outlier detection (gRFC A50) through the whole client side, nothing replaced: {@code xds:///svc},
 * a real control plane serving a cluster with {@code outlier_detection} (failure percentage), and
 * three Tern backends on 127.0.0.2-4, one of which the test makes answer every call UNAVAILABLE;
 * and the same policy without xDS, named in the service config of a channel to an {@code ipv4:}
 * list of the backends. Waits by making calls and looking at who answered, never by sleeping.
 */
@Tag("external-check") // long, or a rerun: -Pexternal-checks and CI (README.md#development)
class OutlierDetectionEndToEndTest {
  private static final String BOOTSTRAP_PROPERTY = "io.grpc.xds.bootstrapConfig";
  private static final String BAD = "127.0.0.4";

  /** How long any wait for the balancer to react may take before the test fails. */
  private static final long PATIENCE_NANOS = TimeUnit.SECONDS.toNanos(60);

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private ControlPlaneProcess cp;
  private Backends backends;

  @BeforeEach
  void setUp() throws Exception {
    backends = Backends.start("127.0.0.2", "127.0.0.3", BAD);
    closeables.add(backends);
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  /** The host that answered, or null when the call failed UNAVAILABLE. */
  private static String call(ManagedChannel channel) {
    try {
      return Backends.call(channel);
    } catch (StatusRuntimeException e) {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(e.getStatus().getDescription()).isEqualTo(BAD + " fails on purpose");
      return null;
    }
  }

  /**
   * Calls until {@code done} holds for {@code run} consecutive answers; fails after the patience.
   */
  private static void callUntil(
      ManagedChannel channel, int run, java.util.function.Predicate<String> done, String what) {
    long deadline = System.nanoTime() + PATIENCE_NANOS;
    int streak = 0;
    while (streak < run) {
      assertThat(System.nanoTime() - deadline).as("waiting for " + what).isNegative();
      streak = done.test(call(channel)) ? streak + 1 : 0;
    }
  }

  @Test
  void failingBackendIsEjectedThenReturnsOnceHealthyAndItsEjectionTimePassed() throws Exception {
    cp = ControlPlaneProcess.start();
    closeables.add(cp);
    System.setProperty(BOOTSTRAP_PROPERTY, cp.bootstrapJson("outlier-e2e"));
    closeables.add(() -> System.clearProperty(BOOTSTRAP_PROPERTY));
    OutlierDetection outlier =
        OutlierDetection.newBuilder()
            .setInterval(Duration.newBuilder().setSeconds(1))
            .setBaseEjectionTime(Duration.newBuilder().setSeconds(10))
            .setEnforcingSuccessRate(UInt32Value.of(0))
            .setFailurePercentageThreshold(UInt32Value.of(50))
            .setEnforcingFailurePercentage(UInt32Value.of(100))
            .setFailurePercentageMinimumHosts(UInt32Value.of(3))
            .setFailurePercentageRequestVolume(UInt32Value.of(5))
            .build();
    LocalityLbEndpoints.Builder locality = Resources.locality("z1", 1, 0);
    for (int i = 0; i < 3; i++) {
      locality.addLbEndpoints(Resources.endpoint(backends.host(i), backends.port(i)));
    }
    cp.setSnapshot(
        "outlier-e2e",
        "1",
        List.of(
            Resources.listener("svc", "r1"),
            Resources.routes("r1", "c1"),
            Resources.edsCluster("c1", "e1").setOutlierDetection(outlier).build(),
            ClusterLoadAssignment.newBuilder()
                .setClusterName("e1")
                .addEndpoints(locality)
                .build()));
    ManagedChannel channel = ManagedChannelBuilder.forTarget("xds:///svc").usePlaintext().build();
    closeables.add(() -> channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS));
    ejectAndReturn(channel);
  }

  @Test
  void worksWithoutXdsAsAServiceConfigPolicy() throws Exception {
    List<String> addresses = new ArrayList<>();
    for (int i = 0; i < backends.size(); i++) {
      addresses.add(backends.host(i) + ":" + backends.port(i));
    }
    String target = "ipv4:" + String.join(",", addresses);
    ManagedChannel channel =
        ManagedChannelBuilder.forTarget(target)
            .usePlaintext()
            .defaultServiceConfigJson(
                "{\"loadBalancingConfig\": [{\"outlier_detection_experimental\": {"
                    + "\"interval\": \"1s\", \"baseEjectionTime\": \"10s\","
                    + " \"failurePercentageEjection\": {\"threshold\": 50, \"minimumHosts\": 3,"
                    + " \"requestVolume\": 5}, \"childPolicy\": [{\"round_robin\": {}}]}}]}")
            .build();
    closeables.add(() -> channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS));
    ejectAndReturn(channel);
  }

  /** With {@link #BAD} failing, it is ejected (1 s interval); healthy again, it returns (10 s). */
  private void ejectAndReturn(ManagedChannel channel) {
    callUntil(channel, 1, BAD::equals, "a first answer from " + BAD);

    // The bad backend fails every call it gets: at the end of an interval it is ejected, and then
    // the calls go on to the other two with none failing.
    backends.failing(BAD, true);
    callUntil(channel, 30, host -> host != null, BAD + " to be ejected");
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < 300; i++) {
      counts.merge(String.valueOf(call(channel)), 1, Integer::sum);
    }
    assertThat(counts).containsOnlyKeys("127.0.0.2", "127.0.0.3");
    assertThat(counts.values()).allSatisfy(n -> assertThat(n).isBetween(140, 160));

    // Healthy again: once its ejection time (10 s) has passed it takes calls again, and succeeds.
    backends.failing(BAD, false);
    long healthySince = System.nanoTime();
    callUntil(channel, 1, BAD::equals, BAD + " to return");
    assertThat(System.nanoTime() - healthySince).isLessThan(TimeUnit.SECONDS.toNanos(12));
  }
}
