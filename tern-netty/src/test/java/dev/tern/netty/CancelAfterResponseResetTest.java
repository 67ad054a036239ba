package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.Grpc;
import dev.tern.ManagedChannel;
import dev.tern.MethodDescriptor;
import dev.tern.MethodDescriptor.MethodType;
import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.stub.ClientCallStreamObserver;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ClientResponseObserver;
import dev.tern.stub.ServerCalls;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testing.TestMarshallers;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The rapid-reset limit ({@link NettyServerBuilder#maxRstFramesPerWindow}) against ordinary
 * cancellations: a client that cancels server streams after their first message (found by the soak
 * of issue 37, whose workload cancels streams and lets deadlines pass on them) keeps its connection
 * however many it cancels. That resets of streams that got no message, early in their deadline,
 * still count and cut the connection off is {@link OverloadResetTest}'s.
 */
class CancelAfterResponseResetTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  /** Well past the limit below. */
  private static final int CALLS = 20;

  private static final MethodDescriptor<String, String> HOLD =
      MethodDescriptor.<String, String>newBuilder(TestMarshallers.utf8(), TestMarshallers.utf8())
          .setType(MethodType.SERVER_STREAMING)
          .setFullMethodName("test.Resets/Hold")
          .build();

  /** The client addresses the server saw calls from: one per connection. */
  private final Set<SocketAddress> clientAddresses = ConcurrentHashMap.newKeySet();

  private ManagedChannel start(boolean answer) throws Exception {
    ServerServiceDefinition service =
        ServerServiceDefinition.builder("test.Resets")
            .addMethod(
                HOLD,
                ServerCalls.asyncServerStreamingCall(
                    (request, responses) -> {
                      if (answer) {
                        responses.onNext(request);
                      }
                      // Never ends: the client cancels it or its deadline passes.
                    }))
            .build();
    Server server =
        cleanup.register(
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .maxRstFramesPerWindow(5, 1, TimeUnit.MINUTES)
                .intercept(
                    new dev.tern.ServerInterceptor() {
                      @Override
                      public <ReqT, RespT> dev.tern.ServerCall.Listener<ReqT> interceptCall(
                          dev.tern.ServerCall<ReqT, RespT> call,
                          dev.tern.Metadata headers,
                          dev.tern.ServerCallHandler<ReqT, RespT> next) {
                        clientAddresses.add(
                            call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
                        return next.startCall(call, headers);
                      }
                    })
                .addService(service)
                .build()
                .start());
    int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    return cleanup.register(
        NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build());
  }

  @Test
  void cancellingStreamsAfterTheirFirstMessageKeepsTheConnection() throws Exception {
    ManagedChannel channel = start(true);
    List<Status> statuses = new ArrayList<>();
    for (int i = 0; i < CALLS; i++) {
      statuses.add(call(channel, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS)));
    }
    assertThat(statuses)
        .extracting(Status::getCode)
        .as("each call ends as the client cancelled it")
        .containsOnly(Status.Code.CANCELLED);
    assertThat(clientAddresses)
        .as("connections the %d cancelled calls came on (a GOAWAY makes a new one)", CALLS)
        .hasSize(1);
  }

  /** A Hold call that the client cancels at its first message; returns how it ended. */
  private static Status call(ManagedChannel channel, CallOptions options) throws Exception {
    CompletableFuture<Status> ended = new CompletableFuture<>();
    ClientCalls.asyncServerStreamingCall(
        channel.newCall(HOLD, options),
        "hello",
        new ClientResponseObserver<String, String>() {
          private ClientCallStreamObserver<String> requests;

          @Override
          public void beforeStart(ClientCallStreamObserver<String> requestStream) {
            requests = requestStream;
          }

          @Override
          public void onNext(String value) {
            requests.cancel("the test read enough", null);
          }

          @Override
          public void onError(Throwable t) {
            ended.complete(Status.fromThrowable(t));
          }

          @Override
          public void onCompleted() {
            ended.complete(Status.OK);
          }
        });
    return ended.get(20, TimeUnit.SECONDS);
  }
}
