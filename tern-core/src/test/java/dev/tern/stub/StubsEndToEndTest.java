package dev.tern.stub;

import static dev.tern.MethodDescriptor.MethodType.BIDI_STREAMING;
import static dev.tern.MethodDescriptor.MethodType.CLIENT_STREAMING;
import static dev.tern.MethodDescriptor.MethodType.SERVER_STREAMING;
import static dev.tern.MethodDescriptor.MethodType.UNARY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tern.CallOptions;
import dev.tern.ClientInterceptors;
import dev.tern.ForwardingServerCall;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.ServerInterceptors;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The stubs against a real in-process server and channel. */
class StubsEndToEndTest {
  private static final MethodDescriptor<String, String> ECHO = method(UNARY, "Echo");
  private static final MethodDescriptor<String, String> COUNT = method(SERVER_STREAMING, "Count");
  private static final MethodDescriptor<String, String> JOIN = method(CLIENT_STREAMING, "Join");
  private static final MethodDescriptor<String, String> CHAT = method(BIDI_STREAMING, "Chat");
  private static final MethodDescriptor<String, String> PACED = method(BIDI_STREAMING, "Paced");
  private static final MethodDescriptor<String, String> MISSING = method(UNARY, "Missing");
  private static final Metadata.Key<String> DETAIL =
      Metadata.Key.of("detail", Metadata.ASCII_STRING_MARSHALLER);

  private Server server;
  private ManagedChannel channel;

  // What the service saw.
  private final CountDownLatch echoHangInvoked = new CountDownLatch(1);
  private final CountDownLatch echoCancelled = new CountDownLatch(1);
  private final AtomicReference<ServerCallStreamObserver<String>> hungEcho =
      new AtomicReference<>();
  private final BlockingQueue<Integer> countPauses = new LinkedBlockingQueue<>();
  private final CompletableFuture<ServerCallStreamObserver<String>> joinStarted =
      new CompletableFuture<>();
  private final BlockingQueue<String> joinReceived = new LinkedBlockingQueue<>();
  private final CountDownLatch chatStarted = new CountDownLatch(1);
  private final CountDownLatch chatCancelled = new CountDownLatch(1);
  private final CompletableFuture<Throwable> chatRequestError = new CompletableFuture<>();

  private static MethodDescriptor<String, String> method(
      MethodDescriptor.MethodType type, String name) {
    return MethodDescriptor.newBuilder(StringMarshaller.INSTANCE, StringMarshaller.INSTANCE)
        .setType(type)
        .setFullMethodName("test.Stubs/" + name)
        .build();
  }

  @BeforeEach
  void startServerAndChannel() throws Exception {
    String name = InProcessServerBuilder.generateName();
    server = InProcessServerBuilder.forName(name).addService(service()).build().start();
    channel = InProcessChannelBuilder.forName(name).build();
  }

  @AfterEach
  void shutDown() throws InterruptedException {
    channel.shutdownNow();
    server.shutdownNow();
    assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }

  private ServerServiceDefinition service() {
    return ServerServiceDefinition.builder("test.Stubs")
        .addMethod(ECHO, ServerCalls.asyncUnaryCall(this::echo))
        .addMethod(COUNT, ServerCalls.asyncServerStreamingCall(this::count))
        .addMethod(JOIN, ServerCalls.asyncClientStreamingCall(this::join))
        .addMethod(CHAT, ServerCalls.asyncBidiStreamingCall(this::chat))
        .addMethod(PACED, ServerCalls.asyncBidiStreamingCall(this::paced))
        .addMethod(
            MISSING,
            ServerCalls.asyncUnaryCall(
                (request, observer) -> ServerCalls.asyncUnimplementedUnaryCall(MISSING, observer)))
        .build();
  }

  /** "hang" never answers; "fail..." fails with trailers; anything else is echoed. */
  private void echo(String request, StreamObserver<String> responses) {
    ServerCallStreamObserver<String> serverResponses = (ServerCallStreamObserver<String>) responses;
    if (request.equals("hang")) {
      serverResponses.setOnCancelHandler(echoCancelled::countDown);
      hungEcho.set(serverResponses);
      echoHangInvoked.countDown();
    } else if (request.startsWith("fail")) {
      Metadata trailers = new Metadata();
      trailers.put(DETAIL, "about " + request);
      responses.onError(
          Status.FAILED_PRECONDITION
              .withDescription("cannot " + request)
              .asRuntimeException(trailers));
    } else {
      responses.onNext("echo:" + request);
      responses.onCompleted();
    }
  }

