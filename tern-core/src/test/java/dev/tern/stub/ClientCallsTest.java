package dev.tern.stub;

import static dev.tern.MethodDescriptor.MethodType.BIDI_STREAMING;
import static dev.tern.MethodDescriptor.MethodType.CLIENT_STREAMING;
import static dev.tern.MethodDescriptor.MethodType.SERVER_STREAMING;
import static dev.tern.MethodDescriptor.MethodType.UNARY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ClientCallsTest {
  private static final Metadata.Key<String> DETAIL =
      Metadata.Key.of("detail", Metadata.ASCII_STRING_MARSHALLER);

  private final FakeChannel channel = new FakeChannel();

  @AfterEach
  void clearInterruptFlag() {
    Thread.interrupted(); // no test may leak an interrupt into the next
  }

  private static Metadata trailers(String detail) {
    Metadata trailers = new Metadata();
    trailers.put(DETAIL, detail);
    return trailers;
  }

  // ---- future ----

  @Test
  void futureUnaryCall_completesWithTheResponse() throws Exception {
    FakeClientCall call = newCall(UNARY);
    CompletableFuture<String> future = ClientCalls.futureUnaryCall(typed(call), "ping");
    assertThat(call.sentMessages).containsExactly("ping");
    assertThat(future).isNotDone();

    call.respond("pong");

    assertThat(future.get(5, TimeUnit.SECONDS)).isEqualTo("pong");
  }

  @Test
  void futureUnaryCall_failure_completesExceptionallyWithStatusAndTrailers() {
    FakeClientCall call = newCall(UNARY);
    CompletableFuture<String> future = ClientCalls.futureUnaryCall(typed(call), "ping");

    call.deliverClose(Status.PERMISSION_DENIED, trailers("who are you"));

    ExecutionException e = catchThrowableOfType(ExecutionException.class, future::get);
    assertThat(e.getCause()).isInstanceOf(StatusRuntimeException.class);
    StatusRuntimeException sre = (StatusRuntimeException) e.getCause();
    assertThat(sre.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(sre.getTrailers().get(DETAIL)).isEqualTo("who are you");
  }

  @Test
  void futureUnaryCall_cancellingTheFutureCancelsTheCall() {
    for (boolean mayInterrupt : new boolean[] {true, false}) {
      FakeClientCall call = newCall(UNARY);
      CompletableFuture<String> future = ClientCalls.futureUnaryCall(typed(call), "ping");

      assertThat(future.cancel(mayInterrupt)).isTrue();

      assertThat(future).isCancelled();
      assertThat(call.cancelled).isTrue();
      assertThat(call.cancelMessage).contains("future was cancelled");
    }
  }

  @Test
  void futureUnaryCall_cancelAfterCompletion_leavesTheCallAlone() {
    FakeClientCall call = newCall(UNARY);
    CompletableFuture<String> future = ClientCalls.futureUnaryCall(typed(call), "ping");
    call.respond("pong");

    assertThat(future.cancel(true)).isFalse();

    assertThat(future.join()).isEqualTo("pong");
    assertThat(call.cancelled).isFalse();
  }

  // ---- async ----

  @Test
  void asyncUnaryCall_deliversTheResponseThenCompletes() {
    FakeClientCall call = newCall(UNARY);
    RecordingObserver<String> observer = new RecordingObserver<>();

    ClientCalls.asyncUnaryCall(typed(call), "ping", observer);
    assertThat(call.sentMessages).containsExactly("ping");
    assertThat(call.halfClosed).isTrue();
    assertThat(call.requested.get()).isEqualTo(2);
    call.respond("pong");

    assertThat(observer.values).containsExactly("pong");
    assertThat(observer.completed).isTrue();
    assertThat(observer.error).isNull();
  }

  @Test
  void asyncUnaryCall_okWithoutResponse_reportsUnimplemented() {
    FakeClientCall call = newCall(UNARY);
    RecordingObserver<String> observer = new RecordingObserver<>();
    ClientCalls.asyncUnaryCall(typed(call), "ping", observer);

    call.deliverClose(Status.OK, new Metadata());

    assertThat(observer.completed).isFalse();
    assertThat(Status.fromThrowable(observer.error).getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
  }

  @Test
  void asyncUnaryCall_failure_reportsStatusAndTrailers() {
    FakeClientCall call = newCall(UNARY);
    RecordingObserver<String> observer = new RecordingObserver<>();
    ClientCalls.asyncUnaryCall(typed(call), "ping", observer);

    call.deliverClose(Status.UNAVAILABLE, trailers("try later"));

    assertThat(observer.error).isInstanceOf(StatusRuntimeException.class);
    assertThat(Status.fromThrowable(observer.error).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(Status.trailersFromThrowable(observer.error).get(DETAIL)).isEqualTo("try later");
  }

  @Test
  void asyncServerStreamingCall_requestsTheNextMessageAfterEachOnNext() {
    FakeClientCall call = newCall(SERVER_STREAMING);
    AtomicReference<Integer> requestedDuringOnNext = new AtomicReference<>();
    RecordingObserver<String> observer =
        new RecordingObserver<>() {
          @Override
          public void onNext(String value) {
            requestedDuringOnNext.set(call.requested.get());
            super.onNext(value);
          }
        };
    ClientCalls.asyncServerStreamingCall(typed(call), "list", observer);
    assertThat(call.requested.get()).isEqualTo(1);

    call.deliverMessage("a");
    assertThat(requestedDuringOnNext.get()).isEqualTo(1);
    assertThat(call.requested.get()).isEqualTo(2);
    call.deliverMessage("b");
    assertThat(call.requested.get()).isEqualTo(3);
    call.deliverClose(Status.OK, new Metadata());

    assertThat(observer.values).containsExactly("a", "b");
    assertThat(observer.completed).isTrue();
  }

  @Test
  void asyncClientStreamingCall_sendsRequestsAndGetsOneResponse() {
    FakeClientCall call = newCall(CLIENT_STREAMING);
    RecordingObserver<String> observer = new RecordingObserver<>();

    StreamObserver<String> requests = ClientCalls.asyncClientStreamingCall(typed(call), observer);
    requests.onNext("a");
    requests.onNext("b");
    requests.onCompleted();
    call.respond("ab");

    assertThat(call.sentMessages).containsExactly("a", "b");
    assertThat(call.halfClosed).isTrue();
    assertThat(call.requested.get()).isEqualTo(2);
    assertThat(observer.values).containsExactly("ab");
    assertThat(observer.completed).isTrue();
    assertThatThrownBy(() -> requests.onNext("c"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("completed");
  }

  @Test
  void asyncBidiStreamingCall_requestObserverOnError_cancelsTheCall() {
    FakeClientCall call = newCall(BIDI_STREAMING);
    RecordingObserver<String> observer = new RecordingObserver<>();
    StreamObserver<String> requests = ClientCalls.asyncBidiStreamingCall(typed(call), observer);
    requests.onNext("a");
    RuntimeException reason = new RuntimeException("changed my mind");

    requests.onError(reason);

    assertThat(call.cancelled).isTrue();
    assertThat(call.cancelCause).isSameAs(reason);
    assertThat(Status.fromThrowable(observer.error).getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThatThrownBy(() -> requests.onNext("b")).isInstanceOf(IllegalStateException.class);
    assertThat(call.sentMessages).containsExactly("a");
  }

  @Test
  void asyncBidiStreamingCall_requestObserverIsAClientCallStreamObserver() {
    FakeClientCall call = newCall(BIDI_STREAMING);
    ClientCallStreamObserver<String> requests =
        (ClientCallStreamObserver<String>)
            ClientCalls.asyncBidiStreamingCall(typed(call), new RecordingObserver<>());

    call.ready = false;
    assertThat(requests.isReady()).isFalse();
    requests.setMessageCompression(true);
    assertThat(call.messageCompression).isTrue();
    requests.cancel("bored", null);
    assertThat(call.cancelMessage).isEqualTo("bored");
    assertThatThrownBy(() -> requests.setOnReadyHandler(() -> {}))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("beforeStart");
  }

  @Test
  void clientResponseObserver_canTakeOverInboundFlowControl() {
    FakeClientCall call = newCall(BIDI_STREAMING);
    AtomicReference<ClientCallStreamObserver<String>> requestStream = new AtomicReference<>();
    ResponseObserverWithBeforeStart observer =
        new ResponseObserverWithBeforeStart(
            stream -> {
              requestStream.set(stream);
              stream.disableAutoRequestWithInitialRequest(0);
            });

    ClientCalls.asyncBidiStreamingCall(typed(call), observer);
    assertThat(call.requested.get()).isZero();

    requestStream.get().request(2);
    call.deliverMessage("a");
    call.deliverMessage("b");

    assertThat(observer.values).containsExactly("a", "b");
    assertThat(call.requested.get()).isEqualTo(2); // nothing requested automatically
  }

  @Test
  void clientResponseObserver_disableAutoInboundFlowControl_requestsOneInitially() {
    FakeClientCall call = newCall(SERVER_STREAMING);
    ResponseObserverWithBeforeStart observer =
        new ResponseObserverWithBeforeStart(CallStreamObserver::disableAutoInboundFlowControl);

    ClientCalls.asyncServerStreamingCall(typed(call), "list", observer);
    call.deliverMessage("a");

    assertThat(call.requested.get()).isEqualTo(1);
    assertThat(observer.values).containsExactly("a");
  }

  @Test
  void clientResponseObserver_beforeStartRunsBeforeTheCallStarts() {
    FakeClientCall call = newCall(UNARY);
    AtomicReference<Boolean> startedInBeforeStart = new AtomicReference<>();
    ClientCalls.asyncUnaryCall(
        typed(call),
        "ping",
        new ResponseObserverWithBeforeStart(
            stream -> startedInBeforeStart.set(call.listener != null)));

    assertThat(startedInBeforeStart.get()).isFalse();
  }

  @Test
  void disableAutoRequestWithInitialRequest_rejectsNegativeCounts() {
    FakeClientCall call = newCall(BIDI_STREAMING);
    ResponseObserverWithBeforeStart observer =
        new ResponseObserverWithBeforeStart(
            stream -> stream.disableAutoRequestWithInitialRequest(-1));

    assertThatThrownBy(() -> ClientCalls.asyncBidiStreamingCall(typed(call), observer))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("initialRequest");
    assertThat(call.cancelled).isTrue(); // the failed start does not leave a call behind
  }

  @Test
  void onReadyHandler_runsWhenTheCallBecomesReady() {
    FakeClientCall call = newCall(BIDI_STREAMING);
    AtomicReference<Integer> readyCount = new AtomicReference<>(0);
    ResponseObserverWithBeforeStart observer =
        new ResponseObserverWithBeforeStart(
            stream -> stream.setOnReadyHandler(() -> readyCount.set(readyCount.get() + 1)));
    ClientCalls.asyncBidiStreamingCall(typed(call), observer);

    call.deliverReady();
    call.deliverReady();

    assertThat(readyCount.get()).isEqualTo(2);
  }

  @Test
  void onReadyHandlerThrowing_cancelsTheCall() {
    FakeClientCall call = newCall(BIDI_STREAMING);
    IllegalStateException bug = new IllegalStateException("bug in handler");
    ResponseObserverWithBeforeStart observer =
        new ResponseObserverWithBeforeStart(
            stream ->
                stream.setOnReadyHandler(
                    () -> {
                      throw bug;
                    }));
    ClientCalls.asyncBidiStreamingCall(typed(call), observer);

    call.deliverReady();

    assertThat(call.cancelCause).isSameAs(bug);
    assertThat(observer.error).isInstanceOf(StatusRuntimeException.class).hasRootCause(bug);
  }

  @Test
  void responseObserverThrowing_cancelsTheCallAndStillReportsItsEnd() {
    FakeClientCall call = newCall(SERVER_STREAMING);
    IllegalArgumentException bug = new IllegalArgumentException("cannot handle a");
    RecordingObserver<String> observer =
        new RecordingObserver<>() {
          @Override
          public void onNext(String value) {
            super.onNext(value);
            throw bug;
          }
        };
    ClientCalls.asyncServerStreamingCall(typed(call), "list", observer);

    call.deliverMessage("a");
    call.deliverMessage("b"); // raced with the cancellation: must not reach the observer

    assertThat(call.cancelled).isTrue();
    assertThat(call.cancelCause).isSameAs(bug);
    assertThat(observer.values).containsExactly("a");
    assertThat(Status.fromThrowable(observer.error).getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(Status.fromThrowable(observer.error).getCause()).isSameAs(bug);
    assertThat(call.requested.get()).isEqualTo(1); // no more requested after the failure
  }

  @Test
  void asyncCalls_nullObserver_isNamed() {
    FakeClientCall call = newCall(UNARY);
    assertThatThrownBy(() -> ClientCalls.asyncUnaryCall(typed(call), "ping", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("responseObserver");
  }

  private FakeClientCall newCall(MethodDescriptor.MethodType type) {
    channel.newCall(StringMarshaller.method(type), CallOptions.DEFAULT);
    try {
      return channel.takeCall();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  private static ClientCall<String, String> typed(FakeClientCall call) {
    return call;
  }

  /** A recording observer whose beforeStart runs the given configuration. */
  private static final class ResponseObserverWithBeforeStart extends RecordingObserver<String>
      implements ClientResponseObserver<String, String> {
    private final Consumer<ClientCallStreamObserver<String>> configure;

    ResponseObserverWithBeforeStart(Consumer<ClientCallStreamObserver<String>> configure) {
      this.configure = configure;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<String> requestStream) {
      configure.accept(requestStream);
    }
  }
}
