package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.stub.ClientCalls;
import io.envoyproxy.envoy.config.core.v3.ConfigSource;
import io.envoyproxy.envoy.config.core.v3.SelfConfigSource;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.type.v3.FractionalPercent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Load reporting (LRS, gRFC A27) end to end: a cluster with {@code lrs_server: self} over two
 * localities (one backend each, 127.0.0.2 and .3), a channel to {@code xds:///svc}, and the real
 * control plane's LRS server recording what the client reports.
 */
class XdsLoadReportingEndToEndTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String[] HOSTS = {"127.0.0.2", "127.0.0.3"};
  private static final String[] ZONES = {"z1", "z2"};

  private final String node;
  private final XdsMesh mesh = new XdsMesh();
  private ControlPlaneProcess cp;
  private final List<LogRecord> logged = new ArrayList<>();
  private final Logger lrsLogger = Logger.getLogger(LoadReportClient.class.getName());
  private final Handler capture =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          synchronized (logged) {
            logged.add(record);
          }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  XdsLoadReportingEndToEndTest(TestInfo info) {
    node = "lrs-" + info.getTestMethod().orElseThrow().getName();
  }

  @BeforeEach
  void setUp() throws Exception {
    lrsLogger.addHandler(capture);
    lrsLogger.setUseParentHandlers(false);
    mesh.start(node, HOSTS);
    cp = mesh.controlPlane();
  }

  @AfterEach
  void tearDown() throws Exception {
    try {
      mesh.close();
    } finally {
      lrsLogger.removeHandler(capture);
      lrsLogger.setUseParentHandlers(true);
    }
  }

  /** svc -> r1 -> c1 (lrs_server self; EDS e1: z1 and z2, one backend each; drops as given). */
  private void push(int dropPercent) {
    ClusterLoadAssignment.Builder eds = ClusterLoadAssignment.newBuilder().setClusterName("e1");
    for (int i = 0; i < HOSTS.length; i++) {
      eds.addEndpoints(
          Resources.locality(ZONES[i], 1, 0)
              .addLbEndpoints(
                  Resources.endpoint(mesh.backends().host(i), mesh.backends().port(i))));
    }
    if (dropPercent > 0) {
      eds.setPolicy(
          ClusterLoadAssignment.Policy.newBuilder()
              .addDropOverloads(
                  ClusterLoadAssignment.Policy.DropOverload.newBuilder()
                      .setCategory("throttle")
                      .setDropPercentage(
                          FractionalPercent.newBuilder()
                              .setNumerator(dropPercent)
                              .setDenominator(FractionalPercent.DenominatorType.HUNDRED))));
    }
    List<Message> resources =
        List.of(
            Resources.listener("svc", "r1"),
            Resources.routes("r1", "c1"),
            Resources.edsCluster("c1", "e1")
                .setLrsServer(
                    ConfigSource.newBuilder().setSelf(SelfConfigSource.getDefaultInstance()))
                .build(),
            eds.build());
    cp.setSnapshot(node, "1", resources);
  }

  /** One call: the host that answered, or "dropped" when the balancer dropped it. */
  private static String call(ManagedChannel channel) {
    try {
      return ClientCalls.blockingUnaryCall(
          channel, Backends.NAME, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), "");
    } catch (StatusRuntimeException e) {
      Status status = e.getStatus();
      assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(status.getDescription()).contains("dropped by load balancer: throttle");
      return "dropped";
    }
  }

  @Test
  void reportsEachLocalitysCallsAndTheDropsPerCategoryAtTheIntervalAsked() throws Exception {
    cp.setLoadReporting("{\"interval\": \"0.2s\", \"send_all_clusters\": true}");
    push(25);
    ManagedChannel channel = mesh.channel();
    Map<String, Long> counts = new HashMap<>();
    for (int i = 0; i < 200; i++) {
      counts.merge(call(channel), 1L, Long::sum);
    }
    assertThat(counts.get("dropped")).isPositive();
    assertThat(counts.get(HOSTS[0])).isPositive();
    assertThat(counts.get(HOSTS[1])).isPositive();

    Totals totals =
        awaitTotals(
            t ->
                t.issued(ZONES[0]) == counts.get(HOSTS[0])
                    && t.issued(ZONES[1]) == counts.get(HOSTS[1])
                    && t.succeeded(ZONES[0]) == counts.get(HOSTS[0])
                    && t.succeeded(ZONES[1]) == counts.get(HOSTS[1])
                    && t.dropped("throttle") == counts.get("dropped"));
    assertThat(totals.errored).isZero();
    assertThat(totals.totalDropped).isEqualTo(counts.get("dropped"));
    assertThat(totals.clusters).containsOnly("c1/e1");
    // The first request carried the node (the recorder keeps a stream's node from it); every
    // report after the first covers about the 0.2 s asked for (the timer can only be late).
    Map<String, Object> received = cp.loadReports();
    assertThat(reports(received)).allSatisfy(r -> assertThat(r.get("node")).isEqualTo(node));
    assertThat(totals.intervalsNanos).isNotEmpty();
    for (long interval : totals.intervalsNanos.subList(1, totals.intervalsNanos.size())) {
      assertThat(interval).isBetween(180_000_000L, 5_000_000_000L);
    }
  }

  @Test
  void anLrsServerFailingItsStreamsIsRetriedWithBackoffAndCallsAreUnaffected() throws Exception {
    cp.setLoadReporting(
        "{\"interval\": \"0.2s\", \"send_all_clusters\": true, \"fail_streams\": 2}");
    push(0);
    ManagedChannel channel = mesh.channel();
    Map<String, Long> counts = new HashMap<>();
    for (int i = 0; i < 50; i++) {
      counts.merge(call(channel), 1L, Long::sum); // any failure would throw or count "dropped"
    }
    assertThat(counts).doesNotContainKey("dropped");

    // The third stream is answered; its reports hold every call made.
    awaitTotals(
        t ->
            t.issued(ZONES[0]) + t.issued(ZONES[1]) == 50
                && t.succeeded(ZONES[0]) + t.succeeded(ZONES[1]) == 50);
    Map<String, Object> received = cp.loadReports();
    assertThat(((Number) received.get("failed")).intValue()).isEqualTo(2);
    assertThat(((Number) received.get("streams")).intValue()).isGreaterThanOrEqualTo(3);
    synchronized (logged) {
      assertThat(logged)
          .filteredOn(r -> r.getLevel() == Level.WARNING)
          .hasSizeGreaterThanOrEqualTo(2)
          .allSatisfy(r -> assertThat(r.getMessage()).startsWith("LRS stream to {0} closed"));
    }
  }

  /** What the reports received so far add up to. */
  private static final class Totals {
    final Map<String, Long> issued = new HashMap<>();
    final Map<String, Long> succeeded = new HashMap<>();
    final Map<String, Long> drops = new HashMap<>();
    final List<String> clusters = new ArrayList<>();
    final List<Long> intervalsNanos = new ArrayList<>();
    long errored;
    long totalDropped;

    long issued(String zone) {
      return issued.getOrDefault(zone, 0L);
    }

    long succeeded(String zone) {
      return succeeded.getOrDefault(zone, 0L);
    }

    long dropped(String category) {
      return drops.getOrDefault(category, 0L);
    }

    @Override
    public String toString() {
      return "issued "
          + issued
          + ", succeeded "
          + succeeded
          + ", errored "
          + errored
          + ", drops "
          + drops;
    }
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> reports(Map<String, Object> received) {
    return (List<Map<String, Object>>) (List<?>) received.get("reports");
  }

  @SuppressWarnings("unchecked")
  private static Totals totals(Map<String, Object> received) {
    Totals totals = new Totals();
    for (Map<String, Object> report : reports(received)) {
      for (Object o : (List<Object>) report.get("cluster_stats")) {
        Map<String, Object> stats = (Map<String, Object>) o;
        String cluster = stats.get("clusterName") + "/" + stats.get("clusterServiceName");
        if (!totals.clusters.contains(cluster)) {
          totals.clusters.add(cluster);
        }
        totals.intervalsNanos.add(nanos((String) stats.get("loadReportInterval")));
        totals.totalDropped += number(stats.get("totalDroppedRequests"));
        for (Object l : (List<Object>) stats.getOrDefault("upstreamLocalityStats", List.of())) {
          Map<String, Object> locality = (Map<String, Object>) l;
          String zone = (String) ((Map<String, Object>) locality.get("locality")).get("zone");
          totals.issued.merge(zone, number(locality.get("totalIssuedRequests")), Long::sum);
          totals.succeeded.merge(zone, number(locality.get("totalSuccessfulRequests")), Long::sum);
          totals.errored += number(locality.get("totalErrorRequests"));
        }
        for (Object d : (List<Object>) stats.getOrDefault("droppedRequests", List.of())) {
          Map<String, Object> drop = (Map<String, Object>) d;
          totals.drops.merge(
              (String) drop.get("category"), number(drop.get("droppedCount")), Long::sum);
        }
      }
    }
    return totals;
  }

  /** A proto3 JSON int64 (a string), or 0 when left out. */
  private static long number(Object value) {
    return value == null ? 0 : Long.parseLong(value.toString());
  }

  /** A proto3 JSON Duration ("0.200123s"). */
  private static long nanos(String duration) {
    return Duration.ofNanos(
            (long) (Double.parseDouble(duration.substring(0, duration.length() - 1)) * 1e9))
        .toNanos();
  }

  /** Polls the reports until their totals match, for 20 s; an AssertionError with them if not. */
  private Totals awaitTotals(Predicate<Totals> matches) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    Totals last = null;
    while (System.nanoTime() < deadline) {
      last = totals(cp.loadReports());
      if (matches.test(last)) {
        return last;
      }
      Thread.sleep(50); // a poll interval, not a synchronisation: the loop waits on the condition
    }
    throw new AssertionError("the reports never matched: " + last + "; " + cp.loadReports());
  }
}
