package dev.tern.xds.internal.lb;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.xds.data.orca.v3.OrcaLoadReport;
import dev.tern.testing.FakeClock;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class EndpointWeightTest {
  private final FakeClock clock = new FakeClock();
  private final WeightedRoundRobinConfig config =
      WeightedRoundRobinConfig.parse(
          Map.of("blackoutPeriod", "10s", "weightExpirationPeriod", "180s"));
  private final EndpointWeight weight = new EndpointWeight(clock::currentTimeNanos, config);

  private static OrcaLoadReport report(double qps, double eps, double cpu, double application) {
    return OrcaLoadReport.newBuilder()
        .setRpsFractional(qps)
        .setEps(eps)
        .setCpuUtilization(cpu)
        .setApplicationUtilization(application)
        .build();
  }

  @Test
  void weightIsQpsOverUtilizationPreferringApplicationUtilization() {
    assertThat(EndpointWeight.weightOf(report(100, 0, 0.5, 0), 1)).isEqualTo(200);
    assertThat(EndpointWeight.weightOf(report(100, 0, 0.5, 0.25), 1)).isEqualTo(400);
  }

  @Test
  void errorsAddToTheUtilizationTimesThePenalty() {
    // 100 / (0.5 + 50/100 * 1)
    assertThat(EndpointWeight.weightOf(report(100, 50, 0.5, 0), 1)).isEqualTo(100);
    // 100 / (0.5 + 50/100 * 2)
    assertThat(EndpointWeight.weightOf(report(100, 50, 0.5, 0), 2)).isCloseTo(66.67, within());
    assertThat(EndpointWeight.weightOf(report(100, 50, 0.5, 0), 0)).isEqualTo(200);
  }

  @Test
  void aReportWithoutQpsOrUtilizationGivesNoWeight() {
    assertThat(EndpointWeight.weightOf(report(0, 0, 0.5, 0), 1)).isZero();
    assertThat(EndpointWeight.weightOf(report(100, 0, 0, 0), 1)).isZero();
  }

  @Test
  void theWeightCountsOnlyAfterTheBlackoutPeriod() {
    assertThat(weight.weight()).isZero();
    weight.onLoadReport(report(100, 0, 0.5, 0));
    clock.forwardTime(9, TimeUnit.SECONDS);
    weight.onLoadReport(report(100, 0, 0.5, 0));
    assertThat(weight.weight()).isZero();
    clock.forwardTime(1, TimeUnit.SECONDS);
    assertThat(weight.weight()).isEqualTo(200);
  }

  @Test
  void aWeightExpiresAndThenNeedsANewBlackoutPeriod() {
    weight.onLoadReport(report(100, 0, 0.5, 0));
    clock.forwardTime(179, TimeUnit.SECONDS);
    assertThat(weight.weight()).isEqualTo(200);
    clock.forwardTime(1, TimeUnit.SECONDS);
    assertThat(weight.weight()).isZero();

    weight.onLoadReport(report(50, 0, 0.5, 0));
    assertThat(weight.weight()).isZero(); // blackout again
    clock.forwardTime(10, TimeUnit.SECONDS);
    assertThat(weight.weight()).isEqualTo(100);
  }

  @Test
  void aReportWithoutWeightNeitherStartsNorRefreshesIt() {
    weight.onLoadReport(report(0, 0, 0.5, 0));
    clock.forwardTime(11, TimeUnit.SECONDS);
    assertThat(weight.weight()).isZero();
  }

  @Test
  void resetStartsAgain() {
    weight.onLoadReport(report(100, 0, 0.5, 0));
    clock.forwardTime(20, TimeUnit.SECONDS);
    assertThat(weight.weight()).isEqualTo(200);
    weight.reset();
    assertThat(weight.weight()).isZero();
    weight.onLoadReport(report(100, 0, 0.5, 0));
    assertThat(weight.weight()).isZero();
  }

  @Test
  void withoutBlackoutTheFirstReportCounts() {
    EndpointWeight noBlackout =
        new EndpointWeight(
            clock::currentTimeNanos,
            WeightedRoundRobinConfig.parse(Map.of("blackoutPeriod", "0s")));
    noBlackout.onLoadReport(report(100, 0, 0.5, 0));
    assertThat(noBlackout.weight()).isEqualTo(200);
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(0.01);
  }
}
