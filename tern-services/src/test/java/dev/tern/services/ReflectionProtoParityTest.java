package dev.tern.services;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** Tern's grpc/reflection protos have grpc-java's names and numbers, for v1 and v1alpha. */
class ReflectionProtoParityTest {
  @Test
  void v1_sameNamesAndNumbersAsGrpcJava() {
    assertThat(
            ProtoParity.shape(
                dev.tern.services.reflection.v1.ServerReflectionProto.getDescriptor(), Set.of()))
        .isEqualTo(
            ProtoParity.shape(
                io.grpc.reflection.v1.ServerReflectionProto.getDescriptor(), Set.of()))
        .contains(
            "package grpc.reflection.v1",
            "  LABEL_OPTIONAL TYPE_STRING  list_services = 7 oneof message_request",
            "  rpc ServerReflectionInfo(stream .grpc.reflection.v1.ServerReflectionRequest) returns"
                + " (stream .grpc.reflection.v1.ServerReflectionResponse)");
  }

  @Test
  @SuppressWarnings("deprecation") // grpc-java deprecates its v1alpha classes, not the protocol
  void v1alpha_sameNamesAndNumbersAsGrpcJava() {
    assertThat(
            ProtoParity.shape(
                dev.tern.services.reflection.v1alpha.ServerReflectionProto.getDescriptor(),
                Set.of()))
        .isEqualTo(
            ProtoParity.shape(
                io.grpc.reflection.v1alpha.ServerReflectionProto.getDescriptor(), Set.of()))
        .contains("package grpc.reflection.v1alpha");
  }

  @Test
  void theTwoVersionsDifferOnlyInTheirPackage() {
    assertThat(
            ProtoParity.shape(
                    dev.tern.services.reflection.v1alpha.ServerReflectionProto.getDescriptor(),
                    Set.of())
                .stream()
                .map(line -> line.replace("grpc.reflection.v1alpha", "grpc.reflection.v1"))
                .toList())
        .isEqualTo(
            ProtoParity.shape(
                dev.tern.services.reflection.v1.ServerReflectionProto.getDescriptor(), Set.of()));
  }
}
