package dev.tern.stub;

import static dev.tern.MethodDescriptor.MethodType.SERVER_STREAMING;
import static dev.tern.MethodDescriptor.MethodType.UNARY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tern.CallOptions;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.internal.ThreadlessExecutor;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The blocking calls of {@link ClientCalls}: callbacks on the calling thread, interrupts. */
class ClientCallsBlockingTest {
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

  // ---- blocking unary ----

  @Test
  void blockingUnaryCall_returnsTheResponse() throws Exception {
    channel.respondOnHalfClose(call -> call.respond("pong"));

    String response =
        ClientCalls.blockingUnaryCall(
            channel, StringMarshaller.method(UNARY), CallOptions.DEFAULT, "ping");

    assertThat(response).isEqualTo("pong");
    FakeClientCall call = channel.takeCall();
    assertThat(call.sentMessages).containsExactly("ping");
    assertThat(call.halfClosed).isTrue();
    assertThat(call.callOptions.getExecutor()).isInstanceOf(ThreadlessExecutor.class);
    assertThat(call.callOptions.getOption(ClientCalls.STUB_TYPE_OPTION))
        .isEqualTo(ClientCalls.StubType.BLOCKING);
  }

  @Test
  void blockingUnaryCall_failure_throwsStatusAndTrailers() {
    channel.respondOnHalfClose(
        call -> call.deliverClose(Status.NOT_FOUND.withDescription("no such key"), trailers("k1")));

    StatusRuntimeException e =
        catchThrowableOfType(
            StatusRuntimeException.class,
            () ->
                ClientCalls.blockingUnaryCall(
                    channel, StringMarshaller.method(UNARY), CallOptions.DEFAULT, "ping"));

    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(e.getStatus().getDescription()).isEqualTo("no such key");
    assertThat(e.getTrailers().get(DETAIL)).isEqualTo("k1");
  }

  @Test
  void blockingUnaryCall_runsCallbacksOnTheCallingThread() throws Exception {
    // The "server" answers from a thread of its own, through the call's executor.
    channel.respondOnHalfClose(
        call -> {
          Thread responder = new Thread(() -> call.respond("pong"), "responder");
          responder.start();
        });
    AtomicReference<Thread> caller = new AtomicReference<>();
    CompletableFuture<String> result = new CompletableFuture<>();
    Thread callerThread =
        new Thread(
            () -> {
              caller.set(Thread.currentThread());
              result.complete(
                  ClientCalls.blockingUnaryCall(
                      channel, StringMarshaller.method(UNARY), CallOptions.DEFAULT, "ping"));
            },
            "caller");
    callerThread.start();

    assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("pong");
    FakeClientCall call = channel.takeCall();
    assertThat(call.callbackThreads).hasSize(2).containsOnly(caller.get());
  }

