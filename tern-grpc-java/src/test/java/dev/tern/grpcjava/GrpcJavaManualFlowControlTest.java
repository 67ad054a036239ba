package dev.tern.grpcjava;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.grpc.testing.integration.Messages.StreamingOutputCallRequest;
import io.grpc.testing.integration.Messages.StreamingOutputCallResponse;
import io.grpc.testing.integration.TestServiceGrpc;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A server with manual flow control written as grpc-java's manualflowcontrol example writes it: it
 * asks for its first message only from its on-ready handler, so it relies on the first onReady that
 * grpc-java gives a call once it has started (found by running that example on the bridge, where it
 * hung: Tern's server gave onReady only when the outbound buffer drained).
 */
class GrpcJavaManualFlowControlTest {
  private Server server;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    server =
        Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
            .addService(new PacedService())
            .build()
            .start();
    channel = Peers.channelTo(server);
  }

  @AfterEach
  void stop() throws Exception {
    Peers.close(channel, server, Executors.newSingleThreadExecutor());
  }

  @Test
  void aServerThatRequestsOnlyWhenReadyGetsEveryMessage() throws Exception {
    List<Integer> sizes = new CopyOnWriteArrayList<>();
    CompletableFuture<Void> done = new CompletableFuture<>();
    StreamObserver<StreamingOutputCallRequest> requests =
        TestServiceGrpc.newStub(channel)
            .fullDuplexCall(
                new StreamObserver<>() {
                  @Override
                  public void onNext(StreamingOutputCallResponse value) {
                    sizes.add(value.getPayload().getBody().size());
                  }

                  @Override
                  public void onError(Throwable t) {
                    done.completeExceptionally(t);
                  }

                  @Override
                  public void onCompleted() {
                    done.complete(null);
                  }
                });
    for (int i = 1; i <= 3; i++) {
      requests.onNext(
          StreamingOutputCallRequest.newBuilder()
              .addResponseParameters(
                  io.grpc.testing.integration.Messages.ResponseParameters.newBuilder().setSize(i))
              .build());
    }
    requests.onCompleted();
    done.get(10, TimeUnit.SECONDS);
    assertThat(sizes).containsExactly(1, 2, 3);
  }

  /** Answers each request with a payload of the size asked for, pacing its reads by readiness. */
  private static final class PacedService extends TestServiceGrpc.TestServiceImplBase {
    @Override
    public StreamObserver<StreamingOutputCallRequest> fullDuplexCall(
        StreamObserver<StreamingOutputCallResponse> responses) {
      ServerCallStreamObserver<StreamingOutputCallResponse> call =
          (ServerCallStreamObserver<StreamingOutputCallResponse>) responses;
      call.disableAutoRequest();
      boolean[] wasReady = {false};
      call.setOnReadyHandler(
          () -> {
            if (call.isReady() && !wasReady[0]) {
              wasReady[0] = true;
              call.request(1);
            }
          });
      return new StreamObserver<>() {
        @Override
        public void onNext(StreamingOutputCallRequest request) {
          int size = request.getResponseParameters(0).getSize();
          responses.onNext(
              StreamingOutputCallResponse.newBuilder()
                  .setPayload(
                      io.grpc.testing.integration.Messages.Payload.newBuilder()
                          .setBody(com.google.protobuf.ByteString.copyFrom(new byte[size])))
                  .build());
          call.request(1);
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onCompleted() {
          responses.onCompleted();
        }
      };
    }
  }
}
