package dev.tern.reliability;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import org.junit.jupiter.api.Test;

/** CPU lists for {@code bin/overload --server-cpus/--client-cpus}, and how taskset is called. */
class CpuPinningTest {
  @Test
  void cpuListsAreWhatTasksetTakes() {
    for (String cpus : new String[] {"", "0", "1", "0,2", "0-3", "0-1,4,6-7"}) {
      assertThat(CpuPinning.check("server-cpus", cpus)).isEqualTo(cpus);
    }
    assertThat(CpuPinning.launcher("")).isEmpty();
    assertThat(CpuPinning.launcher("0")).containsExactly("taskset", "-c", "0");
  }

  @Test
  void anythingElseIsRefusedNamingTheFlag() {
    for (String cpus : new String[] {"a", "0,", "-1", "0;rm", "0 1", "1-"}) {
      assertThatThrownBy(() -> CpuPinning.check("client-cpus", cpus))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("--client-cpus")
          .hasMessageContaining("'" + cpus + "'");
    }
  }

  @Test
  void overloadRefusesABadCpuListBeforeStartingAnything() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        OverloadReport.run(
            new String[] {"--server-cpus=zero"},
            new PrintStream(out, true, UTF_8),
            new PrintStream(err, true, UTF_8));
    assertThat(status).isEqualTo(2);
    assertThat(err.toString(UTF_8)).contains("--server-cpus").contains("'zero'");
    assertThat(out.toString(UTF_8)).isEmpty();
  }
}
