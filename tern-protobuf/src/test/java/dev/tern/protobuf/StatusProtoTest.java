package dev.tern.protobuf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.StringValue;
import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.StatusException;
import dev.tern.StatusRuntimeException;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCalls;
import dev.tern.testing.TernCleanupExtension;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class StatusProtoTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static final Metadata.Key<String> TENANT =
      Metadata.Key.of("tenant", Metadata.ASCII_STRING_MARSHALLER);

  private static final com.google.rpc.Status DETAILS =
      com.google.rpc.Status.newBuilder()
          .setCode(Status.Code.INVALID_ARGUMENT.value())
          .setMessage("name must not be empty")
          .addDetails(Any.pack(StringValue.of("field: name")))
          .build();

  @Test
  void toStatusRuntimeExceptionCarriesCodeMessageAndDetails() {
    StatusRuntimeException e = StatusProto.toStatusRuntimeException(DETAILS);

    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(e.getStatus().getDescription()).isEqualTo("name must not be empty");
    assertThat(e.getTrailers().get(StatusProto.STATUS_DETAILS_KEY)).isEqualTo(DETAILS);
    assertThat(StatusProto.fromThrowable(e)).isEqualTo(DETAILS);
  }

  @Test
  void extraTrailersAreSentAlongAndLeftUnmodified() {
    Metadata extra = new Metadata();
    extra.put(TENANT, "acme");
    extra.put(StatusProto.STATUS_DETAILS_KEY, com.google.rpc.Status.getDefaultInstance());

    StatusException e = StatusProto.toStatusException(DETAILS, extra);

    assertThat(e.getTrailers().get(TENANT)).isEqualTo("acme");
    assertThat(e.getTrailers().getAll(StatusProto.STATUS_DETAILS_KEY)).containsExactly(DETAILS);
    assertThat(extra.get(StatusProto.STATUS_DETAILS_KEY))
        .isEqualTo(com.google.rpc.Status.getDefaultInstance());
    assertThat(StatusProto.fromThrowable(new RuntimeException("wrapped", e))).isEqualTo(DETAILS);
  }

  @Test
  void withoutDetailsTheStatusItselfIsDescribed() {
    com.google.rpc.Status fromStatus =
        StatusProto.fromStatusAndTrailers(Status.NOT_FOUND.withDescription("no user"), null);
    assertThat(fromStatus.getCode()).isEqualTo(Status.Code.NOT_FOUND.value());
    assertThat(fromStatus.getMessage()).isEqualTo("no user");
    assertThat(fromStatus.getDetailsList()).isEmpty();

    assertThat(StatusProto.fromThrowable(new IllegalStateException("not a status"))).isNull();
  }

  @Test
  void mismatchedCodesAreRejected() {
    Metadata trailers = new Metadata();
    trailers.put(StatusProto.STATUS_DETAILS_KEY, DETAILS);
    assertThatThrownBy(() -> StatusProto.fromStatusAndTrailers(Status.NOT_FOUND, trailers))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("does not match")
        .hasMessageContaining("NOT_FOUND");
  }

  @Test
  void malformedDetailsAreRejected() {
    Metadata trailers = new Metadata();
    trailers.put(
        Metadata.Key.of("grpc-status-details-bin", Metadata.BINARY_BYTE_MARSHALLER),
        new byte[] {0x0A});
    assertThatThrownBy(() -> StatusProto.fromStatusAndTrailers(Status.INTERNAL, trailers))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("google.rpc.Status");
  }

  @Test
  void okAndUnknownCodesAreRejected() {
    assertThatThrownBy(
            () -> StatusProto.toStatusRuntimeException(com.google.rpc.Status.getDefaultInstance()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("statusProto.code");
    assertThatThrownBy(
            () ->
                StatusProto.toStatusRuntimeException(
                    com.google.rpc.Status.newBuilder().setCode(99).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("99");
  }

  /** How the test server is reached: in-process, or over HTTP/2 on loopback. */
  enum Transport {
    IN_PROCESS,
    NETTY
  }

  /**
   * A server fails a call with every standard error detail (google/rpc/error_details.proto); the
   * client gets the code and message as the call's status and reads each detail back, unpacked to
   * its own type, equal to what was sent. Over Netty the details cross the wire in the {@code
   * grpc-status-details-bin} trailer.
   */
  @ParameterizedTest
  @EnumSource(Transport.class)
  void everyStandardDetailTravelsFromServerToClient(Transport transport) throws Exception {
    MethodDescriptor<StringValue, StringValue> method =
        MethodDescriptor.<StringValue, StringValue>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName("test.Users/Create")
            .setRequestMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
            .setResponseMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
            .build();
    ServerServiceDefinition service =
        ServerServiceDefinition.builder("test.Users")
            .addMethod(
                method,
                ServerCalls.asyncUnaryCall(
                    (request, responses) ->
                        responses.onError(
                            StatusProto.toStatusRuntimeException(StandardDetails.STATUS))))
            .build();
    ManagedChannel channel = startServerAndConnect(transport, service);

    assertThatThrownBy(
            () ->
                ClientCalls.blockingUnaryCall(
                    channel,
                    method,
                    CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
                    StringValue.of("ada")))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
              assertThat(e.getStatus().getDescription()).isEqualTo("user ada cannot be created");
              com.google.rpc.Status received = StatusProto.fromThrowable(e);
              assertThat(received).isEqualTo(StandardDetails.STATUS);
              assertThat(received.getDetailsCount()).isEqualTo(10);
              for (Message sent : StandardDetails.ALL) {
                try {
                  assertThat(StandardDetails.unpack(received, sent.getClass()))
                      .as(sent.getDescriptorForType().getFullName())
                      .isEqualTo(sent);
                } catch (InvalidProtocolBufferException ex) {
                  throw new AssertionError(ex);
                }
              }
            });
  }

  private ManagedChannel startServerAndConnect(Transport transport, ServerServiceDefinition service)
      throws IOException {
    if (transport == Transport.IN_PROCESS) {
      String name = cleanup.uniqueName();
      cleanup.register(InProcessServerBuilder.forName(name).addService(service).build()).start();
      return cleanup.register(InProcessChannelBuilder.forName(name).build());
    }
    Server server =
        cleanup.register(
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(service)
                .build());
    server.start();
    return cleanup.register(
        NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build());
  }
}
