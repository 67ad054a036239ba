package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.BadRequest;
import com.google.rpc.ErrorInfo;
import com.google.rpc.LocalizedMessage;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.interop.testing.SimpleRequest;
import dev.tern.interop.testing.SimpleResponse;
import dev.tern.interop.testing.TestServiceTern;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.protobuf.StatusProto;
import dev.tern.stub.StreamObserver;
import io.grpc.testing.integration.Messages;
import io.grpc.testing.integration.TestServiceGrpc;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Rich errors between Tern and grpc-java 1.79 over plaintext HTTP/2 on loopback: the {@code
 * grpc-status-details-bin} trailer one side writes with its {@code StatusProto} is what the other
 * side's {@code StatusProto} reads back, details and all.
 */
class RichErrorsWithGrpcJavaTest {
  /** An INVALID_ARGUMENT {@code google.rpc.Status} with three standard details. */
  private static final com.google.rpc.Status REJECTED =
      com.google.rpc.Status.newBuilder()
          .setCode(io.grpc.Status.Code.INVALID_ARGUMENT.value())
          .setMessage("payload too small")
          .addDetails(
              Any.pack(
                  BadRequest.newBuilder()
                      .addFieldViolations(
                          BadRequest.FieldViolation.newBuilder()
                              .setField("response_size")
                              .setDescription("must be at least 1"))
                      .build()))
          .addDetails(
              Any.pack(
                  ErrorInfo.newBuilder()
                      .setReason("SIZE_TOO_SMALL")
                      .setDomain("interop.tern.dev")
                      .putMetadata("minimum", "1")
                      .build()))
          .addDetails(
              Any.pack(
                  LocalizedMessage.newBuilder()
                      .setLocale("de-DE")
                      .setMessage("Antwort zu klein")
                      .build()))
          .build();

  private Server ternServer;
  private io.grpc.ManagedChannel grpcJavaChannel;
  private io.grpc.Server grpcJavaServer;
  private ManagedChannel ternChannel;

  @AfterEach
  void stop() throws InterruptedException {
    if (grpcJavaChannel != null) {
      grpcJavaChannel.shutdownNow();
      assertThat(grpcJavaChannel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    if (ternChannel != null) {
      ternChannel.shutdownNow();
      assertThat(ternChannel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    if (ternServer != null) {
      ternServer.shutdownNow();
      assertThat(ternServer.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    if (grpcJavaServer != null) {
      grpcJavaServer.shutdownNow();
      assertThat(grpcJavaServer.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void grpcJavaClientReadsTheDetailsATernServerSent() throws Exception {
    ternServer =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(
                new TestServiceTern.TestServiceImplBase() {
                  @Override
                  public void unaryCall(
                      SimpleRequest request, StreamObserver<SimpleResponse> responses) {
                    responses.onError(StatusProto.toStatusRuntimeException(REJECTED));
                  }
                })
            .build()
            .start();
    grpcJavaChannel =
        io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder.forAddress(
                "127.0.0.1", ternServer.getPort())
            .usePlaintext()
            .build();

    io.grpc.StatusRuntimeException e =
        catchThrowableOfType(
            io.grpc.StatusRuntimeException.class,
            () ->
                TestServiceGrpc.newBlockingStub(grpcJavaChannel)
                    .withDeadlineAfter(10, TimeUnit.SECONDS)
                    .unaryCall(Messages.SimpleRequest.getDefaultInstance()));

    assertThat(e.getStatus().getCode()).isEqualTo(io.grpc.Status.Code.INVALID_ARGUMENT);
    assertThat(e.getStatus().getDescription()).isEqualTo("payload too small");
    assertReadBackIntact(io.grpc.protobuf.StatusProto.fromThrowable(e));
  }

  @Test
  void ternClientReadsTheDetailsAGrpcJavaServerSent() throws Exception {
    grpcJavaServer =
        io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder.forAddress(
                new InetSocketAddress("127.0.0.1", 0))
            .addService(
                new TestServiceGrpc.TestServiceImplBase() {
                  @Override
                  public void unaryCall(
                      Messages.SimpleRequest request,
                      io.grpc.stub.StreamObserver<Messages.SimpleResponse> responses) {
                    responses.onError(
                        io.grpc.protobuf.StatusProto.toStatusRuntimeException(REJECTED));
                  }
                })
            .build()
            .start();
    ternChannel =
        NettyChannelBuilder.forAddress("127.0.0.1", grpcJavaServer.getPort())
            .usePlaintext()
            .build();

    dev.tern.StatusRuntimeException e =
        catchThrowableOfType(
            dev.tern.StatusRuntimeException.class,
            () ->
                TestServiceTern.newBlockingStub(ternChannel)
                    .withDeadlineAfter(10, TimeUnit.SECONDS)
                    .unaryCall(SimpleRequest.getDefaultInstance()));

    assertThat(e.getStatus().getCode()).isEqualTo(dev.tern.Status.Code.INVALID_ARGUMENT);
    assertThat(e.getStatus().getDescription()).isEqualTo("payload too small");
    assertReadBackIntact(StatusProto.fromThrowable(e));
  }

  private static void assertReadBackIntact(com.google.rpc.Status received)
      throws InvalidProtocolBufferException {
    assertThat(received).isEqualTo(REJECTED);
    assertThat(received.getDetails(0).unpack(BadRequest.class).getFieldViolations(0).getField())
        .isEqualTo("response_size");
    assertThat(received.getDetails(1).unpack(ErrorInfo.class).getReason())
        .isEqualTo("SIZE_TOO_SMALL");
    assertThat(received.getDetails(2).unpack(LocalizedMessage.class).getMessage())
        .isEqualTo("Antwort zu klein");
  }
}
