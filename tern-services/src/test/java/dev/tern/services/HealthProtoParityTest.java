package dev.tern.services;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.services.health.v1.HealthProto;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Tern's grpc/health/v1/health.proto has grpc-java's names and numbers, plus the newer List. */
class HealthProtoParityTest {
  @Test
  void sameNamesAndNumbersAsGrpcJava() {
    assertThat(
            ProtoParity.shape(
                HealthProto.getDescriptor().getFile(),
                Set.of("List", "HealthListRequest", "HealthListResponse")))
        .isEqualTo(
            ProtoParity.shape(io.grpc.health.v1.HealthProto.getDescriptor().getFile(), Set.of()))
        .contains("  LABEL_OPTIONAL TYPE_STRING  service = 1", "  SERVICE_UNKNOWN = 3");
  }

  @Test
  void listIsTheNewerMethod() {
    assertThat(ProtoParity.shape(HealthProto.getDescriptor().getFile(), Set.of()))
        .contains(
            "  rpc List(.grpc.health.v1.HealthListRequest) returns"
                + " (.grpc.health.v1.HealthListResponse)",
            "message HealthListResponse",
            "  LABEL_REPEATED TYPE_MESSAGE .grpc.health.v1.HealthListResponse.StatusesEntry"
                + " statuses = 1");
  }
}