  /**
   * Sends "0".."n-1", only while the client can take more; records how many were sent each time it
   * has to pause.
   */
  private void count(String request, StreamObserver<String> responses) {
    ServerCallStreamObserver<String> serverResponses = (ServerCallStreamObserver<String>) responses;
    int total = Integer.parseInt(request);
    Runnable sendWhileReady = new SendWhileReady(serverResponses, total, countPauses);
    serverResponses.setOnReadyHandler(sendWhileReady);
    sendWhileReady.run();
  }

  /** Joins the requests; the test decides how many it reads (manual flow control). */
  private StreamObserver<String> join(StreamObserver<String> responses) {
    ServerCallStreamObserver<String> serverResponses = (ServerCallStreamObserver<String>) responses;
    serverResponses.disableAutoInboundFlowControl();
    joinStarted.complete(serverResponses);
    StringBuilder joined = new StringBuilder();
    return new StreamObserver<String>() {
      @Override
      public void onNext(String value) {
        joined.append(value);
        joinReceived.add(value);
      }

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {
        responses.onNext(joined.toString());
        responses.onCompleted();
      }
    };
  }

  /** Answers each message upper-cased. */
  private StreamObserver<String> chat(StreamObserver<String> responses) {
    ((ServerCallStreamObserver<String>) responses).setOnCancelHandler(chatCancelled::countDown);
    chatStarted.countDown();
    return new StreamObserver<String>() {
      @Override
      public void onNext(String value) {
        responses.onNext(value.toUpperCase(Locale.ROOT));
      }

      @Override
      public void onError(Throwable t) {
        chatRequestError.complete(t);
      }

      @Override
      public void onCompleted() {
        responses.onCompleted();
      }
    };
  }

  // ---- unary ----

