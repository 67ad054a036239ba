package dev.tern.internal.server;

import static dev.tern.internal.server.ServerTestSupport.BIDI;
import static dev.tern.internal.server.ServerTestSupport.UNARY;
import static dev.tern.internal.server.ServerTestSupport.echoService;
import static dev.tern.internal.server.ServerTestSupport.timeoutHeader;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Codec;
import dev.tern.Context;
import dev.tern.Contexts;
import dev.tern.DecompressorRegistry;
import dev.tern.HandlerRegistry;
import dev.tern.Metadata;
import dev.tern.MutableHandlerRegistry;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.ServerMethodDefinition;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.channelz.CallStats;
import dev.tern.channelz.Channelz;
import dev.tern.internal.server.ServerTestSupport.RecordingHandler;
import dev.tern.internal.server.ServerTestSupport.RefusalRecorder;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.testing.FakeClock;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** How a new stream becomes a call: lookup, reserved headers, deadlines, decompression. */
class ServerCallDispatcherTest {
  private static final Logger dispatcherLogger =
      Logger.getLogger(ServerCallDispatcher.class.getName());

  private final RecordingHandler handler = new RecordingHandler();
  private final FakeServerBuilder builder = new FakeServerBuilder().directExecutor();
  private FakeTransportServer transportServer;
  private FakeServerTransport transport;
  private Server server;
  private Level savedLevel;

  @BeforeEach
  void quietLogger() {
    savedLevel = dispatcherLogger.getLevel();
    dispatcherLogger.setLevel(Level.OFF);
  }

  @AfterEach
  void restoreLogger() {
    dispatcherLogger.setLevel(savedLevel);
  }

  private void startServer() throws IOException {
    server = builder.build().start();
    transportServer = builder.transportServer;
    transport = transportServer.accept();
    transport.ready(dev.tern.Attributes.EMPTY);
  }

  @Test
  void knownMethod_isFoundInTheMethodMapAndStartedWithItsDescriptor() throws IOException {
    builder.addService(echoService(handler));
    startServer();

    FakeServerStream stream = transport.newStream("test.Echo/Unary", new Metadata());

    assertThat(handler.calls).hasSize(1);
    assertThat(handler.lastCall().getMethodDescriptor()).isSameAs(UNARY);
    assertThat(stream.requested).isEqualTo(1);
    assertThat(stream.maxInboundMessageSize).isEqualTo(GrpcHeaders.DEFAULT_MAX_MESSAGE_SIZE);
    assertThat(stream.closeStatus).isNull();
  }

