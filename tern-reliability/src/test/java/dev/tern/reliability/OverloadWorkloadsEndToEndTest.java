package dev.tern.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code bin/overload --workload=mixed|blocking|stream} in brief, on each peer: the server in a
 * child JVM serves the workload's method, its capacity is measured, and an unloaded step and a step
 * at 1x end with calls served and no finding. What a user would notice: the report's rows for these
 * workloads come from calls that reached the right method and ended OK, and a mixed load served
 * both kinds. No latency or throughput is asserted (OverloadTest and docs/reliability.md cover the
 * overload itself).
 */
@Tag("external-check") // not in mvn verify; -Pexternal-checks and CI: README.md#development
class OverloadWorkloadsEndToEndTest {
  @ParameterizedTest(name = "{0} on {1}")
  @CsvSource({
    "MIXED, tern",
    "MIXED, grpc-java",
    "BLOCKING, tern",
    "BLOCKING, grpc-java",
    "STREAM, tern",
    "STREAM, grpc-java"
  })
  @Timeout(60)
  void eachWorkloadIsServedAndReported(OverloadWorkload workload, String peer) throws Exception {
    ByteArrayOutputStream progress = new ByteArrayOutputStream();
    OverloadRun.Result result =
        OverloadRun.run(
            new OverloadRun.Options(
                peer,
                Integer.MAX_VALUE,
                true,
                List.of(1.0),
                0,
                Duration.ofMillis(300),
                Duration.ofMillis(500),
                Duration.ofMillis(500),
                Duration.ofSeconds(1),
                WorkLoad.Arrivals.CONSTANT,
                List.of("-Xmx256m", "-XX:+ExitOnOutOfMemoryError"),
                "",
                workload),
            new PrintStream(progress, true, StandardCharsets.UTF_8));
    String table = OverloadReport.table(List.of(result));

    assertThat(table).startsWith("Workload " + workload.flag() + ": ");
    assertThat(result.findings()).as("findings:%n%s", table).isEmpty();
    assertThat(result.steps()).as("the unloaded step and 1x").hasSize(2);
    for (OverloadRun.Step step : result.steps()) {
      assertThat(step.counts().getOrDefault("OK", 0L))
          .as("calls served at %sx%n%s", step.multiple(), table)
          .isPositive();
    }
    OverloadRun.Step unloaded = result.steps().get(0);
    if (workload == OverloadWorkload.MIXED) {
      assertThat(unloaded.byKind().keySet()).containsExactly("cheap", "expensive");
      unloaded
          .byKind()
          .forEach(
              (kind, count) ->
                  assertThat(count.ok()).as("%s calls served%n%s", kind, table).isPositive());
      assertThat(table).contains("cheap OK ").contains("expensive OK ");
    } else {
      assertThat(unloaded.byKind()).hasSize(1);
    }
    if (workload == OverloadWorkload.BLOCKING) {
      // Its 256-call loop would serve 12,800 calls/s but for the backend's connections.
      double backendPace =
          ChaosService.BACKEND_CONNECTIONS * 1_000.0 / ChaosService.BLOCK_TIME.toMillis();
      assertThat(result.capacity()).as("capacity%n%s", table).isPositive().isLessThan(backendPace);
    }
  }
}
