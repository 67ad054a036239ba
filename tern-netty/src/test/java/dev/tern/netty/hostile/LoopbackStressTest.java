package dev.tern.netty.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ConnectivityState;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.Status;
import dev.tern.testing.Await;
import dev.tern.testing.EchoService;
import dev.tern.testing.RecordingClientCallListener;
import dev.tern.testing.TernCleanupExtension;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Netty transport under load and lifecycle stress on loopback, through the public API only:
 * many streams on one connection, a big stream to a slow reader, a server that dies or shuts down
 * under calls in flight, and a channel used after shutdown.
 */
class LoopbackStressTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private final HostileProbe probe = new HostileProbe();
  private Server server;

  @BeforeEach
  void startServer() throws IOException {
    server =
        cleanup.register(
            ServerBuilder.forPort(0)
                .addService(EchoService.definition())
                .addService(probe.definition())
                .addTransportFilter(probe.transportFilter())
                .build()
                .start());
  }

  private ManagedChannel newChannel(int port) {
    return cleanup.register(
        ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build());
  }

  @Test
  void thousandConcurrentStreamsOnOneConnectionAllComplete() {
    ManagedChannel channel = newChannel(server.getPort());
    int streams = 1_000;
    List<ClientCall<String, String>> calls = new ArrayList<>();
    List<RecordingClientCallListener<String>> listeners = new ArrayList<>();
    for (int i = 0; i < streams; i++) {
      ClientCall<String, String> call =
          channel.newCall(EchoService.BIDI_STREAMING, CallOptions.DEFAULT);
      RecordingClientCallListener<String> listener = new RecordingClientCallListener<>();
      call.start(listener, new Metadata());
      call.request(2);
      call.sendMessage("stream " + i);
      calls.add(call);
      listeners.add(listener);
    }
    // Every stream is answered while all of them are still open (none has half-closed yet).
    for (int i = 0; i < streams; i++) {
      assertThat(listeners.get(i).awaitMessage()).isEqualTo("stream " + i);
    }
    for (ClientCall<String, String> call : calls) {
      call.halfClose();
    }
    for (RecordingClientCallListener<String> listener : listeners) {
      assertThat(listener.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
      assertThat(listener.violations()).isEmpty();
    }
    assertThat(probe.connections).as("connections the server accepted").hasValue(1);
  }

  @Test
  void manyConnectionsComeAndGoWithoutLeavingAnythingOnTheServer() throws InterruptedException {
    int connections = 50;
    List<ManagedChannel> channels = new ArrayList<>();
    List<RecordingClientCallListener<String>> calls = new ArrayList<>();
    for (int i = 0; i < connections; i++) {
      ManagedChannel channel = newChannel(server.getPort());
      channels.add(channel);
      calls.add(startUnary(channel, EchoService.UNARY, CallOptions.DEFAULT, "channel " + i));
    }
    for (int i = 0; i < connections; i++) {
      assertThat(calls.get(i).awaitStatus().getCode()).isEqualTo(Status.Code.OK);
      assertThat(calls.get(i).awaitMessage()).isEqualTo("channel " + i);
    }
    for (ManagedChannel channel : channels) {
      channel.shutdown();
    }
    for (ManagedChannel channel : channels) {
      assertThat(channel.awaitTermination(Await.TIMEOUT.toNanos(), TimeUnit.NANOSECONDS)).isTrue();
    }

    // Every connection the server accepted is also torn down on its side.
    for (int i = 0; i < connections; i++) {
      Await.poll(probe.connectionsTerminated, "the server to drop connection " + i);
    }
    assertThat(probe.connections).hasValue(connections);
    server.shutdown();
    assertThat(server.awaitTermination(Await.TIMEOUT.toNanos(), TimeUnit.NANOSECONDS))
        .as("server with no connections left terminates at once")
        .isTrue();
  }

  @Test
  void hundredMegabytesToASlowReaderStayFlowControlled() {
    ManagedChannel channel = newChannel(server.getPort());
    int messageSize = 256 * 1024;
    int messages = 400; // 100 MiB
    // Generous for any sane flow-control window plus socket buffers; far below the 100 MiB sent.
    long maxAheadMessages = 32L * 1024 * 1024 / messageSize;

    byte[] expectedDigest = sha256(HostileProbe.bulkChunk(messageSize));
    ClientCall<String, byte[]> call = channel.newCall(HostileProbe.BULK, CallOptions.DEFAULT);
    AtomicLong received = new AtomicLong();
    AtomicLong intact = new AtomicLong();
    AtomicLong maxAhead = new AtomicLong();
    CompletableFuture<Status> closed = new CompletableFuture<>();
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onMessage(byte[] message) {
            long count = received.incrementAndGet();
            maxAhead.accumulateAndGet(probe.bulkSent.get() - count, Math::max);
            // Real work per message (a digest of every byte), so the reader is slower than the
            // sender: one that ignored flow control would run far ahead of it.
            if (Arrays.equals(sha256(message), expectedDigest)) {
              intact.incrementAndGet();
            }
            // The reader never asks for more than the one message it is about to take.
            call.request(1);
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            closed.complete(status);
          }
        },
        new Metadata());
    call.sendMessage(messages + ":" + messageSize);
    call.halfClose();

    // Nothing requested yet: the sender must be held back, with little sent.
    long sentWhenHeldBack = Await.poll(probe.bulkHeldBack, "the server to find isReady() false");
    assertThat(sentWhenHeldBack)
        .as("messages of %d bytes sent before the unread stream held the sender back", messageSize)
        .isLessThanOrEqualTo(maxAheadMessages);
    assertThat(received).as("messages delivered without being requested").hasValue(0);

    call.request(1);
    Status status = awaitLong(closed, "the 100 MiB stream to end");

    assertThat(status.getCode()).as("status %s", status).isEqualTo(Status.Code.OK);
    assertThat(received).hasValue(messages);
    assertThat(intact).as("messages that arrived byte for byte").hasValue(messages);
    assertThat(maxAhead.get())
        .as("most messages the sender was ever ahead of the reader")
        .isLessThanOrEqualTo(maxAheadMessages);
  }

  @Test
  void serverHostDyingMidCallFailsTheCallUnavailableAndTheChannelReconnects()
      throws IOException, InterruptedException {
    try (TcpProxy proxy = TcpProxy.start(server.getPort())) {
      ManagedChannel channel = newChannel(proxy.port());
      RecordingClientCallListener<String> hanging = startHang(channel, CallOptions.DEFAULT);
      Await.poll(probe.hangsStarted, "the call to reach the server");

      proxy.cutConnections();

      Status status = hanging.awaitStatus();
      assertThat(status.getCode()).as("status %s", status).isEqualTo(Status.Code.UNAVAILABLE);
      Await.poll(probe.hangsCancelled, "the server to cancel the call of the lost connection");
      // Once the channel has noticed (it leaves READY), the next call gets a new connection.
      CountDownLatch leftReady = new CountDownLatch(1);
      channel.notifyWhenStateChanged(ConnectivityState.READY, leftReady::countDown);
      Await.await(leftReady, "the channel to leave READY");
      RecordingClientCallListener<String> next =
          startUnary(channel, EchoService.UNARY, CallOptions.DEFAULT, "reconnected");
      assertThat(next.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
      assertThat(next.awaitMessage()).isEqualTo("reconnected");
    }
  }

  @Test
  void waitForReadyCallsStartedRightAfterTheConnectionDiedWaitForTheNextOne() throws IOException {
    try (TcpProxy proxy = TcpProxy.start(server.getPort())) {
      ManagedChannel channel = newChannel(proxy.port());
      CallOptions waitForReady =
          CallOptions.DEFAULT.withWaitForReady().withDeadlineAfter(10, TimeUnit.SECONDS);
      // The window between the old connection's death and the channel noticing is narrow:
      // go through it many times so a channel that puts calls on the dead connection is caught.
      for (int round = 0; round < 20; round++) {
        RecordingClientCallListener<String> hanging = startHang(channel, CallOptions.DEFAULT);
        Await.poll(probe.hangsStarted, "the call to reach the server");
        proxy.cutConnections();
        Status lost = hanging.awaitStatus();
        assertThat(lost.getCode())
            .as("round %d: call on the connection that died: %s", round, lost)
            .isEqualTo(Status.Code.UNAVAILABLE);

        // Never sent anywhere, so it must wait for (and go out on) the next connection.
        RecordingClientCallListener<String> next =
            startUnary(channel, EchoService.UNARY, waitForReady, "round " + round);

        Status status = next.awaitStatus();
        assertThat(status.getCode())
            .as(
                "round %d: wait-for-ready call started after the old connection died: %s",
                round, status)
            .isEqualTo(Status.Code.OK);
        assertThat(next.awaitMessage()).isEqualTo("round " + round);
      }
    }
  }

  @Test
  void serverShutdownNowMidCallFailsTheCallUnavailable() throws InterruptedException {
    ManagedChannel channel = newChannel(server.getPort());
    RecordingClientCallListener<String> hanging = startHang(channel, CallOptions.DEFAULT);
    Await.poll(probe.hangsStarted, "the call to reach the server");

    server.shutdownNow();

    Status status = hanging.awaitStatus();
    assertThat(status.getCode()).as("status %s", status).isEqualTo(Status.Code.UNAVAILABLE);
    Await.poll(probe.hangsCancelled, "the server to cancel the call");
    assertThat(server.awaitTermination(Await.TIMEOUT.toNanos(), TimeUnit.NANOSECONDS)).isTrue();
  }

  @Test
  void gracefulShutdownFinishesHundredCallsInFlightAndRefusesNewOnes() throws InterruptedException {
    ManagedChannel channel = newChannel(server.getPort());
    int inFlight = 100;
    List<ClientCall<String, String>> calls = new ArrayList<>();
    List<RecordingClientCallListener<String>> listeners = new ArrayList<>();
    for (int i = 0; i < inFlight; i++) {
      ClientCall<String, String> call =
          channel.newCall(EchoService.BIDI_STREAMING, CallOptions.DEFAULT);
      RecordingClientCallListener<String> listener = new RecordingClientCallListener<>();
      call.start(listener, new Metadata());
      call.request(3);
      call.sendMessage("first " + i);
      calls.add(call);
      listeners.add(listener);
    }
    for (int i = 0; i < inFlight; i++) {
      assertThat(listeners.get(i).awaitMessage()).isEqualTo("first " + i);
    }

    server.shutdown();

    assertThat(server.isShutdown()).isTrue();
    assertThat(server.isTerminated()).as("terminated with calls in flight").isFalse();
    CallOptions bounded = CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS);
    RecordingClientCallListener<String> sameChannel =
        startUnary(channel, EchoService.UNARY, bounded, "too late");
    RecordingClientCallListener<String> freshChannel =
        startUnary(newChannel(server.getPort()), EchoService.UNARY, bounded, "too late");
    assertThat(freshChannel.awaitStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    // On the old connection the call may race the GOAWAY: a stream the client opened before it
    // saw the GOAWAY is still accepted (that is what the first GOAWAY, with the maximum stream
    // id, is for); otherwise it is refused. Either way it ends: no hang, no other outcome.
    assertThat(sameChannel.awaitStatus().getCode()).isIn(Status.Code.OK, Status.Code.UNAVAILABLE);

    for (int i = 0; i < inFlight; i++) {
      calls.get(i).sendMessage("second " + i);
      calls.get(i).halfClose();
    }
    for (int i = 0; i < inFlight; i++) {
      RecordingClientCallListener<String> listener = listeners.get(i);
      assertThat(listener.awaitMessage()).isEqualTo("second " + i);
      Status status = listener.awaitStatus();
      assertThat(status.getCode()).as("call %d: %s", i, status).isEqualTo(Status.Code.OK);
    }
    assertThat(server.awaitTermination(Await.TIMEOUT.toNanos(), TimeUnit.NANOSECONDS)).isTrue();
    RecordingClientCallListener<String> afterTermination =
        startUnary(channel, EchoService.UNARY, bounded, "server gone");
    assertThat(afterTermination.awaitStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
  }

  @Test
  void callsAfterChannelShutdownFailUnavailableAndShutdownNowEndsTheRest()
      throws InterruptedException {
    ManagedChannel channel = newChannel(server.getPort());
    RecordingClientCallListener<String> hanging = startHang(channel, CallOptions.DEFAULT);
    Await.poll(probe.hangsStarted, "the call to reach the server");

    channel.shutdown();
    RecordingClientCallListener<String> refused =
        startUnary(channel, EchoService.UNARY, CallOptions.DEFAULT, "after shutdown");

    assertThat(refused.awaitStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(hanging.isClosed()).as("in-flight call ended by shutdown()").isFalse();
    assertThat(channel.isTerminated()).isFalse();

    channel.shutdownNow();

    assertThat(hanging.awaitStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    Await.poll(probe.hangsCancelled, "the server to see the call cancelled");
    assertThat(channel.awaitTermination(Await.TIMEOUT.toNanos(), TimeUnit.NANOSECONDS)).isTrue();
  }

  /**
   * Waits for a long transfer to end: 100 MiB through a paranoid leak detector on a busy 2-core
   * machine may take longer than {@link Await#TIMEOUT}, so this allows six times as long.
   */
  private static <T> T awaitLong(CompletableFuture<T> future, String what) {
    try {
      return future.get(Await.TIMEOUT.toNanos() * 6, TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("timed out after " + Await.TIMEOUT.multipliedBy(6) + ": " + what, e);
    } catch (ExecutionException e) {
      throw new AssertionError(what + " failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted waiting for " + what, e);
    }
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError("every JDK has SHA-256", e);
    }
  }

  private static RecordingClientCallListener<String> startHang(
      ManagedChannel channel, CallOptions options) {
    return startUnary(channel, HostileProbe.HANG, options, "hang");
  }

  private static RecordingClientCallListener<String> startUnary(
      ManagedChannel channel,
      MethodDescriptor<String, String> method,
      CallOptions options,
      String request) {
    ClientCall<String, String> call = channel.newCall(method, options);
    RecordingClientCallListener<String> listener = new RecordingClientCallListener<>();
    call.start(listener, new Metadata());
    call.request(2);
    call.sendMessage(request);
    call.halfClose();
    return listener;
  }
}