  @Test
  void blockingUnary_returnsTheResponse() {
    assertThat(ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT, "hi"))
        .isEqualTo("echo:hi");
  }

  @Test
  void blockingUnary_failure_carriesTheServersStatusAndTrailers() {
    StatusRuntimeException e =
        catchThrowableOfType(
            StatusRuntimeException.class,
            () -> ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT, "fail-me"));

    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(e.getStatus().getDescription()).isEqualTo("cannot fail-me");
    assertThat(e.getTrailers().get(DETAIL)).isEqualTo("about fail-me");
  }

  @Test
  void serverInterceptorSendHeaders_addsResponseHeadersToAStubsResponse() throws Exception {
    Metadata.Key<String> added =
        Metadata.Key.of("added-by-interceptor", Metadata.ASCII_STRING_MARSHALLER);
    ServerInterceptor addHeader =
        new ServerInterceptor() {
          @Override
          public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
              ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
            return next.startCall(
                new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
                  @Override
                  public void sendHeaders(Metadata responseHeaders) {
                    responseHeaders.put(added, "yes");
                    super.sendHeaders(responseHeaders);
                  }
                },
                headers);
          }
        };
    String name = InProcessServerBuilder.generateName();
    Server intercepted =
        InProcessServerBuilder.forName(name)
            .addService(ServerInterceptors.intercept(service(), addHeader))
            .build()
            .start();
    ManagedChannel toIntercepted = InProcessChannelBuilder.forName(name).build();
    try {
      AtomicReference<Metadata> responseHeaders = new AtomicReference<>();
      AtomicReference<Metadata> trailers = new AtomicReference<>();
      String reply =
          ClientCalls.blockingUnaryCall(
              ClientInterceptors.intercept(
                  toIntercepted,
                  MetadataUtils.newCaptureMetadataInterceptor(responseHeaders, trailers)),
              ECHO,
              CallOptions.DEFAULT,
              "hi");

      assertThat(reply).isNotNull();
      assertThat(responseHeaders.get().get(added)).isEqualTo("yes");
    } finally {
      toIntercepted.shutdownNow();
      intercepted.shutdownNow();
      assertThat(toIntercepted.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
      assertThat(intercepted.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void futureAndAsyncUnary_deliverTheResponse() throws Exception {
    CompletableFuture<String> future =
        ClientCalls.futureUnaryCall(channel.newCall(ECHO, CallOptions.DEFAULT), "f");
    RecordingObserver<String> observer = new RecordingObserver<>();
    ClientCalls.asyncUnaryCall(channel.newCall(ECHO, CallOptions.DEFAULT), "a", observer);

    assertThat(future.get(5, TimeUnit.SECONDS)).isEqualTo("echo:f");
    assertThat(observer.awaitDone()).isTrue();
    assertThat(observer.values).containsExactly("echo:a");
    assertThat(observer.completed).isTrue();
  }

  @Test
  void unimplementedMethod_failsWithUnimplemented() {
    StatusRuntimeException e =
        catchThrowableOfType(
            StatusRuntimeException.class,
            () -> ClientCalls.blockingUnaryCall(channel, MISSING, CallOptions.DEFAULT, "x"));

    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(e.getStatus().getDescription())
        .isEqualTo("Method test.Stubs/Missing is unimplemented");
  }

  @Test
  void deadlineExceeded_failsTheBlockingCall_andCancelsItOnTheServer() throws Exception {
    CallOptions withDeadline = CallOptions.DEFAULT.withDeadlineAfter(500, TimeUnit.MILLISECONDS);

    StatusRuntimeException e =
        catchThrowableOfType(
            StatusRuntimeException.class,
            () -> ClientCalls.blockingUnaryCall(channel, ECHO, withDeadline, "hang"));

    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(echoHangInvoked.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(echoCancelled.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(hungEcho.get().isCancelled()).isTrue();
  }

  @Test
  void cancellingTheFuture_cancelsTheCallOnTheServer() throws Exception {
    CompletableFuture<String> future =
        ClientCalls.futureUnaryCall(channel.newCall(ECHO, CallOptions.DEFAULT), "hang");
    assertThat(echoHangInvoked.await(5, TimeUnit.SECONDS)).isTrue();

    assertThat(future.cancel(true)).isTrue();

    assertThat(echoCancelled.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(hungEcho.get().isCancelled()).isTrue();
  }

  // ---- server streaming ----

  @Test
  void blockingServerStreaming_pullsOneResponseAtATime() throws Exception {
    Iterator<String> responses =
        ClientCalls.blockingServerStreamingCall(channel, COUNT, CallOptions.DEFAULT, "5");

    // Nothing consumed yet: the server could send only the one response requested so far.
    assertThat(countPauses.poll(5, TimeUnit.SECONDS)).isEqualTo(1);
    List<String> received = new ArrayList<>();
    responses.forEachRemaining(received::add);

    assertThat(received).containsExactly("0", "1", "2", "3", "4");
  }

  @Test
  void asyncServerStreaming_manualFlowControl_limitsWhatTheServerSends() throws Exception {
    AtomicReference<ClientCallStreamObserver<String>> requestStream = new AtomicReference<>();
    BlockingQueue<String> received = new LinkedBlockingQueue<>();
    CompletableFuture<Void> completed = new CompletableFuture<>();
    ClientResponseObserver<String, String> observer =
        new ClientResponseObserver<String, String>() {
          @Override
          public void beforeStart(ClientCallStreamObserver<String> stream) {
            stream.disableAutoRequestWithInitialRequest(0);
            requestStream.set(stream);
          }

          @Override
          public void onNext(String value) {
            received.add(value);
          }

          @Override
          public void onError(Throwable t) {
            completed.completeExceptionally(t);
          }

          @Override
          public void onCompleted() {
            completed.complete(null);
          }
        };

    ClientCalls.asyncServerStreamingCall(
        channel.newCall(COUNT, CallOptions.DEFAULT), "8", observer);
    assertThat(countPauses.poll(5, TimeUnit.SECONDS)).isZero(); // nothing requested yet

    requestStream.get().request(3);
    assertThat(countPauses.poll(5, TimeUnit.SECONDS)).isEqualTo(3);
    List<String> firstBatch = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      firstBatch.add(received.poll(5, TimeUnit.SECONDS));
    }
    assertThat(firstBatch).containsExactly("0", "1", "2");

    requestStream.get().request(10);
    completed.get(5, TimeUnit.SECONDS);
    assertThat(received).containsExactly("3", "4", "5", "6", "7");
  }

  // ---- client streaming ----

  @Test
  void asyncClientStreaming_sendsOnlyWhileTheServerIsReady() throws Exception {
    int total = 10;
    BlockingQueue<Integer> clientPauses = new LinkedBlockingQueue<>();
    RecordingClientResponseObserver observer =
        new RecordingClientResponseObserver(
            stream -> stream.setOnReadyHandler(new SendWhileReady(stream, total, clientPauses)));

    ClientCalls.asyncClientStreamingCall(channel.newCall(JOIN, CallOptions.DEFAULT), observer);
    ServerCallStreamObserver<String> serverSide = joinStarted.get(5, TimeUnit.SECONDS);
    serverSide.request(4);
    for (int i = 0; i < 4; i++) {
      assertThat(joinReceived.poll(5, TimeUnit.SECONDS)).isEqualTo(Integer.toString(i));
    }
    assertThat(awaitNonZero(clientPauses)).isEqualTo(4);

    serverSide.request(total - 4);
    assertThat(observer.awaitDone()).isTrue();
    assertThat(observer.values).containsExactly("0123456789");
    assertThat(observer.completed).isTrue();
  }

  // ---- bidi ----

  /**
   * Manual flow control as grpc-java's manualflowcontrol example writes it: the server asks for its
   * first message only from its on-ready handler, so it relies on the call's first onReady, which
   * comes once the call has started and can send.
   */
  private StreamObserver<String> paced(StreamObserver<String> responses) {
    ServerCallStreamObserver<String> call = (ServerCallStreamObserver<String>) responses;
    call.disableAutoRequest();
    AtomicBoolean wasReady = new AtomicBoolean();
    call.setOnReadyHandler(
        () -> {
          if (call.isReady() && wasReady.compareAndSet(false, true)) {
            call.request(1);
          }
        });
    return new StreamObserver<>() {
      @Override
      public void onNext(String value) {
        responses.onNext(value.toUpperCase(Locale.ROOT));
        call.request(1);
      }

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {
        responses.onCompleted();
      }
    };
  }

  @Test
  void aServerThatRequestsOnlyWhenReadyGetsItsFirstOnReady() throws Exception {
    RecordingObserver<String> observer = new RecordingObserver<>();
    StreamObserver<String> requests =
        ClientCalls.asyncBidiStreamingCall(channel.newCall(PACED, CallOptions.DEFAULT), observer);

    requests.onNext("hello");
    requests.onNext("world");
    requests.onCompleted();

    assertThat(observer.awaitDone()).isTrue();
    assertThat(observer.values).containsExactly("HELLO", "WORLD");
  }

  @Test
  void asyncBidi_exchangesMessages() throws Exception {
    RecordingObserver<String> observer = new RecordingObserver<>();
    StreamObserver<String> requests =
        ClientCalls.asyncBidiStreamingCall(channel.newCall(CHAT, CallOptions.DEFAULT), observer);

    requests.onNext("hello");
    requests.onNext("world");
    requests.onCompleted();

    assertThat(observer.awaitDone()).isTrue();
    assertThat(observer.values).containsExactly("HELLO", "WORLD");
    assertThat(observer.completed).isTrue();
  }

  @Test
  void bidiCancelledByTheClient_reachesTheServersHandlerAndRequestObserver() throws Exception {
    RecordingObserver<String> observer = new RecordingObserver<>();
    ClientCallStreamObserver<String> requests =
        (ClientCallStreamObserver<String>)
            ClientCalls.asyncBidiStreamingCall(
                channel.newCall(CHAT, CallOptions.DEFAULT), observer);
    requests.onNext("ping");
    // A call its client cancels before the server's executor started it is dropped without running
    // its handler (ServerCallDispatcher): cancel once the handler runs.
    assertThat(chatStarted.await(5, TimeUnit.SECONDS)).isTrue();

    requests.cancel("user left", null);

    assertThat(chatCancelled.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(Status.fromThrowable(chatRequestError.get(5, TimeUnit.SECONDS)).getCode())
        .isEqualTo(Status.Code.CANCELLED);
    assertThat(observer.awaitDone()).isTrue();
    Status clientStatus = Status.fromThrowable(observer.error);
    assertThat(clientStatus.getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(clientStatus.getDescription()).contains("user left");
  }

  /** Skips the pauses from before the server asked for anything. */
  private static int awaitNonZero(BlockingQueue<Integer> pauses) throws InterruptedException {
    Integer pause;
    do {
      pause = pauses.poll(5, TimeUnit.SECONDS);
      assertThat(pause).isNotNull();
    } while (pause == 0);
    return pause;
  }

  /**
   * An on-ready handler sending "0".."total-1" only while the stream is ready, then completing it.
   * Each time it has to stop early it records how many it had sent (once per distinct count). Runs
   * on the call's callback thread only.
   */
  private static final class SendWhileReady implements Runnable {
    private final CallStreamObserver<String> stream;
    private final int total;
    private final BlockingQueue<Integer> pauses;
    private int sent;
    private int lastPause = -1;
    private boolean completed;

    SendWhileReady(CallStreamObserver<String> stream, int total, BlockingQueue<Integer> pauses) {
      this.stream = stream;
      this.total = total;
      this.pauses = pauses;
    }

    @Override
    public void run() {
      while (sent < total && stream.isReady()) {
        stream.onNext(Integer.toString(sent++));
      }
      if (sent < total) {
        if (sent != lastPause) {
          pauses.add(sent);
          lastPause = sent;
        }
      } else if (!completed) {
        completed = true;
        stream.onCompleted();
      }
    }
  }

  /** A recording observer whose beforeStart runs the given configuration. */
  private static final class RecordingClientResponseObserver extends RecordingObserver<String>
      implements ClientResponseObserver<String, String> {
    private final Consumer<ClientCallStreamObserver<String>> configure;

    RecordingClientResponseObserver(Consumer<ClientCallStreamObserver<String>> configure) {
      this.configure = configure;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<String> requestStream) {
      configure.accept(requestStream);
    }
  }
}
