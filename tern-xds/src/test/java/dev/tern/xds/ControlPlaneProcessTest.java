package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

class ControlPlaneProcessTest {
  private static final String MISSING = "tern-xds-no-such-program";

  @Test
  void missingProgramSkipsOutsideCi() {
    assertThatThrownBy(() -> ControlPlaneProcess.require(MISSING, null))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageContaining(MISSING + " is not installed; run tools/install-xds-tools.sh");
  }

  @Test
  void missingProgramFailsUnderCi() {
    assertThatThrownBy(() -> ControlPlaneProcess.require(MISSING, "true"))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessageContaining("CI=true, so this is a failure, not a skip");
  }

  @Test
  void portsAndRequestsOfARealProcess() throws Exception {
    try (ControlPlaneProcess cp = ControlPlaneProcess.start()) {
      assertThat(cp.adsPort()).isPositive();
      assertThat(cp.target()).startsWith("127.0.0.1:");
      assertThat(cp.requests()).isEmpty();
      assertThat(cp.streams()).containsEntry("opened", 0.0);
      assertThat(cp.pid()).isPositive();
    }
  }
}
