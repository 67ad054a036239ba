package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ManagedChannel;
import dev.tern.MethodDescriptor;
import dev.tern.MethodDescriptor.MethodType;
import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCalls;
import dev.tern.stub.StreamObserver;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testing.TestMarshallers;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A call cancelled while the client still holds its stream back (the server's
 * MAX_CONCURRENT_STREAMS is reached) sends nothing: a RST_STREAM for a stream whose HEADERS the
 * server never saw is a connection error there (RFC 9113 section 6.4), which ended every call on
 * the connection with GOAWAY(PROTOCOL_ERROR) in issue 37's overload runs.
 */
class BufferedStreamCancelTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static final MethodDescriptor<String, String> HOLD =
      MethodDescriptor.<String, String>newBuilder(TestMarshallers.utf8(), TestMarshallers.utf8())
          .setType(MethodType.UNARY)
          .setFullMethodName("test.Buffered/Hold")
          .build();

  private final CompletableFuture<StreamObserver<String>> held = new CompletableFuture<>();

  @Test
  void cancellingAHeldBackCallLeavesTheConnectionAndItsCallsAlone() throws Exception {
    ServerServiceDefinition service =
        ServerServiceDefinition.builder("test.Buffered")
            .addMethod(
                HOLD,
                ServerCalls.asyncUnaryCall(
                    (request, responses) -> {
                      if (!held.complete(responses)) {
                        responses.onNext("at once " + request);
                        responses.onCompleted();
                      }
                    }))
            .build();
    Server server =
        cleanup.register(
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .maxConcurrentCallsPerConnection(1)
                .addService(service)
                .build()
                .start());
    int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    ManagedChannel channel =
        cleanup.register(NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build());

    CompletableFuture<Status> first = call(channel.newCall(HOLD, CallOptions.DEFAULT), "first");
    StreamObserver<String> firstResponses = held.get(10, TimeUnit.SECONDS);
    // The server allows one stream: this one waits in the client, and is cancelled there.
    ClientCall<String, String> waiting = channel.newCall(HOLD, CallOptions.DEFAULT);
    CompletableFuture<Status> second = call(waiting, "second");
    waiting.cancel("no longer needed", null);
    assertThat(second.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.CANCELLED);

    firstResponses.onNext("done");
    firstResponses.onCompleted();
    assertThat(first.get(10, TimeUnit.SECONDS).getCode())
        .as("the first call, on the same connection")
        .isEqualTo(Status.Code.OK);
    assertThat(call(channel.newCall(HOLD, CallOptions.DEFAULT), "third").get(10, TimeUnit.SECONDS))
        .extracting(Status::getCode)
        .isEqualTo(Status.Code.OK);
  }

  private static CompletableFuture<Status> call(ClientCall<String, String> call, String request) {
    CompletableFuture<Status> ended = new CompletableFuture<>();
    ClientCalls.asyncUnaryCall(
        call,
        request,
        new StreamObserver<>() {
          @Override
          public void onNext(String value) {}

          @Override
          public void onError(Throwable t) {
            ended.complete(Status.fromThrowable(t));
          }

          @Override
          public void onCompleted() {
            ended.complete(Status.OK);
          }
        });
    return ended;
  }
}
