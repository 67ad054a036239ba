package dev.tern.reliability;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.reliability.ChaosService.WorkCall;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code bin/overload --workload}: the flag, the calls each workload makes, and their costs. */
class OverloadWorkloadTest {
  @Test
  void eachFlagValueNamesItsWorkload() {
    assertThat(OverloadWorkload.parse("work")).isEqualTo(OverloadWorkload.WORK);
    assertThat(OverloadWorkload.parse("mixed")).isEqualTo(OverloadWorkload.MIXED);
    assertThat(OverloadWorkload.parse("blocking")).isEqualTo(OverloadWorkload.BLOCKING);
    assertThat(OverloadWorkload.parse("stream")).isEqualTo(OverloadWorkload.STREAM);
    assertThat(OverloadReport.FLAGS.help()).contains("--workload").contains("work|mixed");
  }

  @Test
  void anUnknownWorkloadIsRefusedNamingTheFlagAndItsValues() {
    for (String bad : new String[] {"nope", "", "WORK", "mixed "}) {
      assertThatThrownBy(() -> OverloadWorkload.parse(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("--workload must be work, mixed, blocking or stream, was '" + bad + "'");
    }
  }

  @Test
  void overloadRefusesAnUnknownWorkloadBeforeStartingAnything() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        OverloadReport.run(
            new String[] {"--workload=nope"},
            new PrintStream(out, true, UTF_8),
            new PrintStream(err, true, UTF_8));
    assertThat(status).isEqualTo(2);
    assertThat(err.toString(UTF_8))
        .contains("--workload must be work, mixed, blocking or stream, was 'nope'");
    assertThat(out.toString(UTF_8)).isEmpty();
  }

  @Test
  void mixedCalls_areTheSameForTheSameSeed() {
    assertThat(draw(OverloadWorkload.MIXED, 7, 1_000))
        .isEqualTo(draw(OverloadWorkload.MIXED, 7, 1_000))
        .isNotEqualTo(draw(OverloadWorkload.MIXED, 8, 1_000));
  }

  @Test
  void mixedCalls_areOneExpensiveInTenAndHalfTheCpuEach() {
    int calls = 100_000;
    List<WorkCall> drawn = draw(OverloadWorkload.MIXED, 1, calls);
    long expensive = drawn.stream().filter(c -> c == WorkCall.EXPENSIVE).count();
    long cheap = drawn.stream().filter(c -> c == WorkCall.CHEAP).count();
    assertThat(cheap + expensive).isEqualTo(calls);
    assertThat(expensive).isBetween(9_500L, 10_500L);
    double cheapCpu = (double) cheap * WorkCall.CHEAP.rounds();
    double expensiveCpu = (double) expensive * WorkCall.EXPENSIVE.rounds();
    assertThat(cheapCpu / (cheapCpu + expensiveCpu)).isBetween(0.45, 0.55);
  }

  @Test
  void theOtherWorkloads_makeOneKindOfCall() {
    assertThat(draw(OverloadWorkload.WORK, 1, 100)).containsOnly(WorkCall.STANDARD);
    assertThat(draw(OverloadWorkload.BLOCKING, 1, 100)).containsOnly(WorkCall.BLOCKING);
    assertThat(draw(OverloadWorkload.STREAM, 1, 100)).containsOnly(WorkCall.STREAM);
  }

  @Test
  void blocking_measuresCapacityWithUpToFourTimesTheBackendsConnectionsInFlight() {
    assertThat(OverloadWorkload.WORK.capacityInFlight()).isEqualTo(OverloadRun.CAPACITY_IN_FLIGHT);
    assertThat(OverloadWorkload.BLOCKING.capacityInFlight())
        .containsExactly(
            32, ChaosService.BACKEND_CONNECTIONS, 4 * ChaosService.BACKEND_CONNECTIONS);
  }

  @Test
  void theRequestSetsTheCostOfAWorkCall() {
    assertThat(WorkCall.STANDARD.request()).hasSize(1);
    assertThat(WorkCall.CHEAP.rounds()).isEqualTo(ChaosService.WORK_ROUNDS / 3);
    assertThat(WorkCall.EXPENSIVE.rounds()).isEqualTo(ChaosService.WORK_ROUNDS * 3);
    // Different rounds from the same seed give different answers: the server ran the rounds asked.
    assertThat(ChaosService.work(WorkCall.CHEAP.request()))
        .isNotEqualTo(ChaosService.work(WorkCall.STANDARD.request()))
        .hasSize(Long.BYTES);
    assertThatThrownBy(() -> ChaosService.work(WorkCall.BLOCKING.request()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("request's second byte");
  }

  private static List<WorkCall> draw(OverloadWorkload workload, long seed, int count) {
    OverloadWorkload.Calls calls = workload.calls(seed);
    List<WorkCall> drawn = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      drawn.add(calls.next());
    }
    return drawn;
  }
}
