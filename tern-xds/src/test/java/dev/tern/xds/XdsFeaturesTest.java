package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class XdsFeaturesTest {
  private static XdsFeatures read(Map<String, String> env, Map<String, String> properties) {
    return XdsFeatures.read(env::get, properties::get);
  }

  @Test
  void everySwitchIsOnByDefault() {
    assertThat(read(Map.of(), Map.of()))
        .isEqualTo(new XdsFeatures(true, true, true, true, true, true, true, true));
  }

  @Test
  void anythingButTrueTurnsASwitchOffAsInGrpcJava() {
    XdsFeatures features =
        read(
            Map.of(
                "GRPC_XDS_EXPERIMENTAL_ENABLE_RING_HASH", "false",
                "GRPC_XDS_EXPERIMENTAL_ENABLE_TIMEOUT", "no",
                "GRPC_XDS_EXPERIMENTAL_CIRCUIT_BREAKING", " TRUE ",
                "GRPC_EXPERIMENTAL_XDS_FALLBACK", "off",
                "GRPC_EXPERIMENTAL_XDS_SNI", "false",
                "GRPC_EXPERIMENTAL_XDS_SYSTEM_ROOT_CERTS", "0",
                "GRPC_EXPERIMENTAL_XDS_MTLS_SPIFFE", "False"),
            Map.of());
    assertThat(features)
        .isEqualTo(new XdsFeatures(false, true, false, true, false, false, false, false));
  }

  @Test
  void theEnvironmentWinsOverASystemPropertyOfTheSameName() {
    XdsFeatures features =
        read(
            Map.of("GRPC_XDS_EXPERIMENTAL_ENABLE_RING_HASH", "true"),
            Map.of(
                "GRPC_XDS_EXPERIMENTAL_ENABLE_RING_HASH", "false",
                "GRPC_XDS_EXPERIMENTAL_CIRCUIT_BREAKING", "false"));
    assertThat(features)
        .isEqualTo(new XdsFeatures(true, true, true, false, true, true, true, true));
  }

  @Test
  void leastRequestAlsoHasGrpcJavasOwnSystemProperty() {
    assertThat(read(Map.of(), Map.of("io.grpc.xds.experimentalEnableLeastRequest", "false")))
        .isEqualTo(new XdsFeatures(true, false, true, true, true, true, true, true));
    assertThat(
            read(
                Map.of("GRPC_EXPERIMENTAL_ENABLE_LEAST_REQUEST", "true"),
                Map.of("io.grpc.xds.experimentalEnableLeastRequest", "false")))
        .isEqualTo(new XdsFeatures(true, true, true, true, true, true, true, true));
  }
}
