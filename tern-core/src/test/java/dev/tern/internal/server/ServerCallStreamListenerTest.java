package dev.tern.internal.server;

import static dev.tern.internal.server.ServerTestSupport.echoService;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.Attributes;
import dev.tern.Codec;
import dev.tern.Context;
import dev.tern.Metadata;
import dev.tern.ServerCall;
import dev.tern.ServerStreamTracer;
import dev.tern.Status;
import dev.tern.internal.LogCapture;
import dev.tern.internal.server.ServerTestSupport.QueueExecutor;
import dev.tern.internal.server.ServerTestSupport.RecordingHandler;
import dev.tern.internal.wire.MessageDeframer;
import dev.tern.internal.wire.ReadableBuffers;
import dev.tern.spi.HandOff;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Stream events reaching the application: ordering, context, completion, failures. */
class ServerCallStreamListenerTest {
  private final RecordingHandler handler = new RecordingHandler();
  private final FakeServerBuilder builder = new FakeServerBuilder();
  private FakeServerTransport transport;

  /** Several tests make handlers throw on purpose; the runtime logs those at WARNING. */
  private LogCapture log;

  @BeforeEach
  void captureLog() {
    log = new LogCapture(ServerCallStreamListener.class);
  }

  @AfterEach
  void releaseLog() {
    log.close();
  }

  /** The one WARNING logged for a handler's exception: method name and the exception itself. */
  private void assertLoggedOnce(String method, Throwable thrown) {
    assertThat(log.records).hasSize(1);
    LogRecord record = log.records.get(0);
    assertThat(record.getLevel()).isEqualTo(Level.WARNING);
    assertThat(record.getMessage()).contains(method);
    assertThat(record.getThrown()).isSameAs(thrown);
  }

  private void startServer(Executor executor) throws IOException {
    if (executor == null) {
      builder.directExecutor();
    } else {
      builder.executor(executor);
    }
    builder.addService(echoService(handler)).build().start();
    transport = builder.transportServer.accept();
    transport.ready(Attributes.EMPTY);
  }

  private FakeServerStream newBidiStream() {
    return transport.newStream("test.Echo/Bidi", new Metadata());
  }

  @Test
  void startCallAndMessages_runOnTheExecutorNotTheTransportThread() throws IOException {
    QueueExecutor executor = new QueueExecutor();
    startServer(executor);

    FakeServerStream stream = newBidiStream();
    FakeServerStream.TrackedMessage message = stream.clientSends("hello");

    assertThat(handler.calls).isEmpty();
    assertThat(message.isClosed()).isFalse(); // not parsed on the transport thread
    executor.runAll();
    assertThat(handler.calls).hasSize(1);
    assertThat(handler.lastListener().events).containsExactly("ready", "message:hello");
    assertThat(message.isClosed()).isTrue();
  }

  @Test
  void eventsArriveInOrder_eachWithTheCallsContextAttached() throws IOException {
    startServer(null);
    handler.onStart = call -> call.request(2);

    FakeServerStream stream = newBidiStream();
    stream.clientSends("a");
    stream.clientSends("b");
    stream.becomeReady();
    stream.clientHalfCloses();
    handler.lastCall().close(Status.OK, new Metadata());
    stream.completeClose();

    ServerTestSupport.RecordingListener listener = handler.lastListener();
    assertThat(listener.events)
        .containsExactly("ready", "message:a", "message:b", "ready", "halfClose", "complete");
    Context callContext = handler.lastContext();
    assertThat(listener.contexts).allSatisfy(c -> assertThat(c).isSameAs(callContext));
    assertThat(Context.current()).isSameAs(Context.ROOT); // detached afterwards
  }

  @Test
  void directExecutor_anEventReportedFromInsideACallbackIsDeliveredAfterItReturns()
      throws IOException {
    startServer(null);
    List<FakeServerStream> streams = new ArrayList<>();
    handler.onStart = call -> call.request(3);
    handler.onMessage =
        message -> {
          if (message.equals("a")) {
            // As a transport on this thread would, from inside the callback.
            streams.get(0).clientSends("b");
            streams.get(0).clientHalfCloses();
            handler.lastListener().events.add("a returns");
          }
        };

    streams.add(newBidiStream());
    streams.get(0).clientSends("a");

    assertThat(handler.lastListener().events)
        .containsExactly("ready", "message:a", "a returns", "message:b", "halfClose");
    assertThat(handler.lastListener().contexts)
        .allSatisfy(c -> assertThat(c).isSameAs(handler.lastContext()));
    assertThat(Context.current()).isSameAs(Context.ROOT);
  }

