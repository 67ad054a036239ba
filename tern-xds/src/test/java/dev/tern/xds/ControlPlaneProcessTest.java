package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ControlPlaneProcessTest {
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
