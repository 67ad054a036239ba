package dev.tern.http3.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testing.TestMarshallers;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client that cancels a call after sending its whole request cancels the server's call, as on
 * HTTP/2 (RST_STREAM after END_STREAM): on HTTP/3 its RESET_STREAM comes after the request's FIN,
 * which QUIC lets the server ignore, and its STOP_SENDING stops a response the handler has not
 * written, so the server must hear it without the handler writing. The server probes such calls
 * ({@link StopSendingProbe}); a call answered late is not mistaken for a cancelled one.
 */
class CancelAfterRequestTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @TempDir Path dir;

  private static final MethodDescriptor<String, String> HOLD =
      MethodDescriptor.newBuilder(TestMarshallers.utf8(), TestMarshallers.utf8())
          .setFullMethodName("tern.testing.Hold/Hold")
          .setType(MethodDescriptor.MethodType.UNARY)
          .build();

  /** The handler's side of one call that it answers after {@code answerAfterMillis}, if any. */
  private static final class Held {
    final CountDownLatch halfClosed = new CountDownLatch(1);
    final CountDownLatch cancelled = new CountDownLatch(1);
    final CountDownLatch completed = new CountDownLatch(1);
    private final long answerAfterMillis;

    Held(long answerAfterMillis) {
      this.answerAfterMillis = answerAfterMillis;
    }

    ServerCall.Listener<String> start(ServerCall<String, String> call, Metadata headers) {
      call.request(1);
      return new ServerCall.Listener<String>() {
        @Override
        public void onHalfClose() {
          halfClosed.countDown();
          if (answerAfterMillis > 0) {
            CompletableFuture.runAsync(
                () -> {
                  call.sendHeaders(new Metadata());
                  call.sendMessage("late");
                  call.close(Status.OK, new Metadata());
                },
                CompletableFuture.delayedExecutor(answerAfterMillis, TimeUnit.MILLISECONDS));
          }
        }

        @Override
        public void onCancel() {
          cancelled.countDown();
        }

        @Override
        public void onComplete() {
          completed.countDown();
        }
      };
    }
  }

  private ManagedChannel channelToServerOf(Held held) throws Exception {
    Server server =
        cleanup.register(
            QuicPeer.server(dir)
                .addService(
                    ServerServiceDefinition.builder("tern.testing.Hold")
                        .addMethod(HOLD, held::start)
                        .build())
                .build()
                .start());
    return cleanup.register(QuicPeer.channel(server.getPort()).build());
  }

  @Test
  void aCancelAfterTheWholeRequestCancelsAHandlerThatDoesNotWrite() throws Exception {
    Held held = new Held(0);
    ManagedChannel channel = channelToServerOf(held);
    ClientCall<String, String> call = channel.newCall(HOLD, CallOptions.DEFAULT);
    call.start(new ClientCall.Listener<String>() {}, new Metadata());
    call.sendMessage("hold");
    call.halfClose();
    call.request(1);
    assertThat(held.halfClosed.await(10, TimeUnit.SECONDS)).as("the whole request came").isTrue();

    call.cancel("the client gave up", null);

    assertThat(held.cancelled.await(10, TimeUnit.SECONDS))
        .as("the handler heard onCancel")
        .isTrue();
    // The connection serves the next call.
    assertThat(
            ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, CallOptions.DEFAULT, "next"))
        .isEqualTo("next");
  }

  /**
   * A call whose handler answers after three probe rounds, probed meanwhile (reserved frames, which
   * the client ignores), ends as answered, not as a cancel.
   */
  @Test
  void aCallAnsweredAfterSomeRoundsIsAnswered() throws Exception {
    Held held = new Held(3 * StopSendingProbe.INTERVAL_MILLIS);
    ManagedChannel channel = channelToServerOf(held);

    assertThat(ClientCalls.blockingUnaryCall(channel, HOLD, CallOptions.DEFAULT, "hold"))
        .isEqualTo("late");
    assertThat(held.completed.await(10, TimeUnit.SECONDS))
        .as("the handler heard onComplete")
        .isTrue();
    assertThat(held.cancelled.getCount()).isEqualTo(1);
  }
}
