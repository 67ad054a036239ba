package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.MethodDescriptor.MethodType;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.StatusException;
import dev.tern.StatusRuntimeException;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.stub.BlockingClientCall;
import dev.tern.stub.BlockingServerCalls;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCalls;
import dev.tern.stub.StreamObserver;
import dev.tern.testing.LogCapture;
import dev.tern.testing.RecordingClientCallListener;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testing.TestMarshallers;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Message cardinality against real servers, in-process and over HTTP/2: a unary or client-streaming
 * call that gets zero or two responses, and a unary or server-streaming handler that gets zero or
 * two requests, end {@code UNIMPLEMENTED}, as gRPC's status-code table (doc/statuscodes.md) says,
 * whichever stub style makes the call or serves it.
 */
class CardinalityStatusTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static final String SERVICE = "test.Cardinality";
  private static final String NO_RESPONSE =
      "Server sent no response for a unary or client-streaming call, which needs exactly one";
  private static final String TWO_RESPONSES =
      "Server sent more than one response for a unary or client-streaming call, which needs"
          + " exactly one";

  // A server that breaks the response cardinality, written against the raw ServerCall API.
  private static final MethodDescriptor<String, String> NO_REPLY =
      method("NoReply", MethodType.UNARY);
  private static final MethodDescriptor<String, String> TWO_REPLIES =
      method("TwoReplies", MethodType.UNARY);
  private static final MethodDescriptor<String, String> JOIN_NO_REPLY =
      method("JoinNoReply", MethodType.CLIENT_STREAMING);
  private static final MethodDescriptor<String, String> JOIN_TWO_REPLIES =
      method("JoinTwoReplies", MethodType.CLIENT_STREAMING);

  // Correct handlers from the stubs, which must police the request cardinality.
  private static final MethodDescriptor<String, String> ECHO = method("Echo", MethodType.UNARY);
  private static final MethodDescriptor<String, String> REPEAT =
      method("Repeat", MethodType.SERVER_STREAMING);
  private static final MethodDescriptor<String, String> BLOCKING_ECHO =
      method("BlockingEcho", MethodType.UNARY);
  private static final MethodDescriptor<String, String> BLOCKING_REPEAT =
      method("BlockingRepeat", MethodType.SERVER_STREAMING);

  // Stub handlers that forget their one response.
  private static final MethodDescriptor<String, String> FORGETFUL =
      method("Forgetful", MethodType.UNARY);
  private static final MethodDescriptor<String, String> FORGETFUL_JOIN =
      method("ForgetfulJoin", MethodType.CLIENT_STREAMING);
  private static final MethodDescriptor<String, String> BLOCKING_NULL =
      method("BlockingNull", MethodType.UNARY);

  /** The transports under test; each starts a server with {@link #service()} and a channel. */
  enum Transport {
    IN_PROCESS {
      @Override
      ManagedChannel start(TernCleanupExtension cleanup) throws IOException {
        String name = cleanup.uniqueName();
        cleanup
            .register(InProcessServerBuilder.forName(name).addService(service()).build())
            .start();
        return cleanup.register(InProcessChannelBuilder.forName(name).build());
      }
    },
    NETTY {
      @Override
      ManagedChannel start(TernCleanupExtension cleanup) throws IOException {
        Server server =
            cleanup.register(
                NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                    .addService(service())
                    .build());
        server.start();
        return cleanup.register(
            NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build());
      }
    };

    abstract ManagedChannel start(TernCleanupExtension cleanup) throws IOException;
  }

  private static MethodDescriptor<String, String> method(String name, MethodType type) {
    return MethodDescriptor.newBuilder(TestMarshallers.utf8(), TestMarshallers.utf8())
        .setFullMethodName(SERVICE + "/" + name)
        .setType(type)
        .build();
  }

  private static ServerServiceDefinition service() {
    return ServerServiceDefinition.builder(SERVICE)
        .addMethod(NO_REPLY, replying(0))
        .addMethod(TWO_REPLIES, replying(2))
        .addMethod(JOIN_NO_REPLY, replying(0))
        .addMethod(JOIN_TWO_REPLIES, replying(2))
        .addMethod(
            ECHO,
            ServerCalls.asyncUnaryCall(
                (request, responses) -> {
                  responses.onNext(request);
                  responses.onCompleted();
                }))
        .addMethod(
            REPEAT,
            ServerCalls.asyncServerStreamingCall(
                (request, responses) -> {
                  responses.onNext(request);
                  responses.onCompleted();
                }))
        .addMethod(BLOCKING_ECHO, BlockingServerCalls.unaryCall(request -> request))
        .addMethod(
            BLOCKING_REPEAT,
            BlockingServerCalls.serverStreamingCall(
                (request, responses) -> responses.write(request)))
        .addMethod(
            FORGETFUL, ServerCalls.asyncUnaryCall((request, responses) -> responses.onCompleted()))
        .addMethod(
            FORGETFUL_JOIN,
            ServerCalls.asyncClientStreamingCall(
                responses ->
                    new StreamObserver<String>() {
                      @Override
                      public void onNext(String value) {}

                      @Override
                      public void onError(Throwable t) {}

                      @Override
                      public void onCompleted() {
                        responses.onCompleted();
                      }
                    }))
        .addMethod(BLOCKING_NULL, BlockingServerCalls.unaryCall(request -> null))
        .build();
  }

  /** A raw handler that reads every request and, once the client half-closed, sends {@code n}. */
  private static ServerCallHandler<String, String> replying(int n) {
    return (call, headers) -> {
      call.request(Integer.MAX_VALUE);
      return new ServerCall.Listener<>() {
        @Override
        public void onHalfClose() {
          call.sendHeaders(new Metadata());
          for (int i = 0; i < n; i++) {
            call.sendMessage("reply " + i);
          }
          call.close(Status.OK, new Metadata());
        }
      };
    };
  }

  private static CallOptions options() {
    return CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  // ---- response cardinality, checked by the client's stubs

  @ParameterizedTest
  @EnumSource(Transport.class)
  void blockingUnaryCall_zeroOrTwoResponses_isUnimplemented(Transport transport) throws Exception {
    ManagedChannel channel = transport.start(cleanup);

    assertThat(blockingUnaryFailure(channel, NO_REPLY)).isEqualTo(unimplemented(NO_RESPONSE));
    assertThat(blockingUnaryFailure(channel, TWO_REPLIES)).isEqualTo(unimplemented(TWO_RESPONSES));
    assertThat(blockingV2UnaryFailure(channel, NO_REPLY)).isEqualTo(unimplemented(NO_RESPONSE));
    assertThat(blockingV2UnaryFailure(channel, TWO_REPLIES))
        .isEqualTo(unimplemented(TWO_RESPONSES));
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void futureAndAsyncUnaryCalls_zeroOrTwoResponses_areUnimplemented(Transport transport)
      throws Exception {
    ManagedChannel channel = transport.start(cleanup);

    assertThat(futureFailure(channel, NO_REPLY)).isEqualTo(unimplemented(NO_RESPONSE));
    assertThat(futureFailure(channel, TWO_REPLIES)).isEqualTo(unimplemented(TWO_RESPONSES));
    assertThat(asyncUnaryFailure(channel, NO_REPLY)).isEqualTo(unimplemented(NO_RESPONSE));
    assertThat(asyncUnaryFailure(channel, TWO_REPLIES)).isEqualTo(unimplemented(TWO_RESPONSES));
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void clientStreamingCalls_zeroOrTwoResponses_areUnimplemented(Transport transport)
      throws Exception {
    ManagedChannel channel = transport.start(cleanup);

    assertThat(asyncClientStreamingFailure(channel, JOIN_NO_REPLY))
        .isEqualTo(unimplemented(NO_RESPONSE));
    assertThat(asyncClientStreamingFailure(channel, JOIN_TWO_REPLIES))
        .isEqualTo(unimplemented(TWO_RESPONSES));
    assertThat(blockingClientStreamingFailure(channel, JOIN_NO_REPLY))
        .isEqualTo(unimplemented(NO_RESPONSE));
    assertThat(blockingClientStreamingFailure(channel, JOIN_TWO_REPLIES))
        .isEqualTo(unimplemented(TWO_RESPONSES));
  }

  // ---- request cardinality, checked by the server's stubs

  @ParameterizedTest
  @EnumSource(Transport.class)
  void handlersOfOneRequest_zeroOrTwoRequests_areUnimplemented(Transport transport)
      throws Exception {
    ManagedChannel channel = transport.start(cleanup);

    for (MethodDescriptor<String, String> method :
        List.of(ECHO, REPEAT, BLOCKING_ECHO, BLOCKING_REPEAT)) {
      String name = method.getFullMethodName();
      assertThat(rawCall(channel, method, 0))
          .as(name)
          .isEqualTo(
              unimplemented("Half-closed without a request: " + name + " takes exactly one"));
      assertThat(rawCall(channel, method, 2))
          .as(name)
          .isEqualTo(unimplemented("Too many requests: " + name + " takes exactly one"));
      assertThat(rawCall(channel, method, 1)).as(name).isEqualTo(text(Status.OK));
      // Noticed as the second request arrives, not at the half-close: nothing piles up.
      assertThat(rawCall(channel, method, 2, false))
          .as(name)
          .isEqualTo(unimplemented("Too many requests: " + name + " takes exactly one"));
    }
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void streamObserverHandlerCompletingWithoutItsResponse_isUnimplemented(Transport transport)
      throws Exception {
    ManagedChannel channel = transport.start(cleanup);

    assertThat(blockingUnaryFailure(channel, FORGETFUL))
        .isEqualTo(
            unimplemented(
                "Completed without a response: "
                    + FORGETFUL.getFullMethodName()
                    + " must send exactly one"));
    assertThat(blockingClientStreamingFailure(channel, FORGETFUL_JOIN))
        .isEqualTo(
            unimplemented(
                "Completed without a response: "
                    + FORGETFUL_JOIN.getFullMethodName()
                    + " must send exactly one"));
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void blockingHandlerReturningNull_isAnApplicationError(Transport transport) throws Exception {
    ManagedChannel channel = transport.start(cleanup);

    try (LogCapture log = new LogCapture(BlockingServerCalls.class)) {
      assertThat(blockingUnaryFailure(channel, BLOCKING_NULL))
          .isEqualTo(text(Status.UNKNOWN.withDescription("Application error processing RPC")));
      assertThat(log.records())
          .singleElement()
          .satisfies(
              record -> {
                assertThat(record.getLevel()).isEqualTo(Level.WARNING);
                assertThat(record.getThrown())
                    .hasMessage("the blocking method returned a null response");
              })
          .extracting(LogRecord::getMessage)
          .asString()
          .contains(BLOCKING_NULL.getFullMethodName());
    }
  }

  // ---- helpers: each makes one call and returns the status it failed with, as text

  /** The code and description of {@code status}, which assertions can compare and print. */
  private static String text(Status status) {
    return status.getCode() + ": " + status.getDescription();
  }

  private static String unimplemented(String description) {
    return text(Status.UNIMPLEMENTED.withDescription(description));
  }

  private static String blockingUnaryFailure(
      ManagedChannel channel, MethodDescriptor<String, String> method) {
    StatusRuntimeException e =
        catchThrowableOfType(
            StatusRuntimeException.class,
            () -> ClientCalls.blockingUnaryCall(channel, method, options(), "request"));
    return e == null ? "no failure" : text(e.getStatus());
  }

  private static String blockingV2UnaryFailure(
      ManagedChannel channel, MethodDescriptor<String, String> method) {
    StatusException e =
        catchThrowableOfType(
            StatusException.class,
            () -> ClientCalls.blockingV2UnaryCall(channel, method, options(), "request"));
    return e == null ? "no failure" : text(e.getStatus());
  }

  private static String futureFailure(
      ManagedChannel channel, MethodDescriptor<String, String> method) throws Exception {
    CompletableFuture<String> future =
        ClientCalls.futureUnaryCall(channel.newCall(method, options()), "request");
    ExecutionException e =
        catchThrowableOfType(ExecutionException.class, () -> future.get(10, TimeUnit.SECONDS));
    return e == null ? "no failure" : text(Status.fromThrowable(e.getCause()));
  }

  private static String asyncUnaryFailure(
      ManagedChannel channel, MethodDescriptor<String, String> method) throws Exception {
    ResultObserver observer = new ResultObserver();
    ClientCalls.asyncUnaryCall(channel.newCall(method, options()), "request", observer);
    return observer.outcome();
  }

  private static String asyncClientStreamingFailure(
      ManagedChannel channel, MethodDescriptor<String, String> method) throws Exception {
    ResultObserver observer = new ResultObserver();
    StreamObserver<String> requests =
        ClientCalls.asyncClientStreamingCall(channel.newCall(method, options()), observer);
    requests.onNext("one");
    requests.onNext("two");
    requests.onCompleted();
    return observer.outcome();
  }

  private static String blockingClientStreamingFailure(
      ManagedChannel channel, MethodDescriptor<String, String> method) throws Exception {
    BlockingClientCall<String, String> call =
        ClientCalls.blockingClientStreamingCall(channel, method, options());
    call.write("one");
    call.write("two");
    call.halfClose();
    StatusException e = catchThrowableOfType(StatusException.class, call::read);
    return e == null ? "no failure" : text(e.getStatus());
  }

  /** Sends {@code requests} requests on a raw call and returns the status it closed with. */
  private static String rawCall(
      ManagedChannel channel, MethodDescriptor<String, String> method, int requests) {
    return rawCall(channel, method, requests, true);
  }

  /** As above; without {@code halfClose}, the call stays open until the server ends it. */
  private static String rawCall(
      ManagedChannel channel,
      MethodDescriptor<String, String> method,
      int requests,
      boolean halfClose) {
    // Without a half-close, the client calls the method as bidi-streaming, which sends each
    // request at once (a one-request call's request waits for the half-close).
    MethodDescriptor<String, String> asCalled =
        halfClose ? method : method.toBuilder().setType(MethodType.BIDI_STREAMING).build();
    ClientCall<String, String> call = channel.newCall(asCalled, options());
    RecordingClientCallListener<String> listener = new RecordingClientCallListener<>();
    call.start(listener, new Metadata());
    call.request(10);
    for (int i = 0; i < requests; i++) {
      call.sendMessage("request " + i);
    }
    if (halfClose) {
      call.halfClose();
    }
    Status status = listener.awaitStatus();
    assertThat(listener.violations()).isEmpty();
    return text(status);
  }

  /** Records how an asynchronous call ended. */
  private static final class ResultObserver implements StreamObserver<String> {
    private final CompletableFuture<String> outcome = new CompletableFuture<>();
    private int responses;

    @Override
    public void onNext(String value) {
      responses++;
    }

    @Override
    public void onError(Throwable t) {
      outcome.complete(text(Status.fromThrowable(t)));
    }

    @Override
    public void onCompleted() {
      outcome.complete("completed after " + responses + " responses");
    }

    String outcome() throws Exception {
      return outcome.get(10, TimeUnit.SECONDS);
    }
  }
}
