package dev.tern.grpcjava;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.testing.LogCapture;
import io.grpc.CallCredentials;
import io.grpc.ChannelCredentials;
import io.grpc.CompositeChannelCredentials;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import io.grpc.testing.integration.Messages.SimpleRequest;
import io.grpc.testing.integration.Messages.SimpleResponse;
import io.grpc.testing.integration.Messages.StreamingOutputCallRequest;
import io.grpc.testing.integration.Messages.StreamingOutputCallResponse;
import io.grpc.testing.integration.TestServiceGrpc;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code io.grpc.Context} across the bridge (deadlines and cancellation, both ways), call
 * credentials, and the options Tern refuses, with a grpc-java service written here against
 * grpc-java's generated interop base class and only {@code io.grpc} calls.
 */
class GrpcJavaContextTest {
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private final ObservingService service = new ObservingService();
  private final BlockingQueue<Metadata> received = new LinkedBlockingQueue<>();
  private Server server;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    server =
        Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
            .addService(service)
            .intercept(
                new ServerInterceptor() {
                  @Override
                  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
                      ServerCall<ReqT, RespT> call,
                      Metadata headers,
                      ServerCallHandler<ReqT, RespT> next) {
                    received.add(headers);
                    return next.startCall(call, headers);
                  }
                })
            .build()
            .start();
    channel = newChannel(InsecureChannelCredentials.create());
  }

  private ManagedChannel newChannel(ChannelCredentials credentials) {
    return Grpc.newChannelBuilder("127.0.0.1:" + server.getPort(), credentials).build();
  }

  @AfterEach
  void stop() throws Exception {
    Peers.close(channel, server, scheduler);
  }

  @Test
  void handlerSeesTheDeadlineOfTheClientsContext() throws Exception {
    Context.CancellableContext withDeadline =
        Context.current().withDeadlineAfter(30, TimeUnit.SECONDS, scheduler);
    try {
      withDeadline.run(
          () ->
              TestServiceGrpc.newBlockingStub(channel)
                  .unaryCall(SimpleRequest.getDefaultInstance()));
    } finally {
      withDeadline.cancel(null);
    }
    Deadline seen = service.unaryDeadlines.poll(5, TimeUnit.SECONDS);
    assertThat(seen).isNotNull();
    assertThat(seen.timeRemaining(TimeUnit.SECONDS)).isBetween(1L, 30L);
  }

  @Test
  void handlerWithoutDeadlineSeesNone() throws Exception {
    TestServiceGrpc.newBlockingStub(channel).unaryCall(SimpleRequest.getDefaultInstance());
    assertThat(service.unaryDeadlines.poll(5, TimeUnit.SECONDS)).isEqualTo(ObservingService.NONE);
  }

  @Test
  void clientCancelIsSeenAsContextCancellationInTheHandler() throws Exception {
    CancellingObserver observer = new CancellingObserver();
    StreamObserver<StreamingOutputCallRequest> requests =
        TestServiceGrpc.newStub(channel).fullDuplexCall(observer);
    requests.onNext(StreamingOutputCallRequest.getDefaultInstance());
    assertThat(service.bidiStarted.await(5, TimeUnit.SECONDS)).isTrue();

    observer.requestStream.cancel("the client gives up", null);

    assertThat(service.bidiContextCancelled.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(Status.fromThrowable(observer.error.get(5, TimeUnit.SECONDS)).getCode())
        .isEqualTo(Status.Code.CANCELLED);
  }

  @Test
  void cancellingTheClientsContextCancelsTheCall() throws Exception {
    CancellingObserver observer = new CancellingObserver();
    Context.CancellableContext cancellable = Context.current().withCancellation();
    AtomicReference<StreamObserver<StreamingOutputCallRequest>> requests = new AtomicReference<>();
    cancellable.run(() -> requests.set(TestServiceGrpc.newStub(channel).fullDuplexCall(observer)));
    requests.get().onNext(StreamingOutputCallRequest.getDefaultInstance());
    assertThat(service.bidiStarted.await(5, TimeUnit.SECONDS)).isTrue();

    cancellable.cancel(new IllegalStateException("the caller's work was abandoned"));

    assertThat(service.bidiContextCancelled.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(Status.fromThrowable(observer.error.get(5, TimeUnit.SECONDS)).getCode())
        .isEqualTo(Status.Code.CANCELLED);
  }

  @Test
  void callCredentialsOfCompositeChannelCredentialsAndOfTheCall() throws Exception {
    ManagedChannel withCredentials =
        newChannel(
            CompositeChannelCredentials.create(
                InsecureChannelCredentials.create(), new BearerToken("from-the-channel")));
    try {
      TestServiceGrpc.newBlockingStub(withCredentials)
          .unaryCall(SimpleRequest.getDefaultInstance());
      assertThat(received.poll(5, TimeUnit.SECONDS).get(AUTHORIZATION))
          .isEqualTo("Bearer from-the-channel");
    } finally {
      Peers.close(withCredentials);
    }
    TestServiceGrpc.newBlockingStub(channel)
        .withCallCredentials(new BearerToken("from-the-call"))
        .unaryCall(SimpleRequest.getDefaultInstance());
    assertThat(received.poll(5, TimeUnit.SECONDS).get(AUTHORIZATION))
        .isEqualTo("Bearer from-the-call");
  }

  @Test
  void optionsTernCannotHonourFailNamingThem() {
    assertThatThrownBy(
            () ->
                Grpc.newChannelBuilder("127.0.0.1:1", InsecureChannelCredentials.create())
                    .addTransportFilter(new io.grpc.ClientTransportFilter() {}))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("addTransportFilter");
    ChannelCredentials unknown =
        new ChannelCredentials() {
          @Override
          public ChannelCredentials withoutBearerTokens() {
            return this;
          }
        };
    assertThatThrownBy(() -> Grpc.newChannelBuilder("127.0.0.1:1", unknown))
        .hasMessageContaining("Tern does not support channel credentials");
    assertThatThrownBy(() -> Grpc.newServerBuilderForPort(0, new ServerCredentials() {}))
        .hasMessageContaining("Tern does not support server credentials");
  }

  @Test
  void aHandlerThatThrowsEndsTheCallUnknown() throws Exception {
    // Tern's server logs the handler's exception (a warning with its stack trace): captured here.
    try (LogCapture log =
        new LogCapture("dev.tern.internal.server.ServerCallStreamListener", Level.WARNING)) {
      SimpleRequest poison = SimpleRequest.newBuilder().setFillUsername(true).build();
      assertThatThrownBy(() -> TestServiceGrpc.newBlockingStub(channel).unaryCall(poison))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNKNOWN));
      log.awaitRecord(r -> r.getThrown() instanceof IllegalStateException, Duration.ofSeconds(5));
    }
  }

  /** Adds an authorization header. */
  private static final class BearerToken extends CallCredentials {
    private final String token;

    BearerToken(String token) {
      this.token = token;
    }

    @Override
    public void applyRequestMetadata(
        RequestInfo requestInfo, Executor appExecutor, MetadataApplier applier) {
      Metadata headers = new Metadata();
      headers.put(AUTHORIZATION, "Bearer " + token);
      applier.apply(headers);
    }
  }

  /** Keeps the call's request stream, to cancel it, and the error the call ends with. */
  private static final class CancellingObserver
      implements ClientResponseObserver<StreamingOutputCallRequest, StreamingOutputCallResponse> {
    volatile ClientCallStreamObserver<StreamingOutputCallRequest> requestStream;
    final CompletableFuture<Throwable> error = new CompletableFuture<>();

    @Override
    public void beforeStart(ClientCallStreamObserver<StreamingOutputCallRequest> requestStream) {
      this.requestStream = requestStream;
    }

    @Override
    public void onNext(StreamingOutputCallResponse value) {}

    @Override
    public void onError(Throwable t) {
      error.complete(t);
    }

    @Override
    public void onCompleted() {
      error.complete(null);
    }
  }

  /**
   * Records the deadline each unary call's handler sees in {@code Context.current()} (and throws
   * for a request with fill_username set, standing for a handler's bug); its bidi handler never
   * answers, and counts down when its context is cancelled.
   */
  private static final class ObservingService extends TestServiceGrpc.TestServiceImplBase {
    static final Deadline NONE = Deadline.after(0, TimeUnit.SECONDS);
    final BlockingQueue<Deadline> unaryDeadlines = new LinkedBlockingQueue<>();
    final CountDownLatch bidiStarted = new CountDownLatch(1);
    final CountDownLatch bidiContextCancelled = new CountDownLatch(1);

    @Override
    public void unaryCall(SimpleRequest request, StreamObserver<SimpleResponse> responses) {
      if (request.getFillUsername()) {
        throw new IllegalStateException("a bug in the handler (expected by the test)");
      }
      Deadline deadline = Context.current().getDeadline();
      unaryDeadlines.add(deadline == null ? NONE : deadline);
      responses.onNext(SimpleResponse.getDefaultInstance());
      responses.onCompleted();
    }

    @Override
    public StreamObserver<StreamingOutputCallRequest> fullDuplexCall(
        StreamObserver<StreamingOutputCallResponse> responses) {
      Context.current().addListener(context -> bidiContextCancelled.countDown(), Runnable::run);
      return new StreamObserver<>() {
        @Override
        public void onNext(StreamingOutputCallRequest value) {
          bidiStarted.countDown();
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onCompleted() {}
      };
    }
  }
}
