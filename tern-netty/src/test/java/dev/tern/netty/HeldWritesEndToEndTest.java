package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.internal.DefaultExecutor;
import dev.tern.internal.SharedExecutors;
import dev.tern.stub.ServerCalls;
import dev.tern.stub.StreamObserver;
import dev.tern.testing.RecordingClientCallListener;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testing.TestMarshallers;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Netty server on a default executor of one worker (as a process with one core has), which holds
 * the event loop's wake-up for what a handler writes until the handler returns: a handler that
 * writes and then waits still has what it wrote delivered while it waits.
 */
class HeldWritesEndToEndTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static final MethodDescriptor<String, String> UPDATES =
      MethodDescriptor.newBuilder(TestMarshallers.utf8(), TestMarshallers.utf8())
          .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
          .setFullMethodName("test.Held/Updates")
          .build();

  private final CountDownLatch firstReceived = new CountDownLatch(1);
  private final DefaultExecutor oneWorker =
      new DefaultExecutor("held-writes", 1, SharedExecutors.timer());

  @AfterEach
  void releaseHandler() {
    firstReceived.countDown();
    oneWorker.shutdownNow();
  }

  @Test
  void aMessageWrittenBeforeTheHandlerWaitsArrivesWhileItWaits() throws Exception {
    ServerServiceDefinition service =
        ServerServiceDefinition.builder("test.Held")
            .addMethod(UPDATES, ServerCalls.asyncServerStreamingCall(this::updates))
            .build();
    Server server =
        cleanup.register(
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .executor(oneWorker)
                .addService(service)
                .build()
                .start());
    ManagedChannel channel =
        cleanup.register(
            NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build());

    ClientCall<String, String> call = channel.newCall(UPDATES, CallOptions.DEFAULT);
    RecordingClientCallListener<String> responses = new RecordingClientCallListener<>();
    call.start(responses, new Metadata());
    call.request(2);
    call.sendMessage("go");
    call.halfClose();

    // The handler waits for the first message to arrive before it sends the second and returns:
    // were the first held until the handler returned, neither would ever arrive.
    assertThat(responses.awaitMessage()).isEqualTo("first");
    firstReceived.countDown();
    assertThat(responses.awaitMessage()).isEqualTo("second");
    assertThat(responses.awaitStatus().isOk()).isTrue();
    assertThat(responses.messagesReceived()).isEqualTo(2);
  }

  /** Writes one update, waits (as a handler pacing its updates would) until it arrived, ends. */
  private void updates(String request, StreamObserver<String> responses) {
    responses.onNext("first");
    try {
      if (!firstReceived.await(60, TimeUnit.SECONDS)) {
        responses.onError(new IllegalStateException("the first update never arrived"));
        return;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    responses.onNext("second");
    responses.onCompleted();
  }
}
