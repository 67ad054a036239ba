package dev.tern.xds.internal.lrs;

import static org.assertj.core.api.Assertions.assertThat;

import io.envoyproxy.envoy.config.endpoint.v3.ClusterStats;
import io.envoyproxy.envoy.config.endpoint.v3.UpstreamLocalityStats;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LoadStatsRegistryTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final AtomicInteger changes = new AtomicInteger();
  private final LoadStatsRegistry registry =
      new LoadStatsRegistry(changes::incrementAndGet, now::get);
  private static final LrsLocality Z1 = new LrsLocality("r", "z1", "");

  @Test
  void theFirstLeaseAndTheLastReleaseAnnounceTheChangeAndChannelsShareAClustersStats() {
    LoadStatsRegistry.Lease a = registry.acquire("c1", "e1");
    LoadStatsRegistry.Lease b = registry.acquire("c1", "e1");
    assertThat(changes).hasValue(1);
    assertThat(b.stats()).isSameAs(a.stats());
    a.release();
    a.release(); // twice: no effect
    assertThat(registry.isEmpty()).isFalse();
    b.release();
    assertThat(registry.isEmpty()).isTrue();
    assertThat(changes).hasValue(2);
  }

  @Test
  void aReportHoldsTheCountsSinceTheLastOneAndTheTimeElapsed() {
    ClusterLoadStats stats = registry.acquire("c1", "e1").stats();
    LocalityLoadCounter z1 = stats.locality(Z1);
    z1.callStarted();
    z1.callStarted();
    z1.callStarted();
    z1.callFinished(true);
    z1.callFinished(false);
    stats.recordDrop("lb");
    stats.recordDrop("lb");
    stats.recordUncategorizedDrop();
    now.addAndGet(250_000_000L);

    ClusterStats first = only(registry.report(null));
    assertThat(first.getClusterName()).isEqualTo("c1");
    assertThat(first.getClusterServiceName()).isEqualTo("e1");
    assertThat(first.getLoadReportInterval().getNanos()).isEqualTo(250_000_000);
    UpstreamLocalityStats locality = first.getUpstreamLocalityStats(0);
    assertThat(locality.getLocality().getZone()).isEqualTo("z1");
    assertThat(locality.getTotalIssuedRequests()).isEqualTo(3);
    assertThat(locality.getTotalSuccessfulRequests()).isEqualTo(1);
    assertThat(locality.getTotalErrorRequests()).isEqualTo(1);
    assertThat(locality.getTotalRequestsInProgress()).isEqualTo(1);
    assertThat(first.getDroppedRequests(0).getCategory()).isEqualTo("lb");
    assertThat(first.getDroppedRequests(0).getDroppedCount()).isEqualTo(2);
    assertThat(first.getTotalDroppedRequests()).isEqualTo(3); // with the uncategorized one

    // Next time only what came since; the call still open is still in progress.
    now.addAndGet(1_000_000_000L);
    ClusterStats second = only(registry.report(Set.of("c1")));
    assertThat(second.getLoadReportInterval().getSeconds()).isEqualTo(1);
    assertThat(second.getUpstreamLocalityStats(0).getTotalIssuedRequests()).isZero();
    assertThat(second.getUpstreamLocalityStats(0).getTotalRequestsInProgress()).isEqualTo(1);
    assertThat(second.getTotalDroppedRequests()).isZero();
    assertThat(second.getDroppedRequestsList()).isEmpty();
  }

  @Test
  void onlyTheClustersTheServerAskedForAreReported() {
    registry.acquire("c1", null).stats().recordUncategorizedDrop();
    registry.acquire("c2", null);
    assertThat(registry.report(Set.of("c2")))
        .extracting(ClusterStats::getClusterName)
        .containsExactly("c2");
    assertThat(registry.report(Set.of())).isEmpty();
    // c1's drop was not reported, so it is still there.
    ClusterStats c1 = only(registry.report(Set.of("c1")));
    assertThat(c1.getTotalDroppedRequests()).isEqualTo(1);
    assertThat(c1.getClusterServiceName()).isEmpty();
  }

  @Test
  void callsWithoutALocalityCountUnderTheEmptyOne() {
    ClusterLoadStats stats = registry.acquire("c1", null).stats();
    stats.locality(null).callStarted();
    UpstreamLocalityStats locality = only(registry.report(null)).getUpstreamLocalityStats(0);
    assertThat(locality.getLocality().getZone()).isEmpty();
    assertThat(locality.getTotalIssuedRequests()).isEqualTo(1);
  }

  private static <T> T only(List<T> list) {
    assertThat(list).hasSize(1);
    return list.get(0);
  }
}
