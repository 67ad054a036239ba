package dev.tern.stub;

import static dev.tern.MethodDescriptor.MethodType.BIDI_STREAMING;
import static dev.tern.MethodDescriptor.MethodType.CLIENT_STREAMING;
import static dev.tern.MethodDescriptor.MethodType.SERVER_STREAMING;
import static dev.tern.MethodDescriptor.MethodType.UNARY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.Metadata;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ServerCallsTest {
  private static final Metadata.Key<String> DETAIL =
      Metadata.Key.of("detail", Metadata.ASCII_STRING_MARSHALLER);

  private final List<String> invocations = new ArrayList<>();

  private final ServerCallHandler<String, String> echo =
      ServerCalls.asyncUnaryCall(
          (request, responseObserver) -> {
            invocations.add(request);
            responseObserver.onNext(request + "!");
            responseObserver.onCompleted();
          });

  // ---- unary ----

  @Test
  void unary_invokesTheMethodOnHalfClose_andRespondsOk() {
    FakeServerCall call = new FakeServerCall(UNARY);
    ServerCall.Listener<String> listener = echo.startCall(call, new Metadata());
    assertThat(call.requested).isEqualTo(2);

    listener.onMessage("hi");
    assertThat(invocations).isEmpty(); // not before the client half-closed
    listener.onHalfClose();

    assertThat(invocations).containsExactly("hi");
    assertThat(call.sentMessages).containsExactly("hi!");
    assertThat(call.closeStatus.getCode()).isEqualTo(Status.Code.OK);
  }

  @Test
  void unary_tooManyRequests_closesUnimplemented_withoutInvokingTheMethod() {
    FakeServerCall call = new FakeServerCall(UNARY);
    ServerCall.Listener<String> listener = echo.startCall(call, new Metadata());

    listener.onMessage("one");
    listener.onMessage("two");
    listener.onHalfClose();

    assertThat(call.closeStatus.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(call.closeStatus.getDescription())
        .isEqualTo("Too many requests: test.Echo/UNARY takes exactly one");
    assertThat(invocations).isEmpty();
  }

  @Test
  void unary_halfCloseWithoutRequest_closesUnimplemented() {
    FakeServerCall call = new FakeServerCall(SERVER_STREAMING);
    ServerCallHandler<String, String> handler =
        ServerCalls.asyncServerStreamingCall((request, observer) -> invocations.add(request));
    ServerCall.Listener<String> listener = handler.startCall(call, new Metadata());

    listener.onHalfClose();

    assertThat(call.closeStatus.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(call.closeStatus.getDescription())
        .isEqualTo("Half-closed without a request: test.Echo/SERVER_STREAMING takes exactly one");
    assertThat(invocations).isEmpty();
  }

  @Test
  void unaryHandler_forAStreamingRequestMethod_isRejected() {
    FakeServerCall call = new FakeServerCall(BIDI_STREAMING);

    assertThatThrownBy(() -> echo.startCall(call, new Metadata()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("test.Echo/BIDI_STREAMING");
  }

  @Test
  void onError_closesWithTheThrowablesStatusAndTrailers() {
    Metadata trailers = new Metadata();
    trailers.put(DETAIL, "id 42");
    FakeServerCall call = new FakeServerCall(UNARY);
    ServerCall.Listener<String> listener =
        ServerCalls.<String, String>asyncUnaryCall(
                (request, observer) ->
                    observer.onError(
                        Status.NOT_FOUND.withDescription("no " + request).asException(trailers)))
            .startCall(call, new Metadata());

    listener.onMessage("user");
    listener.onHalfClose();

    assertThat(call.closeStatus.getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(call.closeStatus.getDescription()).isEqualTo("no user");
    assertThat(call.closeTrailers.get(DETAIL)).isEqualTo("id 42");
  }

  @Test
  void onError_withAPlainException_closesUnknown() {
    FakeServerCall call = new FakeServerCall(UNARY);
    IllegalStateException failure = new IllegalStateException("database down");
    ServerCall.Listener<String> listener =
        ServerCalls.<String, String>asyncUnaryCall((request, observer) -> observer.onError(failure))
            .startCall(call, new Metadata());

    listener.onMessage("x");
    listener.onHalfClose();

    assertThat(call.closeStatus.getCode()).isEqualTo(Status.Code.UNKNOWN);
    assertThat(call.closeStatus.getCause()).isSameAs(failure);
    assertThat(call.closeTrailers).isNotNull();
  }

  @Test
  void onNextAfterOnCompleted_throwsIllegalState() {
    FakeServerCall call = new FakeServerCall(SERVER_STREAMING);
    AtomicReference<Throwable> onNextFailure = new AtomicReference<>();
    AtomicReference<Throwable> secondCompleteFailure = new AtomicReference<>();
    ServerCall.Listener<String> listener =
        ServerCalls.<String, String>asyncServerStreamingCall(
                (request, observer) -> {
                  observer.onCompleted();
                  onNextFailure.set(catchThrowable(() -> observer.onNext("late")));
                  secondCompleteFailure.set(catchThrowable(observer::onCompleted));
                })
            .startCall(call, new Metadata());

    listener.onMessage("x");
    listener.onHalfClose();

    assertThat(onNextFailure.get())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already completed");
    assertThat(secondCompleteFailure.get()).isInstanceOf(IllegalStateException.class);
    assertThat(call.sentMessages).isEmpty();
  }

  @Test
  void onNextAfterOnError_throwsIllegalState() {
    FakeServerCall call = new FakeServerCall(BIDI_STREAMING);
    AtomicReference<StreamObserver<String>> responses = new AtomicReference<>();
    ServerCalls.<String, String>asyncBidiStreamingCall(
            observer -> {
              responses.set(observer);
              return new RecordingObserver<>();
            })
        .startCall(call, new Metadata());

    responses.get().onError(Status.ABORTED.asRuntimeException());

    assertThatThrownBy(() -> responses.get().onNext("late"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("terminated by error");
    assertThat(call.closeStatus.getCode()).isEqualTo(Status.Code.ABORTED);
  }

  // ---- cancellation ----

  @Test
  void serverStreaming_onNextAfterCancel_throwsCancelled() {
    FakeServerCall call = new FakeServerCall(SERVER_STREAMING);
    AtomicReference<ServerCallStreamObserver<String>> responses = new AtomicReference<>();
    ServerCall.Listener<String> listener =
        ServerCalls.<String, String>asyncServerStreamingCall(
                (request, observer) -> responses.set((ServerCallStreamObserver<String>) observer))
            .startCall(call, new Metadata());
    listener.onMessage("x");
    listener.onHalfClose();
    responses.get().onNext("first");

    call.cancelled = true;
    listener.onCancel();

    assertThat(responses.get().isCancelled()).isTrue();
    assertThatThrownBy(() -> responses.get().onNext("second"))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.CANCELLED);
              assertThat(e.getStatus().getDescription()).contains("call already cancelled");
            });
    assertThat(call.sentMessages).containsExactly("first");
  }

  @Test
  void serverStreaming_withOnCancelHandler_runsItAndIgnoresLaterOnNext() {
    FakeServerCall call = new FakeServerCall(SERVER_STREAMING);
    AtomicInteger cancelHandlerRuns = new AtomicInteger();
    AtomicReference<ServerCallStreamObserver<String>> responses = new AtomicReference<>();
    ServerCall.Listener<String> listener =
        ServerCalls.<String, String>asyncServerStreamingCall(
                (request, observer) -> {
                  ServerCallStreamObserver<String> serverObserver =
                      (ServerCallStreamObserver<String>) observer;
                  serverObserver.setOnCancelHandler(cancelHandlerRuns::incrementAndGet);
                  responses.set(serverObserver);
                })
            .startCall(call, new Metadata());
    listener.onMessage("x");
    listener.onHalfClose();

    call.cancelled = true;
    listener.onCancel();
    responses.get().onNext("ignored");
    responses.get().onCompleted();

    assertThat(cancelHandlerRuns.get()).isEqualTo(1);
    assertThat(call.sentMessages).isEmpty();
    assertThat(call.closeStatus).isNull(); // nobody to tell: the call was cancelled
  }

  @Test
  void unary_onNextAfterCancel_isDroppedSilently() {
    FakeServerCall call = new FakeServerCall(UNARY);
    call.cancelled = true; // the client went away while the method ran
    ServerCall.Listener<String> listener = echo.startCall(call, new Metadata());

    listener.onMessage("hi");
    listener.onHalfClose();

    assertThat(invocations).containsExactly("hi");
    assertThat(call.sentMessages).isEmpty();
    assertThat(call.closeStatus).isNull();
  }

  @Test
  void bidi_cancelBeforeHalfClose_runsHandlerAndFailsTheRequestObserver() {
    FakeServerCall call = new FakeServerCall(BIDI_STREAMING);
    RecordingObserver<String> requests = new RecordingObserver<>();
    AtomicInteger cancelHandlerRuns = new AtomicInteger();
    ServerCall.Listener<String> listener =
        ServerCalls.<String, String>asyncBidiStreamingCall(
                observer -> {
                  ((ServerCallStreamObserver<String>) observer)
                      .setOnCancelHandler(cancelHandlerRuns::incrementAndGet);
                  return requests;
                })
            .startCall(call, new Metadata());

    call.cancelled = true;
    listener.onCancel();

    assertThat(cancelHandlerRuns.get()).isEqualTo(1);
    assertThat(Status.fromThrowable(requests.error).getCode()).isEqualTo(Status.Code.CANCELLED);
  }

  @Test
  void clientStreaming_cancelAfterHalfClose_doesNotFailTheRequestObserver() {
    FakeServerCall call = new FakeServerCall(CLIENT_STREAMING);
    RecordingObserver<String> requests = new RecordingObserver<>();
    ServerCall.Listener<String> listener =
        ServerCalls.<String, String>asyncClientStreamingCall(observer -> requests)
            .startCall(call, new Metadata());

    listener.onHalfClose();
    call.cancelled = true;
    listener.onCancel();

    assertThat(requests.completed).isTrue();
    assertThat(requests.error).isNull();
  }

  // ---- handlers and flow control ----

  @Test
  void handlerSetters_afterTheMethodReturned_throwIllegalState() {
    FakeServerCall call = new FakeServerCall(BIDI_STREAMING);
    AtomicReference<ServerCallStreamObserver<String>> responses = new AtomicReference<>();
    ServerCalls.<String, String>asyncBidiStreamingCall(
            observer -> {
              responses.set((ServerCallStreamObserver<String>) observer);
              return new RecordingObserver<>();
            })
        .startCall(call, new Metadata());
    ServerCallStreamObserver<String> observer = responses.get();

    assertThatThrownBy(() -> observer.setOnCancelHandler(() -> {}))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("setOnCancelHandler");
    assertThatThrownBy(() -> observer.setOnReadyHandler(() -> {}))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> observer.setOnCloseHandler(() -> {}))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(observer::disableAutoInboundFlowControl)
        .isInstanceOf(IllegalStateException.class);
    // Sending and the per-message settings remain available.
    observer.request(1);
    observer.setMessageCompression(false);
    observer.onNext("still fine");
    assertThat(call.sentMessages).containsExactly("still fine");
  }

  @Test
  void onCloseHandler_runsWhenTheCallCompletes_notWhenCancelled() {
    AtomicInteger closeHandlerRuns = new AtomicInteger();
    ServerCallHandler<String, String> handler =
        ServerCalls.asyncUnaryCall(
            (request, observer) -> {
              ((ServerCallStreamObserver<String>) observer)
                  .setOnCloseHandler(closeHandlerRuns::incrementAndGet);
              observer.onNext(request);
              observer.onCompleted();
            });
    FakeServerCall completed = new FakeServerCall(UNARY);
    ServerCall.Listener<String> completedListener = handler.startCall(completed, new Metadata());
    completedListener.onMessage("a");
    completedListener.onHalfClose();
    FakeServerCall cancelled = new FakeServerCall(UNARY);
    ServerCall.Listener<String> cancelledListener = handler.startCall(cancelled, new Metadata());
    cancelledListener.onMessage("b");
    cancelledListener.onHalfClose();

    assertThat(closeHandlerRuns.get()).isZero(); // not before the status was sent
    completedListener.onComplete();
    cancelledListener.onCancel();

    assertThat(closeHandlerRuns.get()).isEqualTo(1);
  }

  @Test
  void bidi_requestsOneMessageAtATime_afterEachOnNextReturned() {
    FakeServerCall call = new FakeServerCall(BIDI_STREAMING);
    List<Integer> requestedDuringOnNext = new ArrayList<>();
    RecordingObserver<String> requests =
        new RecordingObserver<>() {
          @Override
          public void onNext(String value) {
            requestedDuringOnNext.add(call.requested);
            super.onNext(value);
          }
        };
    ServerCall.Listener<String> listener =
        ServerCalls.<String, String>asyncBidiStreamingCall(observer -> requests)
            .startCall(call, new Metadata());
    assertThat(call.requested).isEqualTo(1);

    listener.onMessage("a");
    listener.onMessage("b");
    listener.onHalfClose();

    assertThat(requestedDuringOnNext).containsExactly(1, 2);
    assertThat(call.requested).isEqualTo(3);
    assertThat(requests.values).containsExactly("a", "b");
    assertThat(requests.completed).isTrue();
  }

  @Test
  void bidi_disableAutoInboundFlowControl_leavesRequestsToTheApplication() {
    FakeServerCall call = new FakeServerCall(BIDI_STREAMING);
    AtomicReference<ServerCallStreamObserver<String>> responses = new AtomicReference<>();
    ServerCall.Listener<String> listener =
        ServerCalls.<String, String>asyncBidiStreamingCall(
                observer -> {
                  ServerCallStreamObserver<String> serverObserver =
                      (ServerCallStreamObserver<String>) observer;
                  serverObserver.disableAutoInboundFlowControl();
                  responses.set(serverObserver);
                  return new RecordingObserver<>();
                })
            .startCall(call, new Metadata());
    assertThat(call.requested).isZero();

    responses.get().request(5);
    listener.onMessage("a");

    assertThat(call.requested).isEqualTo(5);
    assertThatThrownBy(() -> responses.get().request(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("count");
  }

  @Test
  void onReadyHandler_streaming_runsOnEachOnReady() {
    FakeServerCall call = new FakeServerCall(SERVER_STREAMING);
    AtomicInteger readyRuns = new AtomicInteger();
    ServerCall.Listener<String> listener =
        ServerCalls.<String, String>asyncServerStreamingCall(
                (request, observer) ->
                    ((ServerCallStreamObserver<String>) observer)
                        .setOnReadyHandler(readyRuns::incrementAndGet))
            .startCall(call, new Metadata());
    listener.onMessage("x");
    listener.onHalfClose();

    listener.onReady();
    listener.onReady();

    assertThat(readyRuns.get()).isEqualTo(2);
  }

  @Test
  void onReadyHandler_readinessBeforeTheMethodRan_isReportedOnceItHasRun() {
    FakeServerCall call = new FakeServerCall(SERVER_STREAMING);
    AtomicInteger readyRuns = new AtomicInteger();
    ServerCall.Listener<String> listener =
        ServerCalls.<String, String>asyncServerStreamingCall(
                (request, observer) ->
                    ((ServerCallStreamObserver<String>) observer)
                        .setOnReadyHandler(readyRuns::incrementAndGet))
            .startCall(call, new Metadata());

    listener.onReady(); // before the request arrived: the method has not set its handler yet
    listener.onMessage("x");
    listener.onHalfClose();

    assertThat(readyRuns.get()).isEqualTo(1);
  }

  @Test
  void responseObserver_delegatesReadinessAndCompression() {
    FakeServerCall call = new FakeServerCall(BIDI_STREAMING);
    AtomicReference<ServerCallStreamObserver<String>> responses = new AtomicReference<>();
    ServerCalls.<String, String>asyncBidiStreamingCall(
            observer -> {
              responses.set((ServerCallStreamObserver<String>) observer);
              return new RecordingObserver<>();
            })
        .startCall(call, new Metadata());
    ServerCallStreamObserver<String> observer = responses.get();

    call.ready = false;
    assertThat(observer.isReady()).isFalse();
    observer.setCompression("gzip");
    observer.setMessageCompression(true);

    assertThat(call.compression).isEqualTo("gzip");
    assertThat(call.messageCompression).isTrue();
  }

  @Test
  void streamingMethodReturningNull_isReportedWithTheMethodName() {
    FakeServerCall call = new FakeServerCall(CLIENT_STREAMING);
    ServerCallHandler<String, String> handler =
        ServerCalls.asyncClientStreamingCall(observer -> null);

    assertThatThrownBy(() -> handler.startCall(call, new Metadata()))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("test.Echo/CLIENT_STREAMING");
  }

  // ---- unimplemented ----

  @Test
  void asyncUnimplementedUnaryCall_failsWithUnimplemented() {
    RecordingObserver<String> observer = new RecordingObserver<>();

    ServerCalls.asyncUnimplementedUnaryCall(StringMarshaller.method(UNARY), observer);

    Status status = Status.fromThrowable(observer.error);
    assertThat(status.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(status.getDescription()).isEqualTo("Method test.Echo/UNARY is unimplemented");
  }

  @Test
  void asyncUnimplementedStreamingCall_failsAndIgnoresRequests() {
    FakeServerCall call = new FakeServerCall(BIDI_STREAMING);
    ServerCall.Listener<String> listener =
        ServerCalls.<String, String>asyncBidiStreamingCall(
                observer ->
                    ServerCalls.asyncUnimplementedStreamingCall(
                        StringMarshaller.method(BIDI_STREAMING), observer))
            .startCall(call, new Metadata());

    listener.onMessage("ignored");
    listener.onHalfClose();

    assertThat(call.closeStatus.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(call.closeStatus.getDescription())
        .isEqualTo("Method test.Echo/BIDI_STREAMING is unimplemented");
  }

  @Test
  void factories_rejectNullMethods() {
    assertThatThrownBy(() -> ServerCalls.asyncUnaryCall(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("method");
    assertThatThrownBy(
            () -> ServerCalls.asyncUnimplementedUnaryCall(null, new RecordingObserver<>()))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("methodDescriptor");
  }

  private static Throwable catchThrowable(Runnable action) {
    try {
      action.run();
      return null;
    } catch (Throwable t) {
      return t;
    }
  }
}
