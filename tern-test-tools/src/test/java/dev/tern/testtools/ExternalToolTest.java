package dev.tern.testtools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

class ExternalToolTest {
  @Test
  void findsProgramsOnThePathUnlessHidden() {
    if (ExternalTool.hidden()) {
      assertThat(ExternalTool.find("sh")).isEmpty();
    } else {
      assertThat(ExternalTool.find("sh")).hasValueSatisfying(p -> assertThat(p).isExecutable());
    }
    assertThat(ExternalTool.find("no-such-tool-tern-test")).isEmpty();
  }

  @Test
  void aMissingToolSkipsOutsideCiAndFailsInCi() {
    Path found = Path.of("/bin/sh");
    assertThat(ExternalTool.found(Optional.of(found), "grpcurl", "true")).isEqualTo(found);

    assertThatThrownBy(() -> ExternalTool.found(Optional.empty(), "grpcurl", null))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageContaining("grpcurl is not installed; run tools/install-grpc-tools.sh");
    assertThatThrownBy(() -> ExternalTool.found(Optional.empty(), ExternalTool.OTELCOL, null))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageContaining(
            "otelcol-tern is not installed; run tools/install-observability-tools.sh");
    assertThatThrownBy(() -> ExternalTool.found(Optional.empty(), ExternalTool.PROMETHEUS, null))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageContaining("run tools/install-observability-tools.sh");
    assertThatThrownBy(
            () -> ExternalTool.found(Optional.empty(), ExternalTool.CONNECTCONFORMANCE, null))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageContaining(
            "connectconformance is not installed; run tools/install-conformance-tools.sh");
    assertThatThrownBy(() -> ExternalTool.found(Optional.empty(), ExternalTool.CHROMIUM, null))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageContaining("chromium is not installed; run tools/install-web-tools.sh");
    assertThatThrownBy(
            () -> ExternalTool.found(Optional.empty(), ExternalTool.XDS_CONTROLPLANE, null))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageContaining(
            "tern-xds-controlplane is not installed; run tools/install-xds-tools.sh to install it");
    assertThatThrownBy(() -> ExternalTool.found(Optional.empty(), ExternalTool.ZSTD_PEER, null))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageContaining(
            "tern-zstd-peer is not installed; run tools/install-zstd-tools.sh to install it");
    assertThatThrownBy(() -> ExternalTool.found(Optional.empty(), ExternalTool.H3_PEER, null))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageContaining(
            "tern-h3-peer is not installed; run tools/install-http3-tools.sh to install it");
    assertThatThrownBy(() -> ExternalTool.found(Optional.empty(), ExternalTool.PROXY_PY, null))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageContaining("proxy.py is not installed; run tools/install-proxy-tools.sh");
    assertThatThrownBy(() -> ExternalTool.found(Optional.empty(), "grpc-go-interop-server", null))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageContaining(
            "grpc-go-interop-server is not installed; run tools/install-xds-interop-tools.sh");
    assertThatThrownBy(
            () -> ExternalTool.found(Optional.empty(), ExternalTool.WEB_PACKAGES, "true"))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessageContaining(
            "the npm packages of tools/web (connect-es, esbuild, puppeteer-core) are not installed;"
                + " run tools/install-web-tools.sh");
    assertThatThrownBy(() -> ExternalTool.found(Optional.empty(), "grpcurl", "true"))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessageContaining("CI=true, so this is a failure");
  }

  @Test
  void rejectsPathsAsNames() {
    assertThatThrownBy(() -> ExternalTool.find("../grpcurl"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("name must be a bare program name");
  }
}
