package dev.tern.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The CI version of {@code bin/soak}: two minutes of the mixed workload against a Tern server in a
 * child JVM (a 256 MiB heap, pinned), sampled every 10 s; after a 30 s warm-up neither process's
 * heap after GC, RSS (the client's is only shown), threads or fds grows beyond its tolerance
 * ({@link Growth}), and no call fails.
 */
@Tag("external-check") // not in mvn verify; -Pexternal-checks and CI: README.md#development
class SoakTest {
  /** Well under this machine's capacity (~70% of a busy CI runner's); see docs/reliability.md. */
  private static final int RATE = 100;

  @Test
  @Timeout(240)
  void twoMinutesOfLoadGrowNothingAndFailNoCall() throws Exception {
    ByteArrayOutputStream progress = new ByteArrayOutputStream();
    SoakRun.Result result =
        SoakRun.run(
            new SoakRun.Options(
                "tern",
                Duration.ofMinutes(2),
                Duration.ofSeconds(10),
                Duration.ofSeconds(30),
                RATE,
                16,
                SoakRun.serverHeap(256)),
            new PrintStream(progress, true, StandardCharsets.UTF_8));
    String table = SoakReport.table(result);
    System.out.print(table);

    assertThat(result.samples()).as("a sample every 10 s").hasSize(12);
    assertThat(result.calls()).as("calls at about %d/s", RATE).isGreaterThan(RATE * 120L / 2);
    assertThat(result.findings()).as("findings of the soak:%n%s", table).isEmpty();
  }
}