  @Test
  void blockingUnaryCall_interrupted_cancelsTheCallAndKeepsTheInterruptFlag() throws Exception {
    CompletableFuture<Throwable> thrown = new CompletableFuture<>();
    CompletableFuture<Boolean> stillInterrupted = new CompletableFuture<>();
    Thread callerThread =
        new Thread(
            () -> {
              try {
                ClientCalls.blockingUnaryCall(
                    channel, StringMarshaller.method(UNARY), CallOptions.DEFAULT, "ping");
                thrown.complete(null);
              } catch (Throwable t) {
                thrown.complete(t);
              }
              stillInterrupted.complete(Thread.currentThread().isInterrupted());
            },
            "caller");
    callerThread.start();
    FakeClientCall call = channel.takeCall();
    assertThat(call.awaitHalfClose()).isTrue();

    callerThread.interrupt();

    Throwable t = thrown.get(5, TimeUnit.SECONDS);
    assertThat(t).isInstanceOf(StatusRuntimeException.class);
    assertThat(((StatusRuntimeException) t).getStatus().getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(stillInterrupted.get(5, TimeUnit.SECONDS)).isTrue();
    assertThat(call.cancelled).isTrue();
    assertThat(call.cancelCause).isInstanceOf(InterruptedException.class);
  }

  @Test
  void blockingUnaryCall_alreadyInterrupted_cancelsAtOnce() throws Exception {
    Thread.currentThread().interrupt();

    assertThatThrownBy(
            () ->
                ClientCalls.blockingUnaryCall(
                    channel, StringMarshaller.method(UNARY), CallOptions.DEFAULT, "ping"))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.CANCELLED));
    assertThat(Thread.interrupted()).isTrue(); // set again, and cleared here
    assertThat(channel.takeCall().cancelled).isTrue();
  }

  @Test
  void blockingUnaryCall_okWithoutResponse_throwsUnimplemented() {
    channel.respondOnHalfClose(call -> call.deliverClose(Status.OK, new Metadata()));

    assertThatThrownBy(
            () ->
                ClientCalls.blockingUnaryCall(
                    channel, StringMarshaller.method(UNARY), CallOptions.DEFAULT, "ping"))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
              assertThat(e.getStatus().getDescription()).contains("Server sent no response");
            });
  }

  @Test
  void blockingUnaryCall_twoResponses_cancelsTheCallAndThrowsUnimplemented() throws Exception {
    channel.respondOnHalfClose(
        call -> {
          call.deliverMessage("one");
          call.deliverMessage("two");
        });

    assertThatThrownBy(
            () ->
                ClientCalls.blockingUnaryCall(
                    channel, StringMarshaller.method(UNARY), CallOptions.DEFAULT, "ping"))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
              assertThat(e.getStatus().getDescription())
                  .contains("Server sent more than one response");
            });
    FakeClientCall call = channel.takeCall();
    assertThat(call.cancelled).isTrue();
    assertThat(call.requested.get()).isEqualTo(2);
  }

  @Test
  void blockingUnaryCall_sendFails_cancelsTheCallAndRethrows() throws Exception {
    RuntimeException marshallerFailure = new IllegalStateException("cannot serialize");
    channel.failSendsWith(marshallerFailure);

    assertThatThrownBy(
            () ->
                ClientCalls.blockingUnaryCall(
                    channel, StringMarshaller.method(UNARY), CallOptions.DEFAULT, "ping"))
        .isSameAs(marshallerFailure);
    FakeClientCall call = channel.takeCall();
    assertThat(call.cancelled).isTrue();
    assertThat(call.cancelCause).isSameAs(marshallerFailure);
  }

  @Test
  void blockingUnaryCall_nullArguments_areNamed() {
    assertThatThrownBy(
            () ->
                ClientCalls.blockingUnaryCall(
                    null, StringMarshaller.method(UNARY), CallOptions.DEFAULT, "x"))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("channel");
    assertThatThrownBy(
            () -> ClientCalls.blockingUnaryCall(channel, StringMarshaller.method(UNARY), null, "x"))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("callOptions");
  }

  // ---- blocking server streaming ----

  @Test
  void blockingServerStreamingCall_requestsOneMessageAtATime() throws Exception {
    Iterator<String> responses =
        ClientCalls.blockingServerStreamingCall(
            channel, StringMarshaller.method(SERVER_STREAMING), CallOptions.DEFAULT, "list");
    FakeClientCall call = channel.takeCall();
    assertThat(call.sentMessages).containsExactly("list");
    assertThat(call.halfClosed).isTrue();
    assertThat(call.requested.get()).isEqualTo(1);

    call.deliverMessage("a");
    assertThat(responses.hasNext()).isTrue();
    assertThat(call.requested.get()).isEqualTo(1); // hasNext alone asks for nothing more
    assertThat(responses.next()).isEqualTo("a");
    assertThat(call.requested.get()).isEqualTo(2);

    call.deliverMessage("b");
    assertThat(responses.next()).isEqualTo("b");
    assertThat(call.requested.get()).isEqualTo(3);

    call.deliverClose(Status.OK, new Metadata());
    assertThat(responses.hasNext()).isFalse();
    assertThatThrownBy(responses::next).isInstanceOf(NoSuchElementException.class);
  }

  @Test
  void blockingServerStreamingCall_failure_isThrownAfterTheMessagesBeforeIt() throws Exception {
    Iterator<String> responses =
        ClientCalls.blockingServerStreamingCall(
            channel, StringMarshaller.method(SERVER_STREAMING), CallOptions.DEFAULT, "list");
    FakeClientCall call = channel.takeCall();
    call.deliverMessage("a");
    call.deliverClose(Status.DATA_LOSS.withDescription("disk broke"), trailers("sector 7"));

    assertThat(responses.next()).isEqualTo("a");
    StatusRuntimeException fromHasNext =
        catchThrowableOfType(StatusRuntimeException.class, responses::hasNext);
    assertThat(fromHasNext.getStatus().getCode()).isEqualTo(Status.Code.DATA_LOSS);
    assertThat(fromHasNext.getTrailers().get(DETAIL)).isEqualTo("sector 7");
    StatusRuntimeException fromNext =
        catchThrowableOfType(StatusRuntimeException.class, responses::next);
    assertThat(fromNext.getStatus().getCode()).isEqualTo(Status.Code.DATA_LOSS);
  }

  @Test
  void blockingServerStreamingCall_waitsOnTheConsumingThreadForMessagesFromAnother()
      throws Exception {
    channel.respondOnHalfClose(
        call ->
            new Thread(
                    () -> {
                      call.deliverMessage("a");
                      call.deliverMessage("b");
                      call.deliverClose(Status.OK, new Metadata());
                    },
                    "responder")
                .start());
    Iterator<String> responses =
        ClientCalls.blockingServerStreamingCall(
            channel, StringMarshaller.method(SERVER_STREAMING), CallOptions.DEFAULT, "list");

    assertThat(responses.next()).isEqualTo("a");
    assertThat(responses.next()).isEqualTo("b");
    assertThat(responses.hasNext()).isFalse();
    assertThat(channel.takeCall().callbackThreads).hasSize(3).containsOnly(Thread.currentThread());
  }

  @Test
  void blockingServerStreamingCall_interrupted_cancelsAndThrowsCancelled() throws Exception {
    Iterator<String> responses =
        ClientCalls.blockingServerStreamingCall(
            channel, StringMarshaller.method(SERVER_STREAMING), CallOptions.DEFAULT, "list");
    FakeClientCall call = channel.takeCall();
    Thread.currentThread().interrupt();

    StatusRuntimeException e =
        catchThrowableOfType(StatusRuntimeException.class, responses::hasNext);

    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(e.getCause()).isInstanceOf(InterruptedException.class);
    assertThat(Thread.interrupted()).isTrue();
    assertThat(call.cancelled).isTrue();
    // The iterator stays failed.
    assertThatThrownBy(responses::hasNext).isInstanceOf(StatusRuntimeException.class);
  }
}