  @Test
  void closedOk_deliversOnCompleteThenCancelsTheContext() throws IOException {
    startServer(null);
    FakeServerStream stream = newBidiStream();
    Context context = handler.lastContext();
    handler.lastCall().close(Status.OK, new Metadata());
    assertThat(context.isCancelled()).isFalse();

    stream.completeClose();

    assertThat(handler.lastListener().events).containsExactly("ready", "complete");
    assertThat(context.isCancelled()).isTrue();
    assertThat(handler.lastCall().isCancelled()).isFalse();
  }

  @Test
  void clientCancel_cancelsContextOnTheTransportThreadBeforeOnCancelRuns() throws IOException {
    QueueExecutor executor = new QueueExecutor();
    startServer(executor);
    FakeServerStream stream = newBidiStream();
    executor.runAll();
    Context context = handler.lastContext();

    stream.reportClosed(Status.CANCELLED.withDescription("client went away"));

    // A handler blocked on the executor can already see the cancellation.
    assertThat(context.isCancelled()).isTrue();
    assertThat(handler.lastCall().isCancelled()).isTrue();
    assertThat(handler.lastListener().events)
        .containsExactly("ready"); // the first onReady, right after startCall
    executor.runAll();
    assertThat(handler.lastListener().events).containsExactly("ready", "cancel");
    assertThat(handler.lastListener().contextCancelledAtOnCancel).isTrue();
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void clientCancel_tellsTheTransportOnceOnCancelHasReturned(boolean traced) throws IOException {
    if (traced) {
      // The runtime then talks to the transport's stream through a tracing wrapper.
      builder.addStreamTracerFactory(
          new ServerStreamTracer.Factory() {
            @Override
            public ServerStreamTracer newServerStreamTracer(String method, Metadata headers) {
              return new ServerStreamTracer() {};
            }
          });
    }
    QueueExecutor executor = new QueueExecutor();
    startServer(executor);
    FakeServerStream stream = newBidiStream();
    executor.runAll();
    stream.listenerEvents = () -> handler.lastListener().events;

    stream.reportClosed(Status.CANCELLED.withDescription("client went away"));

    // The handler may still be running: the transport keeps counting the call until it is not.
    assertThat(stream.cancelledCallFinished).isZero();
    executor.runAll();
    assertThat(stream.cancelledCallFinished).isEqualTo(1);
    assertThat(stream.eventsWhenFinished).containsExactly("ready", "cancel");
  }

  @Test
  void handlerThrowingInStartCall_closesUnknownTellingTheClientNothingAndTheNextCallIsServed()
      throws IOException {
    startServer(null);
    IllegalStateException thrown = new IllegalStateException("secret internals");
    handler.onStart =
        call -> {
          throw thrown;
        };

    FakeServerStream failed = newBidiStream();

    assertThat(failed.closeStatus.getCode()).isEqualTo(Status.Code.UNKNOWN);
    assertThat(failed.closeStatus.getDescription()).isEqualTo("Application error processing RPC");
    assertThat(failed.closeStatus.getCause()).isSameAs(thrown); // stays on the server
    assertLoggedOnce("test.Echo/Bidi", thrown);
    assertThat(handler.lastContext().isCancelled()).isTrue();

    handler.onStart = call -> call.request(1);
    FakeServerStream next = newBidiStream();
    next.clientSends("still serving");
    assertThat(next.closeStatus).isNull();
    assertThat(handler.lastListener().events).containsExactly("ready", "message:still serving");
  }

  @Test
  void handlerThrowingInOnMessage_closesUnknownAndNothingMoreIsDelivered() throws IOException {
    startServer(null);
    handler.onStart = call -> call.request(5);
    handler.onMessage =
        message -> {
          throw new IllegalArgumentException("bad " + message);
        };

    FakeServerStream stream = newBidiStream();
    stream.clientSends("x");
    FakeServerStream.TrackedMessage late = stream.clientSends("y");
    stream.clientHalfCloses();
    stream.completeClose();

    assertThat(stream.closeStatus.getCode()).isEqualTo(Status.Code.UNKNOWN);
    assertThat(handler.lastListener().events).containsExactly("ready", "message:x");
    assertThat(late.isClosed()).isTrue();
    assertThat(handler.lastContext().isCancelled()).isTrue();
  }

  @Test
  void handlerThrowingInOnHalfClose_closesUnknownAndServerGoesOn() throws IOException {
    boolean[] throwOnHalfClose = {true};
    UnsupportedOperationException thrown =
        new UnsupportedOperationException("half-close not handled");
    builder
        .directExecutor()
        .addService(
            echoService(
                (call, headers) ->
                    new ServerCall.Listener<>() {
                      @Override
                      public void onHalfClose() {
                        if (throwOnHalfClose[0]) {
                          throw thrown;
                        }
                        call.sendMessage("ok");
                        call.close(Status.OK, new Metadata());
                      }
                    }))
        .build()
        .start();
    transport = builder.transportServer.accept();
    transport.ready(Attributes.EMPTY);

    FakeServerStream failing = transport.newStream("test.Echo/Unary", new Metadata());
    failing.clientHalfCloses();
    throwOnHalfClose[0] = false;
    FakeServerStream next = transport.newStream("test.Echo/Unary", new Metadata());
    next.clientHalfCloses();

    assertThat(failing.closeStatus.getCode()).isEqualTo(Status.Code.UNKNOWN);
    assertThat(failing.closeStatus.getDescription()).isEqualTo("Application error processing RPC");
    assertLoggedOnce("test.Echo/Unary", thrown);
    assertThat(next.closeStatus.getCode()).isEqualTo(Status.Code.OK);
    assertThat(next.writtenMessages).containsExactly("ok");
  }

  @Test
  void handlerThrowingStatusRuntimeException_closesWithItsStatusAndTrailers() throws IOException {
    startServer(null);
    Metadata.Key<String> reason = Metadata.Key.of("x-reason", Metadata.ASCII_STRING_MARSHALLER);
    Metadata trailers = new Metadata();
    trailers.put(reason, "too small");
    handler.onStart =
        call -> {
          throw Status.INVALID_ARGUMENT.withDescription("n < 0").asRuntimeException(trailers);
        };

    FakeServerStream stream = newBidiStream();

    assertThat(stream.closeStatus.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(stream.closeStatus.getDescription()).isEqualTo("n < 0");
    assertThat(stream.closeTrailers.get(reason)).isEqualTo("too small");
    assertThat(log.records).as("a status the handler chose is not an error").isEmpty();
  }

  @Test
  void handlerThrowingAfterClosing_doesNotCloseTwiceButCancelsTheContext() throws IOException {
    startServer(null);
    handler.onStart =
        call -> {
          call.close(Status.NOT_FOUND, new Metadata());
          throw new IllegalStateException("after close");
        };

    FakeServerStream stream = newBidiStream(); // the fake fails on a second close

    assertThat(stream.closeStatus.getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(handler.lastContext().isCancelled()).isTrue();
  }

  @Test
  void startCallReturningNull_closesUnknown() throws IOException {
    builder.directExecutor().addService(echoService((call, headers) -> null)).build().start();
    transport = builder.transportServer.accept();
    transport.ready(Attributes.EMPTY);

    FakeServerStream stream = newBidiStream();

    assertThat(stream.closeStatus.getCode()).isEqualTo(Status.Code.UNKNOWN);
    assertThat(stream.closeStatus.getDescription()).isEqualTo("Application error processing RPC");
    assertThat(log.records).hasSize(1);
    assertThat(log.records.get(0).getThrown()).isInstanceOf(NullPointerException.class);
  }

  @Test
  void requestParseFailure_closesInternalCancelsContextAndDeliversOnCancelLast()
      throws IOException {
    startServer(null);
    handler.onStart = call -> call.request(3);

    FakeServerStream stream = newBidiStream();
    stream.clientSends("ok");
    FakeServerStream.TrackedMessage bad = stream.clientSends("unparseable!");
    FakeServerStream.TrackedMessage after = stream.clientSends("later");
    stream.completeClose();

    assertThat(stream.closeStatus.getCode()).isEqualTo(Status.Code.INTERNAL);
    assertThat(stream.closeStatus.getDescription()).isEqualTo("Failed to parse request");
    assertThat(bad.isClosed()).isTrue();
    assertThat(after.isClosed()).isTrue();
    assertThat(handler.lastListener().events).containsExactly("ready", "message:ok", "cancel");
    assertThat(handler.lastContext().isCancelled()).isTrue();
    assertThat(handler.lastCall().isCancelled()).isTrue();
  }

  @Test
  void compressedRequestExpandingPastTheLimit_closesResourceExhaustedNotInternal()
      throws IOException {
    startServer(null);
    handler.onStart = call -> call.request(1);
    FakeServerStream stream = newBidiStream();
    // 1 MiB of zeros, gzipped to about 1 KiB, against a 64 KiB limit.
    ByteArrayOutputStream compressed = new ByteArrayOutputStream();
    try (OutputStream gzip = new Codec.Gzip().compress(compressed)) {
      gzip.write(new byte[1 << 20]);
    }
    byte[] body = compressed.toByteArray();
    List<InputStream> delivered = new ArrayList<>();
    MessageDeframer deframer =
        new MessageDeframer(new DeliveringListener(delivered), new Codec.Gzip(), 64 * 1024);
    deframer.request(1);
    deframer.deframe(
        ReadableBuffers.wrap(
            ByteBuffer.allocate(5 + body.length)
                .put((byte) 1)
                .putInt(body.length)
                .put(body)
                .array()));
    assertThat(delivered).hasSize(1);

    stream.listener.messageRead(delivered.get(0));

    assertThat(stream.closeStatus.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(stream.closeStatus.getDescription()).contains("65536");
    assertThat(handler.lastListener().events).containsExactly("ready", "cancel");
    assertThat(handler.lastContext().isCancelled()).isTrue();
  }

  @Test
  void errorInAHandler_closesTheCallThenPropagates() throws IOException {
    startServer(null);
    handler.onStart =
        call -> {
          throw new StackOverflowError("deep");
        };

    assertThatThrownBy(this::newBidiStream).isInstanceOf(StackOverflowError.class);
    FakeServerStream stream = transport.streams.get(0);
    assertThat(stream.closeStatus.getCode()).isEqualTo(Status.Code.UNKNOWN);
    assertThat(handler.lastContext().isCancelled()).isTrue();
  }

  @Test
  void executorRejectingTheCall_cancelsStreamUnavailableAndTheContext() throws IOException {
    boolean[] reject = {false};
    Executor flaky = rejectingWhile(reject);
    startServer(flaky);
    reject[0] = true;

    FakeServerStream stream;
    try (LogCapture logs = new LogCapture(ExecutorRejectionLog.class)) {
      stream = newBidiStream();
      assertThat(logs.records).extracting(LogRecord::getLevel).containsExactly(Level.WARNING);
    }

    assertThat(stream.cancelStatus.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(stream.cancelStatus.getDescription()).isEqualTo("Server executor rejected the call");
    assertThat(handler.calls).isEmpty();
    reject[0] = false;
    FakeServerStream next = newBidiStream();
    assertThat(next.cancelStatus).isNull();
    assertThat(handler.calls).hasSize(1);
  }

  @Test
  void executorRejectingACallHandedOverAfterTheReads_endsItUnavailableAndClosesItsMessages()
      throws IOException {
    // A transport that hands tasks over after its batch of reads, as the Netty server's loop does.
    List<Runnable> batch = new ArrayList<>();
    boolean[] reject = {true};
    Executor flaky = rejectingWhile(reject);
    startServer(flaky);
    transport.handOff = (executor, task) -> batch.add(() -> HandOff.DIRECT.execute(executor, task));

    FakeServerStream stream = newBidiStream();
    FakeServerStream.TrackedMessage first = stream.clientSends("one");
    FakeServerStream.TrackedMessage second = stream.clientSends("two");
    stream.clientHalfCloses();
    assertThat(stream.cancelStatus).isNull(); // nothing handed over yet
    assertThat(batch).hasSize(1); // one hand-off for the call's start, messages and half-close

    try (LogCapture logs = new LogCapture(ExecutorRejectionLog.class)) {
      batch.remove(0).run();
      assertThat(logs.records).extracting(LogRecord::getLevel).containsExactly(Level.WARNING);
    }

    assertThat(stream.cancelStatus.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(stream.cancelStatus.getDescription()).isEqualTo("Server executor rejected the call");
    assertThat(handler.calls).isEmpty();
    assertThat(first.isClosed()).isTrue();
    assertThat(second.isClosed()).isTrue();
    // The cancel's closed event handed nothing over; the next call is served.
    assertThat(stream.isClosedReported()).isTrue();
    assertThat(batch).isEmpty();
    reject[0] = false;
    FakeServerStream next = newBidiStream();
    next.clientSends("three");
    batch.remove(0).run();
    assertThat(next.cancelStatus).isNull();
    assertThat(handler.lastListener().events).containsExactly("ready", "message:three");
  }

  /**
   * An executor that runs tasks where it is given them, and refuses them while {@code reject[0]}.
   */
  private static Executor rejectingWhile(boolean[] reject) {
    return task -> {
      if (reject[0]) {
        throw new RejectedExecutionException("pool is full");
      }
      task.run();
    };
  }

  /** Collects what a deframer delivers. */
  private static final class DeliveringListener implements MessageDeframer.Listener {
    private final List<InputStream> delivered;

    DeliveringListener(List<InputStream> delivered) {
      this.delivered = delivered;
    }

    @Override
    public void messageRead(InputStream message) {
      delivered.add(message);
    }

    @Override
    public void deframerClosed(boolean hasPartialMessage) {}

    @Override
    public void deframeFailed(Throwable cause) {
      throw new AssertionError("deframing failed", cause);
    }

    @Override
    public void bytesRead(int numBytes) {}
  }
}
