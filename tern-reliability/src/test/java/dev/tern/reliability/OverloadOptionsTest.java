package dev.tern.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The server configurations {@code bin/overload} runs: their names, and which sets the load. */
class OverloadOptionsTest {
  private static OverloadRun.Options options(String peer, int maxCalls, boolean adaptive) {
    return new OverloadRun.Options(
        peer,
        maxCalls,
        adaptive,
        List.of(2.0),
        0,
        Duration.ofSeconds(1),
        Duration.ofSeconds(1),
        Duration.ofSeconds(1),
        Duration.ofSeconds(1),
        WorkLoad.Arrivals.CONSTANT,
        List.of(),
        "",
        OverloadWorkload.WORK);
  }

  @Test
  void ternRows_areNamedByWhatDiffersFromTheDefaults() {
    assertThat(options("tern", Integer.MAX_VALUE, true).name()).isEqualTo("Tern");
    assertThat(options("tern", Integer.MAX_VALUE, false).name())
        .isEqualTo("Tern, adaptiveConcurrencyLimit=false");
    assertThat(options("tern", 4, true).name()).isEqualTo("Tern, maxConcurrentCalls=4");
  }

  @Test
  void onlyServersWithNoLimitMeasureTheCapacity() {
    assertThat(options("tern", Integer.MAX_VALUE, false).unbounded()).isTrue();
    assertThat(options("grpc-java", Integer.MAX_VALUE, true).unbounded()).isTrue();
    assertThat(options("tern", Integer.MAX_VALUE, true).unbounded())
        .as("the default Tern server: its adaptive limit")
        .isFalse();
    assertThat(options("tern", 4, true).unbounded()).isFalse();
  }

  @Test
  void grpcJava_hasNoAdaptiveLimitToTurnOff() {
    assertThatThrownBy(() -> options("grpc-java", Integer.MAX_VALUE, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "adaptiveConcurrencyLimit is Tern's, and only it can turn it off, not grpc-java");
  }
}
