package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.Grpc;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.MethodDescriptor.MethodType;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.ServerServiceDefinition;
import dev.tern.ServerStreamTracer;
import dev.tern.ServerTransportFilter;
import dev.tern.Status;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCallStreamObserver;
import dev.tern.stub.ServerCalls;
import dev.tern.stub.StreamObserver;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testing.TestMarshallers;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The rapid-reset limit ({@link NettyServerBuilder#maxRstFramesPerWindow}) on an overloaded server
 * (found by issue 37's overload harness): clients whose calls reach their deadline while they wait,
 * and calls the server sheds with RESOURCE_EXHAUSTED, must not make the server cut the whole
 * connection off with GOAWAY(ENHANCE_YOUR_CALM), failing the other calls on it. A client that opens
 * streams and resets them at once still is cut off.
 */
class OverloadResetTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  /** Well past the limit of 5 resets per minute set below. */
  private static final int CALLS = 20;

  private static final MethodDescriptor<String, String> HOLD =
      MethodDescriptor.<String, String>newBuilder(TestMarshallers.utf8(), TestMarshallers.utf8())
          .setType(MethodType.UNARY)
          .setFullMethodName("test.Overload/Hold")
          .build();

  private static final MethodDescriptor<String, String> ECHO =
      HOLD.toBuilder().setFullMethodName("test.Overload/Echo").build();

  /** Starts, then holds its {@code onCancel} until {@link #onCancelReleased}. */
  private static final MethodDescriptor<String, String> HOLD_CANCEL =
      HOLD.toBuilder().setFullMethodName("test.Overload/HoldCancel").build();

  /** Holds the server's event loop (handlers run on it) until {@link #loopReleased}. */
  private static final MethodDescriptor<String, String> BLOCK =
      HOLD.toBuilder().setFullMethodName("test.Overload/Block").build();

  /** The client addresses the server saw calls from: one per connection. */
  private final Set<SocketAddress> clientAddresses = ConcurrentHashMap.newKeySet();

  /** Calls the handler holds without answering: the overloaded server's queue. */
  private final List<StreamObserver<String>> held = new CopyOnWriteArrayList<>();

  /** Completes at each call the handler saw, in order. */
  private final List<CompletableFuture<Void>> seen = new CopyOnWriteArrayList<>();

  /**
   * While incomplete, the handler of call number {@link #CALLS} holds the server's event loop (the
   * server runs handlers on it), as an overloaded server's busy loop does: its deadline timers run
   * late, and the clients' resets at their deadlines are read first.
   */
  private final CompletableFuture<Void> loopReleased = new CompletableFuture<>();

  private volatile boolean holdLoopAtLastCall;

  /** Completes when the handler of {@link #BLOCK} holds the server's event loop. */
  private final CompletableFuture<Void> loopHeld = new CompletableFuture<>();

  /** Completes when the server's first connection ended (the client's calls need no handler). */
  private final CompletableFuture<Void> firstConnectionClosed = new CompletableFuture<>();

  /** Streams the server took, counted on its event loop before any handler runs. */
  private final AtomicInteger streamsSeen = new AtomicInteger();

  /** Completes when the server took its stream number {@code i} (from 0). */
  private final Map<Integer, CompletableFuture<Void>> streamSeen = new ConcurrentHashMap<>();

  private CompletableFuture<Void> streamSeen(int i) {
    return streamSeen.computeIfAbsent(i, k -> new CompletableFuture<>());
  }

  /** Streams the server closed, counted on its event loop. */
  private final AtomicInteger streamsClosed = new AtomicInteger();

  /** Completes when the server closed its stream number {@code i} (from 0, in closing order). */
  private final Map<Integer, CompletableFuture<Void>> streamClosed = new ConcurrentHashMap<>();

  private CompletableFuture<Void> streamClosed(int i) {
    return streamClosed.computeIfAbsent(i, k -> new CompletableFuture<>());
  }

  /** Handlers of {@link #HOLD_CANCEL} started. */
  private final AtomicInteger handlersStarted = new AtomicInteger();

  /** Completes when {@code n} handlers of {@link #HOLD_CANCEL} started. */
  private final Map<Integer, CompletableFuture<Void>> handlersStartedFutures =
      new ConcurrentHashMap<>();

  private CompletableFuture<Void> handlersStarted(int n) {
    return handlersStartedFutures.computeIfAbsent(n, k -> new CompletableFuture<>());
  }

  /** Lets the {@code onCancel} of {@link #HOLD_CANCEL} calls return. */
  private final CountDownLatch onCancelReleased = new CountDownLatch(1);

  /** The server's executor for handlers; null for the event loop itself. */
  private Executor serverExecutor;

  private ManagedChannel start(int maxConcurrentCalls) throws Exception {
    return start(maxConcurrentCalls, Integer.MAX_VALUE);
  }

  private ManagedChannel start(int maxConcurrentCalls, int maxCallsPerConnection) throws Exception {
    for (int i = 0; i < CALLS + 1; i++) {
      seen.add(new CompletableFuture<>());
    }
    ServerServiceDefinition service =
        ServerServiceDefinition.builder("test.Overload")
            .addMethod(
                HOLD,
                ServerCalls.asyncUnaryCall(
                    (request, responses) -> {
                      held.add(responses);
                      if (held.size() <= seen.size()) {
                        seen.get(held.size() - 1).complete(null);
                      }
                      if (holdLoopAtLastCall && held.size() == CALLS) {
                        loopReleased
                            .orTimeout(20, TimeUnit.SECONDS)
                            .exceptionally(t -> null)
                            .join();
                      }
                    }))
            .addMethod(
                BLOCK,
                ServerCalls.asyncUnaryCall(
                    (request, responses) -> {
                      loopHeld.complete(null);
                      loopReleased.orTimeout(20, TimeUnit.SECONDS).exceptionally(t -> null).join();
                      responses.onNext(request);
                      responses.onCompleted();
                    }))
            .addMethod(
                HOLD_CANCEL,
                ServerCalls.asyncUnaryCall(
                    (request, responses) -> {
                      ((ServerCallStreamObserver<String>) responses)
                          .setOnCancelHandler(
                              () -> {
                                try {
                                  onCancelReleased.await(20, TimeUnit.SECONDS);
                                } catch (InterruptedException e) {
                                  Thread.currentThread().interrupt();
                                }
                              });
                      handlersStarted(handlersStarted.incrementAndGet()).complete(null);
                    }))
            .addMethod(
                ECHO,
                ServerCalls.asyncUnaryCall(
                    (request, responses) -> {
                      responses.onNext(request);
                      responses.onCompleted();
                    }))
            .build();
    // The server's own loop, so that holding it leaves the client's running.
    EventLoopGroup serverLoop =
        cleanup.register(new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory()));
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .bossEventLoopGroup(serverLoop)
            .workerEventLoopGroup(serverLoop)
            .channelType(NioServerSocketChannel.class)
            .maxRstFramesPerWindow(5, 1, TimeUnit.MINUTES)
            .addStreamTracerFactory(
                new ServerStreamTracer.Factory() {
                  @Override
                  public ServerStreamTracer newServerStreamTracer(String method, Metadata headers) {
                    streamSeen(streamsSeen.getAndIncrement()).complete(null);
                    return new ServerStreamTracer() {
                      @Override
                      public void streamClosed(Status status) {
                        OverloadResetTest.this
                            .streamClosed(streamsClosed.getAndIncrement())
                            .complete(null);
                      }
                    };
                  }
                })
            .addTransportFilter(
                new ServerTransportFilter() {
                  @Override
                  public void transportTerminated(Attributes attributes) {
                    firstConnectionClosed.complete(null);
                  }
                })
            .intercept(
                new ServerInterceptor() {
                  @Override
                  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
                      ServerCall<ReqT, RespT> call,
                      Metadata headers,
                      ServerCallHandler<ReqT, RespT> next) {
                    clientAddresses.add(call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
                    return next.startCall(call, headers);
                  }
                })
            .addService(service);
    if (serverExecutor == null) {
      builder.directExecutor();
    } else {
      builder.executor(serverExecutor);
    }
    if (maxConcurrentCalls > 0) {
      builder.maxConcurrentCalls(maxConcurrentCalls);
    }
    if (maxCallsPerConnection != Integer.MAX_VALUE) {
      builder.maxConcurrentCallsPerConnection(maxCallsPerConnection);
    }
    Server server = cleanup.register(builder.build().start());
    int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    return cleanup.register(
        NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build());
  }

  @Test
  void callsReachingTheirDeadlineUnansweredKeepTheConnection() throws Exception {
    holdLoopAtLastCall = true;
    ManagedChannel channel = start(0);
    List<CompletableFuture<Status>> calls = new ArrayList<>();
    for (int i = 0; i < CALLS; i++) {
      calls.add(
          call(channel, HOLD, CallOptions.DEFAULT.withDeadlineAfter(300, TimeUnit.MILLISECONDS)));
    }
    assertThat(statuses(calls))
        .as("every call waits unanswered until its deadline")
        .containsOnly(Status.Code.DEADLINE_EXCEEDED);
    loopReleased.complete(null);
    assertThat(call(channel, ECHO, CallOptions.DEFAULT).get(20, TimeUnit.SECONDS).getCode())
        .as("a call after the server read the %d resets", CALLS)
        .isEqualTo(Status.Code.OK);
    assertThat(clientAddresses)
        .as("connections the calls came on (a GOAWAY makes a new one)")
        .hasSize(1);
  }

  @Test
  void callsShedWithResourceExhaustedKeepTheConnection() throws Exception {
    ManagedChannel channel = start(1);
    CompletableFuture<Status> admitted =
        call(channel, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS));
    seen.get(0).get(20, TimeUnit.SECONDS);
    List<CompletableFuture<Status>> shed = new ArrayList<>();
    for (int i = 0; i < CALLS; i++) {
      shed.add(call(channel, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS)));
    }
    assertThat(statuses(shed))
        .as("each call beyond the limit of 1 is shed")
        .containsOnly(Status.Code.RESOURCE_EXHAUSTED);
    held.get(0).onNext("done");
    held.get(0).onCompleted();
    assertThat(admitted.get(20, TimeUnit.SECONDS).getCode())
        .as("the admitted call, on the same connection as the shed ones")
        .isEqualTo(Status.Code.OK);
    assertThat(clientAddresses).as("connections the calls came on").hasSize(1);
  }

  @Test
  void streamsResetAsSoonAsTheServerHasThemStillCount() throws Exception {
    ManagedChannel channel = start(0);
    for (int i = 0; i < CALLS; i++) {
      dev.tern.ClientCall<String, String> call =
          channel.newCall(HOLD, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS));
      CompletableFuture<Status> ended = new CompletableFuture<>();
      int next = held.size();
      ClientCalls.asyncUnaryCall(call, "hello", observer(ended));
      // A call sent on a connection that is being cut off fails instead of reaching the handler.
      CompletableFuture.anyOf(seen.get(next), ended).get(20, TimeUnit.SECONDS);
      call.cancel("reset at once", null);
      ended.get(20, TimeUnit.SECONDS);
    }
    assertThat(clientAddresses)
        .as("connections: the limit of 5 resets cut the first one off")
        .hasSizeGreaterThan(1);
  }

  /**
   * Issue 49's overload run (bin/overload --workload=stream): on a saturated core a client cancels
   * at its deadline a call whose handler started but had not answered, and the server, which read
   * the request late, counts less than half of the call's time passed. Such a reset comes well
   * after the stream opened (at least 100 ms by the server's clock), unlike Rapid Reset's, and must
   * not cut the connection off: 8 of them, with room for 5.
   */
  @Test
  void callsResetLongAfterTheyStartedButEarlyInTheirTimeKeepTheConnection() throws Exception {
    ManagedChannel channel = start(0);
    for (int i = 0; i < 8; i++) {
      dev.tern.ClientCall<String, String> call =
          channel.newCall(HOLD, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS));
      CompletableFuture<Status> ended = new CompletableFuture<>();
      ClientCalls.asyncUnaryCall(call, "hello", observer(ended));
      seen.get(i).get(20, TimeUnit.SECONDS);
      // Not a wait for anything: the time the call must have run, by the server's own clock
      // (which has no fake for a Netty server), before its client gives up; only ever longer.
      Thread.sleep(150);
      call.cancel("the client gave up", null);
      assertThat(ended.get(20, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.CANCELLED);
    }

    assertNextCallServedOnTheSameConnection(channel, "a call after the server read the 8 resets");
  }

  /** A call now ends OK, and every call so far came on one connection (no GOAWAY made another). */
  private void assertNextCallServedOnTheSameConnection(ManagedChannel channel, String which)
      throws Exception {
    assertThat(call(channel, ECHO, CallOptions.DEFAULT).get(20, TimeUnit.SECONDS).getCode())
        .as(which)
        .isEqualTo(Status.Code.OK);
    assertThat(clientAddresses)
        .as("connections the calls came on (a GOAWAY makes a new one)")
        .hasSize(1);
  }

  /**
   * Issue 37's overload finding: a server so far behind that it reads each request only after the
   * client's deadline passed reads the HEADERS and the client's RST_STREAM together, early in the
   * call's grpc-timeout as the server counts it. Those resets are of calls queued behind the
   * client's later ones, and must not cut the connection off.
   */
  @Test
  void requestsReadAfterTheirDeadlinePassedKeepTheConnection() throws Exception {
    ManagedChannel channel = start(0);
    CompletableFuture<Status> blocking =
        call(channel, BLOCK, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS));
    loopHeld.get(20, TimeUnit.SECONDS);
    List<CompletableFuture<Status>> calls = new ArrayList<>();
    for (int i = 0; i < CALLS; i++) {
      calls.add(
          call(channel, HOLD, CallOptions.DEFAULT.withDeadlineAfter(300, TimeUnit.MILLISECONDS)));
    }
    assertThat(statuses(calls))
        .as("every call's deadline passes before the server reads its request")
        .containsOnly(Status.Code.DEADLINE_EXCEEDED);
    loopReleased.complete(null);
    assertThat(blocking.get(20, TimeUnit.SECONDS).getCode())
        .as("the call in progress while the server read the %d late requests and resets", CALLS)
        .isEqualTo(Status.Code.OK);
    assertNextCallServedOnTheSameConnection(channel, "a call after the server read them");
  }

  /**
   * Issue 49's overload finding: a client cancels at its deadline calls that wait for a saturated
   * server's executor, and the server, which counts their deadlines from when it read them (later
   * still when the client held the request back behind the server's stream limit), sees the resets
   * early in their time, each of the newest stream it has. A call that has not started is dropped
   * at the reset, costing nothing more, so those resets are ordinary: 12 of them, with room for 5,
   * keep the connection, and the handler never runs for those calls.
   */
  @Test
  void callsWithDeadlinesResetWhileQueuedForTheExecutorAreDroppedAndKeepTheConnection()
      throws Exception {
    CountDownLatch executorReleased = new CountDownLatch(1);
    ManagedChannel channel = startWithExecutorHeld(executorReleased);
    try {
      resetEachWhileQueued(channel, CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS));
    } finally {
      executorReleased.countDown();
    }
    assertThat(call(channel, ECHO, CallOptions.DEFAULT).get(20, TimeUnit.SECONDS).getCode())
        .as("a call once the executor runs again")
        .isEqualTo(Status.Code.OK);
    assertThat(firstConnectionClosed).as("the first connection cut off").isNotDone();
    assertThat(clientAddresses).as("connections the calls came on").hasSize(1);
    assertThat(held).as("handlers run for calls their clients gave up on").isEmpty();
  }

  /**
   * The same resets of calls without a deadline, as a Rapid Reset opens them: still counted, so the
   * limit of 5 cuts the connection off.
   */
  @Test
  void callsWithoutDeadlinesResetWhileQueuedForTheExecutorStillCount() throws Exception {
    CountDownLatch executorReleased = new CountDownLatch(1);
    ManagedChannel channel = startWithExecutorHeld(executorReleased);
    try {
      resetEachWhileQueued(channel, CallOptions.DEFAULT);
      firstConnectionClosed.get(20, TimeUnit.SECONDS);
    } finally {
      executorReleased.countDown();
    }
  }

  /** A server whose one executor thread is held until {@code released}. */
  private ManagedChannel startWithExecutorHeld(CountDownLatch released) throws Exception {
    ExecutorService executor = cleanup.register(Executors.newSingleThreadExecutor());
    executor.execute(
        () -> {
          try {
            released.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    serverExecutor = executor;
    return start(0);
  }

  /**
   * 12 calls, one at a time: each sent until the server has it (queued for its held executor), then
   * cancelled, and the next sent once the server closed its stream, unless the connection was cut
   * off.
   */
  private void resetEachWhileQueued(ManagedChannel channel, CallOptions options) throws Exception {
    for (int i = 0; i < 12 && !firstConnectionClosed.isDone(); i++) {
      dev.tern.ClientCall<String, String> call = channel.newCall(HOLD, options);
      ClientCalls.asyncUnaryCall(call, "hello", observer(new CompletableFuture<>()));
      CompletableFuture.anyOf(streamSeen(i), firstConnectionClosed).get(20, TimeUnit.SECONDS);
      call.cancel("the client's deadline passed", null);
      CompletableFuture.anyOf(streamClosed(i), firstConnectionClosed).get(20, TimeUnit.SECONDS);
    }
  }

  /**
   * A client that keeps a later stream open and resets the earlier ones (so that no reset is of its
   * newest stream) while their handlers have not finished: at most the connection's stream limit of
   * such calls go uncounted, then its resets count again and the limit cuts it off. (Without that
   * bound, this is Rapid Reset with two streams open.)
   */
  @Test
  void resetsBehindALaterStreamCountOnceTheirHandlersFillTheStreamLimit() throws Exception {
    // Each handler starts, then its onCancel waits until the test ends: no cancelled call is ever
    // done. (A call reset before its handler started is dropped at once, so these wait for it.)
    serverExecutor = cleanup.register(Executors.newCachedThreadPool());
    ManagedChannel channel = start(0, 5);
    List<dev.tern.ClientCall<String, String>> calls = new ArrayList<>();
    try {
      resetEachBehindTheNext(channel, calls, HOLD_CANCEL);
      firstConnectionClosed.get(20, TimeUnit.SECONDS);
    } finally {
      onCancelReleased.countDown();
      for (dev.tern.ClientCall<String, String> call : calls) {
        call.cancel("test over", null);
      }
    }
  }

  /**
   * The same client on a server whose handlers finish: each reset call gives its slot back once its
   * {@code onCancel} ran, so 80 such resets with room for 5 keep the connection.
   */
  @Test
  void resetsBehindALaterStreamWhoseHandlersFinishKeepTheConnection() throws Exception {
    serverExecutor = cleanup.register(Executors.newSingleThreadExecutor());
    ManagedChannel channel = start(0, 5);
    List<dev.tern.ClientCall<String, String>> calls = new ArrayList<>();
    try {
      resetEachBehindTheNext(channel, calls, HOLD);
    } finally {
      calls.get(calls.size() - 1).cancel("test over", null);
    }
    assertThat(call(channel, ECHO, CallOptions.DEFAULT).get(20, TimeUnit.SECONDS).getCode())
        .as("a call after %d resets", calls.size() - 1)
        .isEqualTo(Status.Code.OK);
    assertThat(firstConnectionClosed).as("the first connection cut off").isNotDone();
    assertThat(clientAddresses).as("connections the calls came on").hasSize(1);
  }

  /**
   * Starts {@code 4 * CALLS} calls one after another, each reaching the server before the one
   * before it is reset, until the first connection is cut off (the next call would go to a new
   * one); {@code calls} gets each call.
   */
  private void resetEachBehindTheNext(
      ManagedChannel channel,
      List<dev.tern.ClientCall<String, String>> calls,
      MethodDescriptor<String, String> method)
      throws Exception {
    for (int i = 0; i < 4 * CALLS && !firstConnectionClosed.isDone(); i++) {
      dev.tern.ClientCall<String, String> next =
          channel.newCall(method, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS));
      ClientCalls.asyncUnaryCall(next, "hello", observer(new CompletableFuture<>()));
      calls.add(next);
      CompletableFuture.anyOf(
              method == HOLD_CANCEL ? handlersStarted(i + 1) : streamSeen(i), firstConnectionClosed)
          .get(20, TimeUnit.SECONDS);
      if (calls.size() > 1) {
        calls.get(calls.size() - 2).cancel("reset behind a later call", null);
      }
    }
  }

  private static CompletableFuture<Status> call(ManagedChannel channel, CallOptions options) {
    return call(channel, HOLD, options);
  }

  private static CompletableFuture<Status> call(
      ManagedChannel channel, MethodDescriptor<String, String> method, CallOptions options) {
    CompletableFuture<Status> ended = new CompletableFuture<>();
    ClientCalls.asyncUnaryCall(channel.newCall(method, options), "hello", observer(ended));
    return ended;
  }

  private static StreamObserver<String> observer(CompletableFuture<Status> ended) {
    return new StreamObserver<>() {
      @Override
      public void onNext(String value) {}

      @Override
      public void onError(Throwable t) {
        ended.complete(Status.fromThrowable(t));
      }

      @Override
      public void onCompleted() {
        ended.complete(Status.OK);
      }
    };
  }

  private static List<Status.Code> statuses(List<CompletableFuture<Status>> calls)
      throws Exception {
    List<Status.Code> codes = new ArrayList<>();
    for (CompletableFuture<Status> call : calls) {
      codes.add(call.get(20, TimeUnit.SECONDS).getCode());
    }
    return codes;
  }
}