  @Test
  void unknownMethod_closesUnimplementedWithExactTextAndDropsLaterEvents() throws IOException {
    builder.addService(echoService(handler));
    startServer();

    FakeServerStream stream = transport.newStream("test.Echo/Missing", new Metadata());

    assertThat(stream.closeStatus.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(stream.closeStatus.getDescription())
        .isEqualTo("Method not found: test.Echo/Missing");
    assertThat(handler.calls).isEmpty();
    // The stream still has a listener: late client events are harmless and messages released.
    FakeServerStream.TrackedMessage late = stream.clientSends("late");
    stream.clientHalfCloses();
    stream.completeClose();
    assertThat(late.isClosed()).isTrue();
  }

  @Test
  void unknownService_closesUnimplemented() throws IOException {
    builder.addService(echoService(handler));
    startServer();

    FakeServerStream stream = transport.newStream("other.Svc/Call", new Metadata());

    assertThat(stream.closeStatus.getDescription()).isEqualTo("Method not found: other.Svc/Call");
  }

  @Test
  void fallbackRegistry_servesMethodsMissingFromTheMapAndGetsTheAuthority() throws IOException {
    List<String> lookups = new ArrayList<>();
    ServerServiceDefinition dynamic = echoService(handler);
    HandlerRegistry fallback =
        new HandlerRegistry() {
          @Override
          public ServerMethodDefinition<?, ?> lookupMethod(String name, String authority) {
            lookups.add(name + "@" + authority);
            return dynamic.getMethod(name);
          }
        };
    builder.fallbackHandlerRegistry(fallback);
    startServer();

    FakeServerStream stream =
        transport.newStream("test.Echo/Bidi", new Metadata(), "api.example.com:443");

    assertThat(lookups).containsExactly("test.Echo/Bidi@api.example.com:443");
    assertThat(handler.lastCall().getMethodDescriptor()).isSameAs(BIDI);
    assertThat(stream.closeStatus).isNull();
  }

  @Test
  void builderServices_winOverTheFallbackRegistry() throws IOException {
    RecordingHandler fallbackHandler = new RecordingHandler();
    MutableHandlerRegistry fallback = new MutableHandlerRegistry();
    fallback.addService(echoService(fallbackHandler));
    builder.addService(echoService(handler)).fallbackHandlerRegistry(fallback);
    startServer();

    transport.newStream("test.Echo/Unary", new Metadata());

    assertThat(handler.calls).hasSize(1);
    assertThat(fallbackHandler.calls).isEmpty();
  }

  @Test
  void fallbackRegistryThrowing_failsOnlyThatCall() throws IOException {
    builder
        .addService(echoService(handler))
        .fallbackHandlerRegistry(
            new HandlerRegistry() {
              @Override
              public ServerMethodDefinition<?, ?> lookupMethod(String name, String authority) {
                throw new IllegalStateException("registry broken");
              }
            });
    startServer();

    FakeServerStream failed = transport.newStream("dyn.Svc/M", new Metadata());
    FakeServerStream served = transport.newStream("test.Echo/Unary", new Metadata());

    assertThat(failed.closeStatus.getCode()).isEqualTo(Status.Code.UNKNOWN);
    assertThat(failed.closeStatus.getDescription()).isEqualTo("Fallback handler registry failed");
    assertThat(served.closeStatus).isNull();
    assertThat(handler.calls).hasSize(1);
  }

  @Test
  void builderInterceptors_lastAddedRunsFirst_onceEachPerCall_evenForFallbackMethods()
      throws IOException {
    List<String> order = new ArrayList<>();
    MutableHandlerRegistry fallback = new MutableHandlerRegistry();
    fallback.addService(
        ServerServiceDefinition.builder("dyn.Svc")
            .addMethod(ServerTestSupport.method("dyn.Svc/M", false), handler)
            .build());
    builder
        .addService(echoService(handler))
        .fallbackHandlerRegistry(fallback)
        .intercept(recordingInterceptor("first-added", order))
        .intercept(recordingInterceptor("second-added", order));
    startServer();

    transport.newStream("test.Echo/Unary", new Metadata());
    transport.newStream("dyn.Svc/M", new Metadata());

    assertThat(order).containsExactly("second-added", "first-added", "second-added", "first-added");
    assertThat(handler.calls).hasSize(2);
  }

  @Test
  void reservedHeaders_areRemovedBeforeTheHandlerSeesThem() throws IOException {
    builder.addService(echoService(handler));
    startServer();
    Metadata.Key<String> user = Metadata.Key.of("x-user", Metadata.ASCII_STRING_MARSHALLER);
    Metadata headers = new Metadata();
    headers.put(GrpcHeaders.TIMEOUT, "10S");
    headers.put(GrpcHeaders.MESSAGE_ENCODING, "gzip");
    headers.put(GrpcHeaders.MESSAGE_ACCEPT_ENCODING, "gzip,identity");
    headers.put(user, "ada");

    transport.newStream("test.Echo/Unary", headers);

    Metadata seen = handler.headers.get(0);
    assertThat(seen.keys()).containsExactly("x-user");
    assertThat(seen.get(user)).isEqualTo("ada");
  }

  @Test
  void malformedGrpcTimeout_closesInternalAtOnceAndServerGoesOn() throws IOException {
    builder.addService(echoService(handler));
    startServer();

    FakeServerStream bad = transport.newStream("test.Echo/Unary", timeoutHeader("12x"));
    FakeServerStream tooLong = transport.newStream("test.Echo/Unary", timeoutHeader("123456789S"));
    FakeServerStream good = transport.newStream("test.Echo/Unary", new Metadata());

    assertThat(bad.closeStatus.getCode()).isEqualTo(Status.Code.INTERNAL);
    assertThat(bad.closeStatus.getDescription()).isEqualTo("Invalid grpc-timeout: '12x'");
    assertThat(tooLong.closeStatus.getDescription())
        .isEqualTo("Invalid grpc-timeout: '123456789S'");
    assertThat(handler.calls).hasSize(1);
    assertThat(good.closeStatus).isNull();
  }

  @Test
  void grpcTimeout_becomesTheContextDeadlineWithATimerOnTheTransportScheduler() throws IOException {
    builder.addService(echoService(handler));
    startServer();

    transport.newStream("test.Echo/Unary", timeoutHeader("10S"));

    Context context = handler.lastContext();
    assertThat(context.getDeadline()).isNotNull();
    assertThat(context.getDeadline().timeRemaining(TimeUnit.MILLISECONDS))
        .isBetween(9_000L, 10_000L);
    assertThat(ServerTestSupport.onlyPendingDelay(transportServer.scheduler, TimeUnit.MILLISECONDS))
        .isBetween(9_000L, 10_000L);
  }

  @Test
  void noGrpcTimeout_meansNoDeadlineButACancellableContext() throws IOException {
    builder.addService(echoService(handler));
    startServer();

    FakeServerStream stream = transport.newStream("test.Echo/Unary", new Metadata());

    Context context = handler.lastContext();
    assertThat(context).isNotSameAs(Context.ROOT);
    assertThat(context.getDeadline()).isNull();
    assertThat(context.isCancelled()).isFalse();
    stream.reportClosed(Status.CANCELLED);
    assertThat(context.isCancelled()).isTrue();
  }

  @Test
  void deadlineExpiry_cancelsStreamWithDeadlineExceededAndTheContext() throws IOException {
    builder.addService(echoService(handler));
    startServer();
    FakeServerStream stream = transport.newStream("test.Echo/Unary", timeoutHeader("10S"));
    Context context = handler.lastContext();

    transportServer.scheduler.forwardTime(9, TimeUnit.SECONDS);
    assertThat(stream.cancelStatus).isNull();
    transportServer.scheduler.forwardTime(1, TimeUnit.SECONDS);

    assertThat(stream.cancelStatus.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(context.isCancelled()).isTrue();
    assertThat(context.cancellationCause()).isInstanceOf(TimeoutException.class);
    assertThat(Contexts.statusFromCancelled(context).getCode())
        .isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(handler.lastListener().events).containsExactly("cancel");
    assertThat(handler.lastCall().isCancelled()).isTrue();
  }

  @Test
  void callEndingBeforeItsDeadline_releasesTheDeadlineTimer() throws IOException {
    builder.addService(echoService(handler));
    startServer();
    FakeServerStream stream = transport.newStream("test.Echo/Unary", timeoutHeader("10S"));
    assertThat(transportServer.scheduler.getPendingTasks()).hasSize(1);

    handler.lastCall().sendMessage("done");
    handler.lastCall().close(Status.OK, new Metadata());
    stream.completeClose();

    assertThat(transportServer.scheduler.getPendingTasks()).isEmpty();
    assertThat(handler.lastContext().isCancelled()).isTrue();
    transportServer.scheduler.forwardTime(1, TimeUnit.HOURS);
    assertThat(stream.cancelStatus).isNull();
  }

  @Test
  void zeroTimeout_isRefusedOnArrivalWithoutReachingTheHandler() throws IOException {
    RefusalRecorder tracers = new RefusalRecorder();
    builder.addService(echoService(handler)).addStreamTracerFactory(tracers);
    startServer();

    FakeServerStream stream = transport.newStream("test.Echo/Unary", timeoutHeader("0n"));

    assertThat(stream.closeStatus.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(stream.closeStatus.getDescription())
        .isEqualTo(
            "Deadline exceeded before the server started the call: grpc-timeout of 0 on arrival");
    assertThat(handler.calls).as("calls the handler saw").isEmpty();
    assertThat(tracers.events).containsExactly("refused DEADLINE_PASSED_ON_ARRIVAL");
    assertThat(transportServer.scheduler.getPendingTasks()).as("deadline timers").isEmpty();
    stream.completeClose();
    assertThat(channelzCalls().failed()).isEqualTo(1);
  }

  @Test
  void deadlinePassingWhileTheCallWaitsForTheExecutor_neverStartsIt() throws IOException {
    List<Runnable> executorQueue = new ArrayList<>();
    RefusalRecorder tracers = new RefusalRecorder();
    builder
        .executor(executorQueue::add)
        .addService(echoService(handler))
        .addStreamTracerFactory(tracers);
    startServer();
    FakeServerStream stream = transport.newStream("test.Echo/Unary", timeoutHeader("10S"));
    FakeServerStream.TrackedMessage request = stream.clientSends("hello");
    stream.clientHalfCloses();

    transportServer.scheduler.forwardTime(10, TimeUnit.SECONDS); // the executor is still busy
    runAll(executorQueue);

    assertThat(stream.cancelStatus.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(handler.calls).as("calls the handler saw").isEmpty();
    assertThat(request.isClosed()).as("request released").isTrue();
    assertThat(stream.cancelledCallFinished).isEqualTo(1);
    // The timer ended the stream; the refusal is known when the executor reaches the call.
    assertThat(tracers.events)
        .containsExactly("started", "closed DEADLINE_EXCEEDED", "refused DEADLINE_PASSED_IN_QUEUE");
    assertThat(channelzCalls().failed()).isEqualTo(1);
  }

  @Test
  void deadlinePassedButItsTimerLate_theCallIsStillNotStarted() throws IOException {
    List<Runnable> executorQueue = new ArrayList<>();
    FakeClock clock = new FakeClock(); // the deadlines' clock; the timers stay on the scheduler
    RefusalRecorder tracers = new RefusalRecorder();
    builder
        .executor(executorQueue::add)
        .deadlineTicker(clock.getTicker())
        .addService(echoService(handler))
        .addStreamTracerFactory(tracers);
    startServer();
    FakeServerStream stream = transport.newStream("test.Echo/Unary", timeoutHeader("10S"));
    stream.clientSends("hello");

    clock.forwardTime(10, TimeUnit.SECONDS);
    runAll(executorQueue);

    assertThat(handler.calls).as("calls the handler saw").isEmpty();
    assertThat(stream.cancelStatus.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(stream.cancelStatus.getDescription())
        .isEqualTo(
            "Deadline exceeded before the server started the call: it waited for the server's"
                + " executor past its grpc-timeout of 10000000000ns");
    assertThat(tracers.events)
        .containsExactly("started", "refused DEADLINE_PASSED_IN_QUEUE", "closed DEADLINE_EXCEEDED");
    assertThat(channelzCalls().failed()).isEqualTo(1);
  }

  @Test
  void callWaitingForTheExecutorWithTimeLeft_startsAsUsual() throws IOException {
    List<Runnable> executorQueue = new ArrayList<>();
    builder.executor(executorQueue::add).addService(echoService(handler));
    startServer();
    FakeServerStream stream = transport.newStream("test.Echo/Unary", timeoutHeader("10S"));

    transportServer.scheduler.forwardTime(9, TimeUnit.SECONDS);
    runAll(executorQueue);

    assertThat(handler.calls).hasSize(1);
    assertThat(stream.cancelStatus).isNull();
  }

  @Test
  void unknownGrpcEncoding_closesUnimplementedListingWhatTheServerAccepts() throws IOException {
    builder.addService(echoService(handler));
    startServer();
    Metadata headers = new Metadata();
    headers.put(GrpcHeaders.MESSAGE_ENCODING, "snappy");

    FakeServerStream stream = transport.newStream("test.Echo/Unary", headers);

    assertThat(stream.closeStatus.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(stream.closeStatus.getDescription()).isEqualTo("Can't find decompressor for snappy");
    assertThat(stream.closeTrailers.get(GrpcHeaders.MESSAGE_ACCEPT_ENCODING))
        .isEqualTo("gzip,identity");
    assertThat(handler.calls).isEmpty();
  }

  @Test
  void knownGrpcEncoding_setsTheStreamDecompressor() throws IOException {
    builder.addService(echoService(handler));
    startServer();
    Metadata headers = new Metadata();
    headers.put(GrpcHeaders.MESSAGE_ENCODING, "gzip");

    FakeServerStream stream = transport.newStream("test.Echo/Unary", headers);

    assertThat(stream.decompressor.getMessageEncoding()).isEqualTo("gzip");
    assertThat(handler.calls).hasSize(1);
  }

  @Test
  void identityEncoding_isAcceptedEvenIfTheRegistryLacksIt() throws IOException {
    builder
        .addService(echoService(handler))
        .decompressorRegistry(DecompressorRegistry.emptyInstance().with(new Codec.Gzip(), true));
    startServer();
    Metadata headers = new Metadata();
    headers.put(GrpcHeaders.MESSAGE_ENCODING, "identity");

    FakeServerStream stream = transport.newStream("test.Echo/Unary", headers);

    assertThat(stream.closeStatus).isNull();
    assertThat(stream.decompressor).isNull();
    assertThat(handler.calls).hasSize(1);
  }

  @Test
  void maxInboundMessageSize_fromTheBuilderReachesTheStream() throws IOException {
    builder.addService(echoService(handler)).maxInboundMessageSize(1234);
    startServer();

    FakeServerStream stream = transport.newStream("test.Echo/Unary", new Metadata());

    assertThat(stream.maxInboundMessageSize).isEqualTo(1234);
  }

  @Test
  void interceptorContextValues_areVisibleInEveryCallback() throws IOException {
    Context.Key<String> user = Context.key("user");
    ServerInterceptor addsUser =
        new ServerInterceptor() {
          @Override
          public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
              ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
            return Contexts.interceptCall(
                Context.current().withValue(user, "ada"), call, headers, next);
          }
        };
    List<String> seen = new ArrayList<>();
    handler.onMessage = message -> seen.add(user.get());
    builder.addService(echoService(handler)).intercept(addsUser);
    startServer();

    FakeServerStream stream = transport.newStream("test.Echo/Bidi", new Metadata());
    stream.clientSends("hi");

    assertThat(seen).containsExactly("ada");
  }

  private static ServerInterceptor recordingInterceptor(String name, List<String> order) {
    return new ServerInterceptor() {
      @Override
      public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
          ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
        order.add(name);
        return next.startCall(call, headers);
      }
    };
  }

  @Test
  void maxConcurrentCalls_refusesCallsBeyondTheLimitUntilOneEnds() throws IOException {
    RefusalRecorder tracers = new RefusalRecorder();
    builder.addService(echoService(handler)).maxConcurrentCalls(2).addStreamTracerFactory(tracers);
    startServer();

    FakeServerStream first = transport.newStream("test.Echo/Unary", new Metadata());
    FakeServerStream second = transport.newStream("test.Echo/Unary", new Metadata());
    FakeServerStream refused = transport.newStream("test.Echo/Unary", new Metadata());

    assertThat(handler.calls).hasSize(2);
    assertThat(tracers.events)
        .containsExactly("started", "started", "refused MAX_CONCURRENT_CALLS");
    assertThat(first.closeStatus).isNull();
    assertThat(second.closeStatus).isNull();
    assertThat(refused.closeStatus.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(refused.closeStatus.getDescription())
        .isEqualTo(
            "Server overloaded: 2 calls in progress, its limit (maxConcurrentCalls); try again"
                + " later");
    refused.completeClose();

    // A cancelled call gives its slot back as well as one that ended OK.
    first.reportClosed(Status.CANCELLED);
    FakeServerStream third = transport.newStream("test.Echo/Unary", new Metadata());
    assertThat(third.closeStatus).isNull();
    assertThat(handler.calls).hasSize(3);
    assertThat(transport.newStream("test.Echo/Unary", new Metadata()).closeStatus.getCode())
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);

    handler.lastCall().close(Status.OK, new Metadata());
    third.completeClose();
    assertThat(transport.newStream("test.Echo/Unary", new Metadata()).closeStatus).isNull();
  }

  @Test
  void maxConcurrentCalls_refusalsCarryTheOverloadRetryPushbackWhenOneIsSet() throws IOException {
    builder.addService(echoService(handler)).maxConcurrentCalls(1).overloadRetryPushback(250);
    startServer();
    transport.newStream("test.Echo/Unary", new Metadata());

    FakeServerStream refused = transport.newStream("test.Echo/Unary", new Metadata());

    assertThat(refused.closeStatus.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(refused.closeTrailers.get(GrpcHeaders.RETRY_PUSHBACK_MS)).isEqualTo("250");
    refused.completeClose();
    FakeServerStream again = transport.newStream("test.Echo/Unary", new Metadata());
    assertThat(again.closeTrailers)
        .as("each refusal has trailers of its own")
        .isNotSameAs(refused.closeTrailers);
  }

  @Test
  void maxConcurrentCalls_aNegativePushbackTellsClientsNotToRetry() throws IOException {
    builder.addService(echoService(handler)).maxConcurrentCalls(1).overloadRetryPushback(-5);
    startServer();
    transport.newStream("test.Echo/Unary", new Metadata());

    FakeServerStream refused = transport.newStream("test.Echo/Unary", new Metadata());

    assertThat(refused.closeTrailers.get(GrpcHeaders.RETRY_PUSHBACK_MS)).isEqualTo("-1");
  }

  @Test
  void maxConcurrentCalls_withoutAPushbackTheRefusalHasNone() throws IOException {
    builder.addService(echoService(handler)).maxConcurrentCalls(1);
    startServer();
    transport.newStream("test.Echo/Unary", new Metadata());

    FakeServerStream refused = transport.newStream("test.Echo/Unary", new Metadata());

    assertThat(refused.closeTrailers.containsKey(GrpcHeaders.RETRY_PUSHBACK_MS)).isFalse();
  }

  @Test
  void maxConcurrentCalls_unknownMethodsTakeNoSlot() throws IOException {
    builder.addService(echoService(handler)).maxConcurrentCalls(1);
    startServer();

    for (int i = 0; i < 3; i++) {
      FakeServerStream missing = transport.newStream("test.Echo/Missing", new Metadata());
      assertThat(missing.closeStatus.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
      missing.completeClose();
    }
    assertThat(transport.newStream("test.Echo/Unary", new Metadata()).closeStatus).isNull();
  }

  private CallStats channelzCalls() {
    return Channelz.global().server(((ServerImpl) server).channelzId()).channelzStats().calls();
  }

  /** Runs the executor's tasks, and those they queue, until none is left. */
  private static void runAll(List<Runnable> executorQueue) {
    while (!executorQueue.isEmpty()) {
      executorQueue.remove(0).run();
    }
  }
}
