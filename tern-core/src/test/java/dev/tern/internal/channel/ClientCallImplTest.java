package dev.tern.internal.channel;

import static dev.tern.internal.channel.ClientTestSupport.BIDI;
import static dev.tern.internal.channel.ClientTestSupport.CUSTOM;
import static dev.tern.internal.channel.ClientTestSupport.UNARY;
import static dev.tern.internal.channel.ClientTestSupport.headers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.Codec;
import dev.tern.Context;
import dev.tern.Deadline;
import dev.tern.DecompressorRegistry;
import dev.tern.Grpc;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.internal.LogCapture;
import dev.tern.internal.ThreadlessExecutor;
import dev.tern.internal.channel.ClientTestSupport.ChannelFixture;
import dev.tern.internal.channel.ClientTestSupport.RecordingListener;
import dev.tern.internal.client.TransparentRetry;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.internal.wire.GrpcTimeoutCodec;
import dev.tern.spi.ClientStreamListener.RpcProgress;
import dev.tern.testing.FakeClock;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ClientCallImplTest {
  private final ChannelFixture fixture = new ChannelFixture();
  private FakeClientTransport transport;

  @AfterEach
  void shutDownChannel() {
    if (fixture.channel != null) {
      fixture.channel.shutdownNow();
    }
  }

  /** Builds the channel and connects it, so calls go straight to streams. */
  private void readyChannel() {
    fixture.build();
    fixture.channel.getState(true);
    transport = fixture.readyTransport();
  }

  private ClientCall<String, String> newCall(CallOptions options) {
    return fixture.channel.newCall(BIDI, options);
  }

  private RecordingListener start(ClientCall<String, String> call, Metadata headers) {
    RecordingListener listener = new RecordingListener();
    call.start(listener, headers);
    return listener;
  }

  // ---- deadlines ----

  @Test
  void expiredDeadlineClosesTheCallWithoutAStream() {
    readyChannel();
    CallOptions options =
        CallOptions.DEFAULT.withDeadline(fixture.deadlineAfter(-500, TimeUnit.MILLISECONDS));

    RecordingListener listener = start(newCall(options), new Metadata());

    assertThat(listener.status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(listener.status.getDescription())
        .isEqualTo("deadline exceeded before the call started: it passed 0.500000000s ago");
    assertThat(transport.streamCount()).isZero();
  }

  @Test
  void deadlineTimerCancelsTheStreamWithDeadlineExceeded() {
    readyChannel();
    CallOptions options =
        CallOptions.DEFAULT.withDeadline(fixture.deadlineAfter(2, TimeUnit.SECONDS));
    RecordingListener listener = start(newCall(options), new Metadata());
    FakeClientStream stream = transport.lastStream();

    fixture.clock.forwardTime(1999, TimeUnit.MILLISECONDS);
    assertThat(listener.isClosed()).isFalse();
    fixture.clock.forwardTime(1, TimeUnit.MILLISECONDS);

    assertThat(stream.cancelStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(listener.status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(listener.status.getDescription()).isEqualTo("deadline exceeded after 2.000000000s");
  }

  @Test
  void serverCancelAfterTheDeadlinePassedIsReportedAsDeadlineExceeded() {
    // The server enforces the grpc-timeout it received with RST_STREAM(CANCEL), which can arrive
    // before this side's deadline timer has run.
    readyChannel();
    // A clock of its own, apart from the channel's (whose deadline timer so stays idle).
    FakeClock apart = new FakeClock();
    CallOptions options =
        CallOptions.DEFAULT.withDeadline(Deadline.after(1, TimeUnit.SECONDS, apart.getTicker()));
    RecordingListener listener = start(newCall(options), new Metadata());

    apart.forwardTime(1, TimeUnit.SECONDS);
    transport
        .lastStream()
        .serverClose(
            Status.CANCELLED.withDescription("Received RST_STREAM with error code CANCEL"));

    assertThat(listener.status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(listener.status.getDescription())
        .contains("the server cancelled the call as the deadline passed");
  }

  @Test
  void serverResetRacingTheDeadlineTimerIsReportedAsDeadlineExceeded() {
    // The deadline timer has asked the stream to cancel, but the server's RST_STREAM(CANCEL) for
    // the same deadline closes the stream before the transport gets to the local cancel.
    readyChannel();
    CallOptions options =
        CallOptions.DEFAULT.withDeadline(fixture.deadlineAfter(1, TimeUnit.MILLISECONDS));
    RecordingListener listener = start(newCall(options), new Metadata());
    FakeClientStream stream = transport.lastStream();
    stream.deferCancel();

    fixture.clock.forwardTime(1, TimeUnit.MILLISECONDS);
    assertThat(listener.isClosed()).isFalse();
    stream.serverClose(
        Status.CANCELLED.withDescription("Received RST_STREAM with error code CANCEL"));

    assertThat(listener.status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(listener.status.getDescription()).startsWith("deadline exceeded after");
  }

  @Test
  void serverResetRacingTheApplicationsCancelReportsTheApplicationsReason() {
    readyChannel();
    ClientCall<String, String> call = newCall(CallOptions.DEFAULT);
    RecordingListener listener = start(call, new Metadata());
    FakeClientStream stream = transport.lastStream();
    stream.deferCancel();

    call.cancel("changed my mind", null);
    stream.serverClose(Status.CANCELLED.withDescription("Received RST_STREAM"));

    assertThat(listener.status.getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(listener.status.getDescription()).isEqualTo("changed my mind");
  }

  @Test
  void serverCancelBeforeTheDeadlineStaysCancelled() {
    readyChannel();
    // A clock of its own, apart from the channel's (whose deadline timer so stays idle).
    FakeClock apart = new FakeClock();
    CallOptions options =
        CallOptions.DEFAULT.withDeadline(Deadline.after(1, TimeUnit.SECONDS, apart.getTicker()));
    RecordingListener listener = start(newCall(options), new Metadata());

    apart.forwardTime(999, TimeUnit.MILLISECONDS);
    transport.lastStream().serverClose(Status.CANCELLED);

    assertThat(listener.status.getCode()).isEqualTo(Status.Code.CANCELLED);
  }

  @Test
  void clientCancelAfterTheDeadlinePassedStaysCancelled() {
    readyChannel();
    // A clock of its own, apart from the channel's (whose deadline timer so stays idle).
    FakeClock apart = new FakeClock();
    CallOptions options =
        CallOptions.DEFAULT.withDeadline(Deadline.after(1, TimeUnit.SECONDS, apart.getTicker()));
    ClientCall<String, String> call = newCall(options);
    RecordingListener listener = start(call, new Metadata());

    apart.forwardTime(2, TimeUnit.SECONDS);
    call.cancel("changed my mind", null);

    assertThat(listener.status.getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(listener.status.getDescription()).isEqualTo("changed my mind");
  }

  @Test
  void deadlineTimerIsCancelledWhenTheCallCloses() {
    readyChannel();
    CallOptions options =
        CallOptions.DEFAULT.withDeadline(fixture.deadlineAfter(5, TimeUnit.SECONDS));
    start(newCall(options), new Metadata());
    assertThat(tasksDueWithin(5, TimeUnit.SECONDS)).isEqualTo(1);

    transport.lastStream().serverClose(Status.OK);

    assertThat(tasksDueWithin(5, TimeUnit.SECONDS)).isZero();
  }

  private long tasksDueWithin(long duration, TimeUnit unit) {
    return fixture.clock.getPendingTasks().stream()
        .mapToLong(task -> task.getDelay(TimeUnit.NANOSECONDS))
        .filter(delay -> delay <= unit.toNanos(duration))
        .count();
  }

  @Test
  void deadlineTravelsAsGrpcTimeoutHeader() {
    readyChannel();
    CallOptions options =
        CallOptions.DEFAULT.withDeadline(fixture.deadlineAfter(3, TimeUnit.SECONDS));

    start(newCall(options), new Metadata());

    String timeout = transport.lastStream().headers.get(GrpcHeaders.TIMEOUT);
    assertThat(GrpcTimeoutCodec.decode(timeout)).isEqualTo(TimeUnit.SECONDS.toNanos(3));
  }

  @Test
  void earlierContextDeadlineWinsOverTheCallDeadline() {
    readyChannel();
    CallOptions options =
        CallOptions.DEFAULT.withDeadline(fixture.deadlineAfter(5, TimeUnit.SECONDS));
    Context.CancellableContext context =
        Context.current().withDeadline(fixture.deadlineAfter(1, TimeUnit.SECONDS), fixture.clock);
    RecordingListener listener = new RecordingListener();
    try {
      context.run(() -> newCall(options).start(listener, new Metadata()));

      String timeout = transport.lastStream().headers.get(GrpcHeaders.TIMEOUT);
      assertThat(GrpcTimeoutCodec.decode(timeout)).isEqualTo(TimeUnit.SECONDS.toNanos(1));
      fixture.clock.forwardTime(1, TimeUnit.SECONDS);
      assertThat(listener.status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
      assertThat(listener.closeCount()).isEqualTo(1);
    } finally {
      context.close();
    }
  }

  // ---- context cancellation ----

  @Test
  void cancellingTheContextCancelsTheCall() {
    readyChannel();
    Context.CancellableContext context = Context.current().withCancellation();
    RecordingListener listener = new RecordingListener();
    context.run(() -> newCall(CallOptions.DEFAULT).start(listener, new Metadata()));
    FakeClientStream stream = transport.lastStream();

    context.cancel(new IllegalStateException("user left"));

    assertThat(stream.cancelStatus().getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(listener.status.getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(listener.status.getCause()).hasMessage("user left");
  }

  @Test
  void callInAlreadyCancelledContextClosesAtOnce() {
    readyChannel();
    Context.CancellableContext context = Context.current().withCancellation();
    context.cancel(null);
    RecordingListener listener = new RecordingListener();

    context.run(() -> newCall(CallOptions.DEFAULT).start(listener, new Metadata()));

    assertThat(listener.status.getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(transport.streamCount()).isZero();
  }

  @Test
  void closedCallStopsListeningToItsContext() {
    readyChannel();
    Context.CancellableContext context = Context.current().withCancellation();
    RecordingListener listener = new RecordingListener();
    context.run(() -> newCall(CallOptions.DEFAULT).start(listener, new Metadata()));
    FakeClientStream stream = transport.lastStream();
    stream.serverClose(Status.OK);

    context.cancel(null);

    assertThat(stream.cancelStatus()).isNull();
    assertThat(listener.events()).containsExactly("close OK");
  }

  // ---- headers and compression ----

  @Test
  void reservedHeadersFromTheApplicationAreReplaced() {
    readyChannel();
    Metadata headers = headers("kept");
    headers.put(GrpcHeaders.TIMEOUT, "1H");
    headers.put(GrpcHeaders.MESSAGE_ENCODING, "made-up");
    headers.put(GrpcHeaders.MESSAGE_ACCEPT_ENCODING, "made-up");

    start(newCall(CallOptions.DEFAULT), headers);

    Metadata sent = transport.lastStream().headers;
    assertThat(sent.get(CUSTOM)).isEqualTo("kept");
    assertThat(sent.containsKey(GrpcHeaders.TIMEOUT)).isFalse();
    assertThat(sent.containsKey(GrpcHeaders.MESSAGE_ENCODING)).isFalse();
    assertThat(sent.getAll(GrpcHeaders.MESSAGE_ACCEPT_ENCODING)).containsExactly("gzip,identity");
  }

  @Test
  void emptyDecompressorRegistryAdvertisesNoEncodings() {
    fixture.decompressorRegistry = DecompressorRegistry.emptyInstance();
    readyChannel();

    start(newCall(CallOptions.DEFAULT), new Metadata());

    FakeClientStream stream = transport.lastStream();
    assertThat(stream.headers.containsKey(GrpcHeaders.MESSAGE_ACCEPT_ENCODING)).isFalse();
    assertThat(stream.decompressorRegistry()).isSameAs(DecompressorRegistry.emptyInstance());
  }

  @Test
  void compressionNamesTheEncodingAndGivesTheStreamItsCompressor() {
    readyChannel();

    start(newCall(CallOptions.DEFAULT.withCompression("gzip")), new Metadata());

    FakeClientStream stream = transport.lastStream();
    assertThat(stream.headers.get(GrpcHeaders.MESSAGE_ENCODING)).isEqualTo("gzip");
    assertThat(stream.compressor()).isInstanceOf(Codec.Gzip.class);
  }

  @Test
  void identityCompressionSendsNoEncoding() {
    readyChannel();

    start(newCall(CallOptions.DEFAULT.withCompression("identity")), new Metadata());

    FakeClientStream stream = transport.lastStream();
    assertThat(stream.headers.containsKey(GrpcHeaders.MESSAGE_ENCODING)).isFalse();
    assertThat(stream.compressor()).isNull();
  }

  @Test
  void unknownCompressorFailsTheCallWithInternal() {
    readyChannel();

    RecordingListener listener =
        start(newCall(CallOptions.DEFAULT.withCompression("brotli")), new Metadata());

    assertThat(listener.status.getCode()).isEqualTo(Status.Code.INTERNAL);
    assertThat(listener.status.getDescription())
        .isEqualTo("Unable to find compressor by name brotli");
    assertThat(transport.streamCount()).isZero();
  }

  @Test
  void messageSizeLimitsFromCallOptionsOverrideTheChannelDefault() {
    fixture.maxInboundMessageSize = 100;
    readyChannel();

    start(newCall(CallOptions.DEFAULT), new Metadata());
    FakeClientStream defaults = transport.lastStream();
    start(
        newCall(CallOptions.DEFAULT.withMaxInboundMessageSize(50).withMaxOutboundMessageSize(10)),
        new Metadata());
    FakeClientStream overridden = transport.lastStream();

    assertThat(defaults.maxInbound()).isEqualTo(100);
    assertThat(defaults.maxOutbound()).isEqualTo(Integer.MAX_VALUE);
    assertThat(overridden.maxInbound()).isEqualTo(50);
    assertThat(overridden.maxOutbound()).isEqualTo(10);
  }

  // ---- listener failures and parsing ----

  @Test
  void readinessReachesTheListenerWhileTheCallCanStillSend() {
    readyChannel();
    RecordingListener listener = start(newCall(CallOptions.DEFAULT), new Metadata());

    transport.lastStream().setReady(true);

    assertThat(listener.events()).containsExactly("ready");
  }

  @Test
  void readinessAfterTheHalfCloseIsNotDelivered() {
    readyChannel();
    ClientCall<String, String> call = fixture.channel.newCall(UNARY, CallOptions.DEFAULT);
    RecordingListener listener = start(call, new Metadata());
    call.sendMessage("request");
    call.halfClose();
    FakeClientStream stream = transport.lastStream();

    stream.setReady(true); // as a transport reports its stream open on the wire
    stream.deliverHeaders(new Metadata());
    stream.serverClose(Status.OK);

    assertThat(listener.events()).containsExactly("headers", "close OK");
  }

  @Test
  void readinessQueuedBehindTheHalfCloseIsDropped() {
    fixture.directExecutor = false;
    ThreadlessExecutor executor = new ThreadlessExecutor();
    readyChannel();
    ClientCall<String, String> call =
        fixture.channel.newCall(BIDI, CallOptions.DEFAULT.withExecutor(executor));
    RecordingListener listener = start(call, new Metadata());
    FakeClientStream stream = transport.lastStream();

    stream.setReady(true); // queued on the call's executor, not yet run
    call.halfClose();
    executor.drain();

    assertThat(listener.events()).isEmpty();
  }

  @Test
  void listenerThrowingInOnMessageCancelsTheCallAndStillClosesOnce() {
    readyChannel();
    ClientCall<String, String> call = newCall(CallOptions.DEFAULT);
    RecordingListener listener = start(call, new Metadata());
    listener.throwIn = "message";
    call.request(2);
    FakeClientStream stream = transport.lastStream();

    stream.deliverMessage("boom");
    stream.deliverMessage("never delivered");
    stream.serverClose(Status.OK);

    assertThat(stream.cancelStatus().getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(listener.events()).containsExactly("message boom", "close CANCELLED");
    assertThat(listener.status.getDescription()).contains("onMessage threw");
    assertThat(listener.status.getCause()).hasMessage("listener failed in message boom");
  }

  @Test
  void listenerThrowingInOnHeadersCancelsTheCall() {
    readyChannel();
    RecordingListener listener = start(newCall(CallOptions.DEFAULT), new Metadata());
    listener.throwIn = "headers";

    transport.lastStream().deliverHeaders(new Metadata());

    assertThat(listener.events()).containsExactly("headers", "close CANCELLED");
    assertThat(listener.status.getDescription()).contains("onHeaders threw");
  }

  @Test
  void unparseableResponseFailsTheCallWithInternal() {
    readyChannel();
    ClientCall<String, String> call = newCall(CallOptions.DEFAULT);
    RecordingListener listener = start(call, new Metadata());
    call.request(1);
    FakeClientStream stream = transport.lastStream();
    AtomicBoolean released = new AtomicBoolean();

    stream.deliverMessage(
        new ByteArrayInputStream("bad bytes".getBytes(StandardCharsets.UTF_8)) {
          @Override
          public void close() {
            released.set(true);
          }
        });

    assertThat(released).isTrue();
    assertThat(stream.cancelStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
    assertThat(listener.status.getCode()).isEqualTo(Status.Code.INTERNAL);
    assertThat(listener.status.getDescription()).isEqualTo("Failed to read message");
    assertThat(listener.status.getCause()).hasMessageContaining("unparseable");
  }

  @Test
  void requestThatCannotBeSerializedCancelsTheCall() {
    readyChannel();
    ClientCall<String, String> call = newCall(CallOptions.DEFAULT);
    RecordingListener listener = start(call, new Metadata());

    call.sendMessage("unserializable thing");

    assertThat(listener.status.getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(listener.status.getCause()).isInstanceOf(IllegalArgumentException.class);
    assertThat(transport.lastStream().messages()).isEmpty();
  }

  // ---- cancel and close ----

  @Test
  void cancelIsIdempotentAndOnCloseRunsExactlyOnce() {
    readyChannel();
    ClientCall<String, String> call = newCall(CallOptions.DEFAULT);
    RecordingListener listener = start(call, new Metadata());
    IllegalStateException cause = new IllegalStateException("why");

    call.cancel("stop", cause);
    call.cancel("stop again", null);
    transport.lastStream().serverClose(Status.OK);

    assertThat(listener.events()).containsExactly("close CANCELLED");
    assertThat(listener.status.getDescription()).isEqualTo("stop");
    assertThat(listener.status.getCause()).isSameAs(cause);
  }

  @Test
  void cancelBeforeStartMakesStartCloseTheCall() {
    readyChannel();
    ClientCall<String, String> call = newCall(CallOptions.DEFAULT);

    call.cancel(null, new IllegalStateException("early"));
    RecordingListener listener = start(call, new Metadata());

    assertThat(listener.events()).containsExactly("close CANCELLED");
    assertThat(listener.status.getCause()).hasMessage("early");
    assertThat(transport.streamCount()).isZero();
  }

  @Test
  void firstTerminalStatusWins() {
    readyChannel();
    ClientCall<String, String> call = newCall(CallOptions.DEFAULT);
    RecordingListener listener = start(call, new Metadata());
    Metadata trailers = headers("trailer");

    transport.lastStream().serverClose(Status.OK, trailers);
    call.cancel("too late", null);

    assertThat(listener.events()).containsExactly("close OK");
    assertThat(listener.trailers.get(CUSTOM)).isEqualTo("trailer");
  }

  @Test
  void sendMessageAfterCancelIsDropped() {
    readyChannel();
    ClientCall<String, String> call = newCall(CallOptions.DEFAULT);
    start(call, new Metadata());
    call.cancel("stop", null);

    call.sendMessage("ignored");

    assertThat(transport.lastStream().messages()).isEmpty();
  }

  // ---- misuse ----

  @Test
  void misuseThrowsWithAClearMessage() {
    readyChannel();
    ClientCall<String, String> call = newCall(CallOptions.DEFAULT);

    assertThatThrownBy(() -> call.request(1)).hasMessage("call not started");
    assertThatThrownBy(() -> call.sendMessage("x")).hasMessage("call not started");
    assertThatThrownBy(() -> call.halfClose()).hasMessage("call not started");
    assertThatThrownBy(() -> call.start(null, new Metadata()))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("responseListener");
    assertThatThrownBy(() -> call.start(new RecordingListener(), null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("headers");

    start(call, new Metadata());
    assertThatThrownBy(() -> start(call, new Metadata()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("call already started");
    assertThatThrownBy(() -> call.request(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("numMessages");
    call.halfClose();
    assertThatThrownBy(() -> call.halfClose()).hasMessage("halfClose already called");
    assertThatThrownBy(() -> call.sendMessage("x")).hasMessage("sendMessage after halfClose");
  }

  // ---- streaming behaviour ----

  @Test
  void streamingCallsFlushEachMessageButUnaryCallsDoNot() {
    readyChannel();
    ClientCall<String, String> streaming = newCall(CallOptions.DEFAULT);
    start(streaming, new Metadata());
    streaming.sendMessage("s");
    FakeClientStream streamingStream = transport.lastStream();
    ClientCall<String, String> unary = fixture.channel.newCall(UNARY, CallOptions.DEFAULT);
    start(unary, new Metadata());
    unary.sendMessage("u");
    unary.halfClose();

    assertThat(streamingStream.ops()).containsExactly("start", "message s", "flush");
    assertThat(transport.lastStream().ops()).containsExactly("start", "message u", "halfClose");
  }

  @Test
  void isReadyFollowsTheStreamUntilHalfClose() {
    readyChannel();
    ClientCall<String, String> call = newCall(CallOptions.DEFAULT);
    assertThat(call.isReady()).isFalse();
    RecordingListener listener = start(call, new Metadata());
    FakeClientStream stream = transport.lastStream();
    assertThat(call.isReady()).isTrue();

    stream.setReady(false);
    assertThat(call.isReady()).isFalse();
    stream.setReady(true);
    assertThat(listener.events()).containsExactly("ready");
    assertThat(call.isReady()).isTrue();

    call.halfClose();
    assertThat(call.isReady()).isFalse();
  }

  @Test
  void attributesAndMessageCompressionReachTheStream() {
    readyChannel();
    Attributes attrs =
        Attributes.newBuilder()
            .set(Grpc.TRANSPORT_ATTR_REMOTE_ADDR, ClientTestSupport.ADDRESS)
            .build();
    transport.setAttributes(attrs);
    ClientCall<String, String> call = newCall(CallOptions.DEFAULT);
    assertThat(call.getAttributes()).isEqualTo(Attributes.EMPTY);
    start(call, new Metadata());

    call.setMessageCompression(false);

    assertThat(call.getAttributes()).isEqualTo(attrs);
    assertThat(transport.lastStream().ops()).containsExactly("start", "compression false");
  }

  // ---- transparent retry ----

  @Test
  void refusedStreamIsRetriedOnceWhenNoMessageWasSent() {
    readyChannel();
    ClientCall<String, String> call = newCall(CallOptions.DEFAULT);
    RecordingListener listener = start(call, headers("retry me"));
    call.request(3);
    call.halfClose();

    transport.lastStream().refuse(RpcProgress.REFUSED);

    assertThat(listener.isClosed()).isFalse();
    assertThat(transport.streamCount()).isEqualTo(2);
    FakeClientStream retry = transport.lastStream();
    assertThat(retry.headers.get(CUSTOM)).isEqualTo("retry me");
    assertThat(retry.ops()).containsExactly("start", "request 3", "halfClose");
    call.request(1);
    retry.deliverMessage("ok");
    retry.serverClose(Status.OK);
    assertThat(retry.requested()).isEqualTo(4);
    assertThat(listener.events()).containsExactly("message ok", "close OK");
  }

  @Test
  void aRefusedStreamIsRetriedTransparentlyOnlyOnce() {
    readyChannel();
    RecordingListener listener = start(newCall(CallOptions.DEFAULT), new Metadata());

    transport.lastStream().refuse(RpcProgress.REFUSED);
    transport.lastStream().refuse(RpcProgress.REFUSED);

    assertThat(transport.streamCount()).isEqualTo(2);
    assertThat(listener.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(listener.status.getDescription()).isEqualTo("refused");
  }

  @Test
  void aCallRefusedAndThenNeverSentSucceedsOnItsThirdStream() {
    // As when the call picked a connection whose server had just sent GOAWAY, and then one that
    // closed before the stream left: the one request is sent again each time.
    readyChannel();
    ClientCall<String, String> call = fixture.channel.newCall(UNARY, CallOptions.DEFAULT);
    RecordingListener listener = start(call, headers("retry me"));
    call.request(1);
    call.sendMessage("the request");
    call.halfClose();

    transport.lastStream().refuse(RpcProgress.REFUSED);
    transport.lastStream().refuse(RpcProgress.DROPPED);

    assertThat(listener.isClosed()).isFalse();
    assertThat(transport.streamCount()).isEqualTo(3);
    FakeClientStream third = transport.lastStream();
    assertThat(third.headers.get(CUSTOM)).isEqualTo("retry me");
    assertThat(third.ops())
        .containsExactly("start", "request 1", "message the request", "halfClose");
    third.deliverMessage("ok");
    third.serverClose(Status.OK);
    assertThat(listener.events()).containsExactly("message ok", "close OK");
  }

  @Test
  void streamsThatNeverLeaveAreRetriedUpToTheBoundThenTheCallFailsSayingSo() {
    readyChannel();
    RecordingListener listener = start(newCall(CallOptions.DEFAULT), new Metadata());

    for (int i = 0; i <= TransparentRetry.MAX_DROPPED; i++) {
      assertThat(listener.isClosed()).isFalse();
      transport.lastStream().refuse(RpcProgress.DROPPED);
    }

    assertThat(transport.streamCount()).isEqualTo(TransparentRetry.MAX_DROPPED + 1);
    assertThat(listener.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(listener.status.getDescription())
        .isEqualTo(
            "refused\ngave up after 100 transparent retries of streams that never left the client");
  }

  @Test
  void noTransparentRetryOnceAMessageWasSent() {
    readyChannel();
    ClientCall<String, String> call = newCall(CallOptions.DEFAULT);
    RecordingListener listener = start(call, new Metadata());
    call.sendMessage("already sent");

    transport.lastStream().refuse(RpcProgress.REFUSED);

    assertThat(transport.streamCount()).isEqualTo(1);
    assertThat(listener.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
  }

  @Test
  void unaryCallIsRetriedOnlyOnce() {
    readyChannel();
    ClientCall<String, String> call = fixture.channel.newCall(UNARY, CallOptions.DEFAULT);
    RecordingListener listener = start(call, new Metadata());
    call.sendMessage("the request");
    call.halfClose();

    transport.lastStream().refuse(RpcProgress.REFUSED);
    transport.lastStream().refuse(RpcProgress.REFUSED);

    assertThat(transport.streamCount()).isEqualTo(2);
    assertThat(listener.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
  }

  @Test
  void noTransparentRetryForProcessedFailures() {
    readyChannel();
    RecordingListener listener = start(newCall(CallOptions.DEFAULT), new Metadata());

    transport.lastStream().serverClose(Status.UNAVAILABLE.withDescription("server busy"));

    assertThat(transport.streamCount()).isEqualTo(1);
    assertThat(listener.status.getDescription()).isEqualTo("server busy");
  }

  @Test
  void callOnATransportThatJustShutDownIsRetriedOnANewConnection() {
    fixture.build();
    fixture.channel.getState(true);
    FakeClientTransport first = fixture.readyTransport();
    // The call picks the transport, which goes away before the stream starts.
    ClientCall<String, String> call = newCall(CallOptions.DEFAULT);
    first.goAway(Status.UNAVAILABLE.withDescription("GOAWAY"));
    fixture.channel.getState(false);

    RecordingListener listener = start(call, headers("survivor"));

    assertThat(listener.isClosed()).isFalse();
    assertThat(fixture.factory.transportCount()).isEqualTo(2);
    FakeClientTransport second = fixture.readyTransport();
    assertThat(second.lastStream().headers.get(CUSTOM)).isEqualTo("survivor");
    second.lastStream().serverClose(Status.OK);
    assertThat(listener.events()).containsExactly("close OK");
  }

  // ---- executors ----

  @Test
  void callbacksRunSeriallyOnTheChannelExecutorInEventOrder() {
    FakeClientExecutor executor = new FakeClientExecutor();
    fixture.executor = executor;
    fixture.directExecutor = false;
    readyChannel();
    ClientCall<String, String> call = newCall(CallOptions.DEFAULT);
    RecordingListener listener = start(call, new Metadata());
    call.request(2);
    FakeClientStream stream = transport.lastStream();

    stream.deliverHeaders(new Metadata());
    stream.deliverMessage("one");
    stream.deliverMessage("two");
    stream.serverClose(Status.OK);

    assertThat(listener.events()).isEmpty();
    assertThat(executor.queued()).isEqualTo(1); // one drain task for the whole burst
    executor.runAll();
    assertThat(listener.events())
        .containsExactly("headers", "message one", "message two", "close OK");
    assertThat(listener.threads).containsOnly(Thread.currentThread());
  }

  @Test
  void responsesReachTheExecutorThroughTheStreamsHandOff() {
    FakeClientExecutor executor = new FakeClientExecutor();
    fixture.executor = executor;
    fixture.directExecutor = false;
    readyChannel();
    // A transport that gathers what its reads give the executor until its batch of reads ends.
    List<Runnable> batch = new ArrayList<>();
    transport.streamHandOff = (to, task) -> batch.add(() -> to.execute(task));
    ClientCall<String, String> call = newCall(CallOptions.DEFAULT);
    RecordingListener listener = start(call, new Metadata());
    call.request(1);
    FakeClientStream stream = transport.lastStream();

    stream.deliverHeaders(new Metadata());
    stream.deliverMessage("one");
    stream.serverClose(Status.OK);

    assertThat(executor.queued()).isZero(); // the batch of reads has not ended
    assertThat(batch).hasSize(1); // one drain for the call's three events
    batch.forEach(Runnable::run);
    executor.runAll();
    assertThat(listener.events()).containsExactly("headers", "message one", "close OK");
  }

  @Test
  void anExecutorRefusingTheCallbacks_cancelsTheCallAndClosesItsMessages() {
    fixture.directExecutor = false;
    readyChannel();
    Executor refusing =
        task -> {
          throw new RejectedExecutionException("executor shut down");
        };
    ClientCall<String, String> call = newCall(CallOptions.DEFAULT.withExecutor(refusing));
    RecordingListener listener = start(call, new Metadata());
    call.request(1);
    FakeClientStream stream = transport.lastStream();
    AtomicBoolean messageClosed = new AtomicBoolean();
    InputStream message =
        new ByteArrayInputStream(new byte[] {1}) {
          @Override
          public void close() {
            messageClosed.set(true);
          }
        };

    try (LogCapture logs = new LogCapture("dev.tern.internal.client.ClientCallEvents")) {
      stream.deliverMessage(message); // no exception reaches the transport's thread

      assertThat(logs.records).extracting(LogRecord::getLevel).containsExactly(Level.WARNING);
      assertThat(logs.records.get(0).getThrown()).hasMessage("executor shut down");
    }
    assertThat(messageClosed).isTrue();
    assertThat(stream.cancelStatus().getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(stream.cancelStatus().getDescription())
        .startsWith("The call's executor refused its callbacks");
    assertThat(listener.events()).isEmpty();
  }

  @Test
  void callOptionsExecutorReplacesTheChannelExecutor() {
    FakeClientExecutor channelExecutor = new FakeClientExecutor();
    fixture.executor = channelExecutor;
    fixture.directExecutor = false;
    readyChannel();
    FakeClientExecutor callExecutor = new FakeClientExecutor();
    RecordingListener listener =
        start(newCall(CallOptions.DEFAULT.withExecutor(callExecutor)), new Metadata());

    transport.lastStream().serverClose(Status.OK);

    assertThat(channelExecutor.queued()).isZero();
    assertThat(callExecutor.runAll()).isEqualTo(1);
    assertThat(listener.events()).containsExactly("close OK");
  }

  @Test
  void directExecutorRunsCallbacksInlineOnTheTransportThread() {
    readyChannel();
    ClientCall<String, String> call = newCall(CallOptions.DEFAULT);
    RecordingListener listener = start(call, new Metadata());
    call.request(1);

    transport.lastStream().deliverMessage("inline");

    assertThat(listener.events()).containsExactly("message inline");
    assertThat(listener.threads).containsExactly(Thread.currentThread());
  }

  @Test
  void threadlessExecutorGetsTheCallbacksOfABlockingStyleCall() throws Exception {
    fixture.directExecutor = false;
    readyChannel();
    ThreadlessExecutor threadless = new ThreadlessExecutor();
    ClientCall<String, String> call =
        fixture.channel.newCall(UNARY, CallOptions.DEFAULT.withExecutor(threadless));
    RecordingListener listener = start(call, new Metadata());
    call.request(1);
    call.sendMessage("q");
    call.halfClose();

    FakeClientStream stream = transport.lastStream();
    Thread server =
        new Thread(
            () -> {
              stream.deliverMessage("a");
              stream.serverClose(Status.OK);
            });
    server.start();
    while (!listener.isClosed()) {
      threadless.waitAndDrain();
    }
    server.join();

    assertThat(listener.events()).containsExactly("message a", "close OK");
    assertThat(listener.threads).containsOnly(Thread.currentThread());
    assertThat(listener.overlapped).isFalse();
  }

  @Test
  void noTimerTaskOutlivesACallWithoutDeadline() {
    readyChannel();
    int before = fixture.clock.getPendingTasks().size();
    ClientCall<String, String> call = newCall(CallOptions.DEFAULT);
    start(call, new Metadata());
    transport.lastStream().serverClose(Status.OK);

    for (ScheduledFuture<?> task : fixture.clock.getPendingTasks()) {
      assertThat(task.getDelay(TimeUnit.MINUTES)).isGreaterThanOrEqualTo(29); // only the idle timer
    }
    assertThat(fixture.clock.getPendingTasks().size()).isLessThanOrEqualTo(Math.max(before, 1));
  }
}
