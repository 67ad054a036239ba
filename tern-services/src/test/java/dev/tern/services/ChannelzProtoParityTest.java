package dev.tern.services;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.services.channelz.v1.ChannelzProto;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Tern's grpc/channelz/v1/channelz.proto has grpc-java's names and numbers. */
class ChannelzProtoParityTest {
  @Test
  void sameNamesAndNumbersAsGrpcJava() {
    assertThat(ProtoParity.shape(ChannelzProto.getDescriptor(), Set.of()))
        .isEqualTo(ProtoParity.shape(io.grpc.channelz.v1.ChannelzProto.getDescriptor(), Set.of()))
        .contains(
            "  LABEL_OPTIONAL TYPE_INT64  subchannel_id = 7",
            "  LABEL_OPTIONAL TYPE_MESSAGE .google.protobuf.Int64Value local_flow_control_window"
                + " = 11",
            "  rpc GetSocket(.grpc.channelz.v1.GetSocketRequest) returns"
                + " (.grpc.channelz.v1.GetSocketResponse)");
  }
}
