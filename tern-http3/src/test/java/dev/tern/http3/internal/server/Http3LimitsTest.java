package dev.tern.http3.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ConnectivityState;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerServiceDefinition;
import dev.tern.ServerTransportFilter;
import dev.tern.Status;
import dev.tern.http3.internal.frame.Http3Errors;
import dev.tern.http3.internal.frame.Http3Frames;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testing.TestMarshallers;
import io.netty.handler.codec.quic.QuicConnectionCloseEvent;
import io.netty.handler.codec.quic.QuicStreamType;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The limits of docs/security.md that are the connection's own, on HTTP/3: rapid reset and the
 * resets a client makes the server send ({@code maxRstFramesPerWindow}), responses queued for a
 * client that does not read them ({@code maxQueuedOutboundBytesPerStream}), and the connection idle
 * and age limits ({@code maxConnectionIdle}, {@code maxConnectionAge} and its grace).
 */
class Http3LimitsTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @TempDir Path dir;

  /** Counts the server's connections as they become ready and as they end. */
  private static final class Connections extends ServerTransportFilter {
    final AtomicInteger ready = new AtomicInteger();
    final LinkedBlockingQueue<Boolean> terminated = new LinkedBlockingQueue<>();

    @Override
    public Attributes transportReady(Attributes attributes) {
      ready.incrementAndGet();
      return attributes;
    }

    @Override
    public void transportTerminated(Attributes attributes) {
      terminated.add(true);
    }

    void awaitTerminated() throws InterruptedException {
      assertThat(terminated.poll(10, TimeUnit.SECONDS)).as("a connection ended").isNotNull();
    }
  }

  private Server start(NettyServerBuilder builder) throws Exception {
    return cleanup.register(builder.build().start());
  }

  private ManagedChannel channel(Server server) {
    return cleanup.register(QuicPeer.channel(server.getPort()).build());
  }

  private static String unary(ManagedChannel channel, String request) {
    return ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, CallOptions.DEFAULT, request);
  }

  @Test
  void streamsOpenedAndResetAtOncePastTheLimitCloseTheConnection() throws Exception {
    Server server = start(QuicPeer.server(dir).maxRstFramesPerWindow(5, 30, TimeUnit.SECONDS));
    InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.getPort());
    try (QuicPeer attacker = QuicPeer.connect(address)) {
      // Six request streams, each opened and reset in one packet: within QUIC's stream limit (the
      // server allows 1,000 at once), past the server's five resets per window.
      for (int i = 0; i < 6; i++) {
        attacker.resetAtOnce(
            QuicStreamType.BIDIRECTIONAL, Http3Frames.HEADERS, Http3Errors.H3_REQUEST_CANCELLED);
      }
      QuicConnectionCloseEvent close = attacker.awaitClose();
      assertThat(close.isApplicationClose()).isTrue();
      assertThat(close.error()).isEqualTo((int) Http3Errors.H3_EXCESSIVE_LOAD);
      assertThat(new String(close.reason(), StandardCharsets.UTF_8))
          .isEqualTo("H3_EXCESSIVE_LOAD: more than 5 stream resets in 30000 ms");
    }
    // Other clients are served.
    assertThat(unary(channel(server), "still here")).isEqualTo("still here");
  }

  @Test
  void requestsTheServerMustResetPastTheLimitCloseTheConnection() throws Exception {
    Server server = start(QuicPeer.server(dir).maxRstFramesPerWindow(5, 30, TimeUnit.SECONDS));
    InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.getPort());
    try (QuicPeer attacker = QuicPeer.connect(address)) {
      // Six request streams ended without HEADERS: the server resets each (H3_REQUEST_INCOMPLETE),
      // the client sending no reset at all (MadeYouReset's shape); five are allowed per window.
      for (int i = 0; i < 6; i++) {
        attacker.finishEmpty();
      }
      QuicConnectionCloseEvent close = attacker.awaitClose();
      assertThat(close.isApplicationClose()).isTrue();
      assertThat(close.error()).isEqualTo((int) Http3Errors.H3_EXCESSIVE_LOAD);
      assertThat(new String(close.reason(), StandardCharsets.UTF_8))
          .isEqualTo(
              "H3_EXCESSIVE_LOAD: more than 5 request streams reset for the client's errors in"
                  + " 30000 ms");
    }
    // Other clients are served.
    assertThat(unary(channel(server), "still here")).isEqualTo("still here");
  }

  @Test
  void cancellingCallsThatGotAnAnswerIsOrdinary() throws Exception {
    Connections connections = new Connections();
    Server server =
        start(
            QuicPeer.server(dir)
                .maxRstFramesPerWindow(2, 30, TimeUnit.SECONDS)
                .addTransportFilter(connections));
    ManagedChannel channel = channel(server);
    for (int i = 0; i < 5; i++) {
      // A bidirectional call, cancelled once it got an answer: the client's RESET_STREAM comes
      // after the server's DATA.
      Bidi call = new Bidi(channel);
      assertThat(call.exchange("ping")).isEqualTo("ping");
      call.call.cancel("enough", null);
      assertThat(call.closed.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.CANCELLED);
    }
    assertThat(unary(channel, "same connection")).isEqualTo("same connection");
    assertThat(connections.ready.get()).isEqualTo(1);
  }

  @Test
  void anIdleConnectionIsClosedAndTheClientReconnects() throws Exception {
    Connections connections = new Connections();
    Server server =
        start(
            QuicPeer.server(dir)
                .maxConnectionIdle(200, TimeUnit.MILLISECONDS)
                .addTransportFilter(connections));
    ManagedChannel channel = channel(server);
    assertThat(unary(channel, "first")).isEqualTo("first");
    connections.awaitTerminated();
    assertThat(unary(channel, "second")).isEqualTo("second");
    assertThat(connections.ready.get()).isEqualTo(2);
  }

  @Test
  void anOldConnectionGetsGoAwayAndItsCallsFinish() throws Exception {
    Connections connections = new Connections();
    Server server =
        start(
            QuicPeer.server(dir)
                .maxConnectionAge(300, TimeUnit.MILLISECONDS)
                .addTransportFilter(connections));
    ManagedChannel channel = channel(server);
    Bidi call = new Bidi(channel);
    assertThat(call.exchange("before")).isEqualTo("before");
    // GOAWAY: the channel leaves READY, while the call goes on.
    CountDownLatch leftReady = new CountDownLatch(1);
    channel.notifyWhenStateChanged(ConnectivityState.READY, leftReady::countDown);
    assertThat(leftReady.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(call.exchange("after")).isEqualTo("after");
    assertThat(call.finish().getCode()).isEqualTo(Status.Code.OK);
    connections.awaitTerminated();
    assertThat(unary(channel, "new connection")).isEqualTo("new connection");
    assertThat(connections.ready.get()).isEqualTo(2);
  }

  @Test
  void callsStillOpenAfterTheAgeGraceEndUnavailable() throws Exception {
    Server server =
        start(
            QuicPeer.server(dir)
                .maxConnectionAge(200, TimeUnit.MILLISECONDS)
                .maxConnectionAgeGrace(200, TimeUnit.MILLISECONDS));
    Bidi call = new Bidi(channel(server));
    assertThat(call.exchange("hello")).isEqualTo("hello");
    Status status = call.closed.get(10, TimeUnit.SECONDS);
    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
  }

  /** Sends 16 MiB of responses in 64 KiB messages, without looking at {@code isReady()}. */
  private static final MethodDescriptor<String, String> FLOOD =
      MethodDescriptor.newBuilder(TestMarshallers.utf8(), TestMarshallers.utf8())
          .setFullMethodName("tern.test.Flood/Flood")
          .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
          .build();

  @Test
  void aCallQueuingTooMuchForAClientThatDoesNotReadIsCancelled() throws Exception {
    CompletableFuture<Boolean> handlerCancelled = new CompletableFuture<>();
    String chunk = "x".repeat(64 * 1024);
    ServerServiceDefinition flood =
        ServerServiceDefinition.builder("tern.test.Flood")
            .addMethod(
                FLOOD,
                (call, headers) -> {
                  call.request(1);
                  return new ServerCall.Listener<String>() {
                    @Override
                    public void onHalfClose() {
                      call.sendHeaders(new Metadata());
                      for (int i = 0; i < 256 && !call.isCancelled(); i++) {
                        call.sendMessage(chunk);
                      }
                    }

                    @Override
                    public void onCancel() {
                      handlerCancelled.complete(true);
                    }
                  };
                })
            .build();
    Server server =
        start(QuicPeer.server(dir).maxQueuedOutboundBytesPerStream(256 * 1024).addService(flood));
    ManagedChannel channel = channel(server);
    // The client asks for no message: its transport reads 1 MiB, then QUIC's flow control stops
    // the server, whose queue grows past 256 KiB.
    ClientCall<String, String> call = channel.newCall(FLOOD, CallOptions.DEFAULT);
    CompletableFuture<Status> closed = new CompletableFuture<>();
    call.start(
        new ClientCall.Listener<String>() {
          @Override
          public void onClose(Status status, Metadata trailers) {
            closed.complete(status);
          }
        },
        new Metadata());
    call.sendMessage("flood me");
    call.halfClose();
    assertThat(handlerCancelled.get(10, TimeUnit.SECONDS)).isTrue();
    Status status = closed.get(10, TimeUnit.SECONDS);
    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(status.getDescription()).contains("H3_EXCESSIVE_LOAD");
    // The connection serves other calls.
    assertThat(unary(channel, "still served")).isEqualTo("still served");
  }

  /** A bidirectional echo call driven one message at a time. */
  private static final class Bidi {
    final ClientCall<String, String> call;
    final LinkedBlockingQueue<String> messages = new LinkedBlockingQueue<>();
    final CompletableFuture<Status> closed = new CompletableFuture<>();

    Bidi(ManagedChannel channel) {
      call = channel.newCall(EchoService.BIDI_STREAMING, CallOptions.DEFAULT);
      call.start(
          new ClientCall.Listener<String>() {
            @Override
            public void onMessage(String message) {
              messages.add(message);
            }

            @Override
            public void onClose(Status status, Metadata trailers) {
              closed.complete(status);
            }
          },
          new Metadata());
    }

    String exchange(String message) throws InterruptedException {
      call.sendMessage(message);
      call.request(1);
      return messages.poll(10, TimeUnit.SECONDS);
    }

    Status finish() throws Exception {
      call.halfClose();
      return closed.get(10, TimeUnit.SECONDS);
    }
  }
}
