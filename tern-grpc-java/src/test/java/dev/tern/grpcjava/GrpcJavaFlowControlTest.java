package dev.tern.grpcjava;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.testing.integration.Messages.ResponseParameters;
import io.grpc.testing.integration.Messages.StreamingOutputCallRequest;
import io.grpc.testing.integration.Messages.StreamingOutputCallResponse;
import io.grpc.testing.integration.TestServiceGrpc;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A raw {@code io.grpc.ClientCall} on the bridge: messages arrive as the listener requests them,
 * readiness is reported, and connectivity is the Tern channel's.
 */
class GrpcJavaFlowControlTest {
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private Server server;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    server = Peers.testServer(scheduler);
    channel = Peers.channelTo(server);
  }

  @AfterEach
  void stop() throws Exception {
    Peers.close(channel, server, scheduler);
  }

  @Test
  void messagesArriveAsRequestedAndReadinessIsReported() throws Exception {
    ClientCall<StreamingOutputCallRequest, StreamingOutputCallResponse> call =
        channel.newCall(TestServiceGrpc.getStreamingOutputCallMethod(), CallOptions.DEFAULT);
    Recorder recorder = new Recorder();
    call.start(recorder, new Metadata());
    assertThat(recorder.ready.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(call.isReady()).isTrue();
    StreamingOutputCallRequest.Builder request = StreamingOutputCallRequest.newBuilder();
    for (int size : new int[] {10, 20, 30}) {
      request.addResponseParameters(ResponseParameters.newBuilder().setSize(size));
    }
    call.sendMessage(request.build());
    call.halfClose();

    call.request(1);
    assertThat(recorder.events.poll(5, TimeUnit.SECONDS)).isEqualTo(10);
    // Nothing more until asked for: the other two responses wait in Tern's call.
    assertThat(recorder.events.poll(200, TimeUnit.MILLISECONDS)).isNull();
    call.request(2);
    assertThat(recorder.events.poll(5, TimeUnit.SECONDS)).isEqualTo(20);
    assertThat(recorder.events.poll(5, TimeUnit.SECONDS)).isEqualTo(30);
    assertThat(recorder.events.poll(5, TimeUnit.SECONDS)).isEqualTo(Status.Code.OK);
  }

  @Test
  void connectivityIsTheTernChannels() throws Exception {
    assertThat(channel.getState(false)).isEqualTo(ConnectivityState.IDLE);
    CountDownLatch changed = new CountDownLatch(1);
    channel.notifyWhenStateChanged(ConnectivityState.IDLE, changed::countDown);
    channel.getState(true);
    assertThat(changed.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(channel.getState(false)).isIn(ConnectivityState.CONNECTING, ConnectivityState.READY);
  }

  /** Records response sizes and the final status code, in order. */
  private static final class Recorder extends ClientCall.Listener<StreamingOutputCallResponse> {
    final BlockingQueue<Object> events = new LinkedBlockingQueue<>();
    final CountDownLatch ready = new CountDownLatch(1);

    @Override
    public void onMessage(StreamingOutputCallResponse message) {
      events.add(message.getPayload().getBody().size());
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
      events.add(status.getCode());
    }

    @Override
    public void onReady() {
      ready.countDown();
    }
  }
}
