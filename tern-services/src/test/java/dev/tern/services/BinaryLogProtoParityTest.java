package dev.tern.services;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.services.binarylog.v1.BinaryLogProto;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Tern's grpc/binlog/v1/binarylog.proto has grpc-java's names and numbers. */
class BinaryLogProtoParityTest {
  @Test
  void sameNamesAndNumbersAsGrpcJava() {
    assertThat(ProtoParity.shape(BinaryLogProto.getDescriptor(), Set.of()))
        .isEqualTo(ProtoParity.shape(io.grpc.binarylog.v1.BinaryLogProto.getDescriptor(), Set.of()))
        .contains(
            "package grpc.binarylog.v1",
            "  LABEL_OPTIONAL TYPE_UINT64  call_id = 2",
            "  EVENT_TYPE_CANCEL = 7");
  }
}
