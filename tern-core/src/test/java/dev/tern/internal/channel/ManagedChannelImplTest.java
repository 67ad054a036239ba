package dev.tern.internal.channel;

import static dev.tern.internal.channel.ClientTestSupport.BIDI;
import static dev.tern.internal.channel.ClientTestSupport.CUSTOM;
import static dev.tern.internal.channel.ClientTestSupport.UNARY;
import static dev.tern.internal.channel.ClientTestSupport.headers;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.ClientInterceptor;
import dev.tern.ConnectivityState;
import dev.tern.ForwardingClientCall;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import dev.tern.internal.BackoffPolicy;
import dev.tern.internal.channel.ClientTestSupport.ChannelFixture;
import dev.tern.internal.channel.ClientTestSupport.RecordingListener;
import dev.tern.internal.wire.GrpcHeaders;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ManagedChannelImplTest {
  private final ChannelFixture fixture = new ChannelFixture();

  @AfterEach
  void shutDownChannel() {
    if (fixture.channel != null) {
      fixture.channel.shutdownNow();
    }
  }

  private RecordingListener start(
      MethodDescriptor<String, String> method, CallOptions options, String marker) {
    RecordingListener listener = new RecordingListener();
    ClientCall<String, String> call = fixture.channel.newCall(method, options);
    call.start(listener, headers(marker));
    call.request(1);
    return listener;
  }

  @Test
  void newChannelIsIdleAndConnectsOnlyWhenAsked() {
    ManagedChannelImpl channel = fixture.build();

    assertThat(channel.getState(false)).isEqualTo(ConnectivityState.IDLE);
    assertThat(fixture.factory.transportCount()).isZero();

    assertThat(channel.getState(true)).isEqualTo(ConnectivityState.IDLE);
    assertThat(fixture.factory.transportCount()).isEqualTo(1);
    assertThat(fixture.factory.last().isStarted()).isTrue();
    assertThat(fixture.factory.last().userAgent)
        .isEqualTo("tester " + GrpcHeaders.USER_AGENT_TOKEN);
    assertThat(channel.getState(false)).isEqualTo(ConnectivityState.CONNECTING);

    fixture.readyTransport();
    assertThat(channel.getState(false)).isEqualTo(ConnectivityState.READY);
  }

  @Test
  void callIsQueuedUntilTransportIsReadyThenReplayedInOrder() {
    ManagedChannelImpl channel = fixture.build();
    RecordingListener listener = new RecordingListener();
    ClientCall<String, String> call = channel.newCall(BIDI, CallOptions.DEFAULT);
    call.start(listener, headers("first"));
    call.request(2);
    call.sendMessage("a");
    call.sendMessage("b");
    call.halfClose();

    FakeClientTransport transport = fixture.factory.last();
    assertThat(transport.streamCount()).isZero();
    assertThat(call.isReady()).isFalse();

    transport.ready();

    FakeClientStream stream = transport.lastStream();
    assertThat(stream.headers.get(CUSTOM)).isEqualTo("first");
    assertThat(stream.ops())
        .containsExactly(
            "start", "request 2", "message a", "flush", "message b", "flush", "halfClose");
    stream.deliverMessage("reply");
    stream.serverClose(Status.OK);
    assertThat(listener.events()).containsExactly("message reply", "close OK");
  }

  @Test
  void queuedCallsStartInTheOrderTheyWereMade() {
    fixture.build();
    start(UNARY, CallOptions.DEFAULT, "one");
    start(UNARY, CallOptions.DEFAULT, "two");
    start(UNARY, CallOptions.DEFAULT, "three");

    FakeClientTransport transport = fixture.readyTransport();

    assertThat(fixture.factory.transportCount()).isEqualTo(1);
    assertThat(transport.streamCount()).isEqualTo(3);
    assertThat(transport.stream(0).headers.get(CUSTOM)).isEqualTo("one");
    assertThat(transport.stream(1).headers.get(CUSTOM)).isEqualTo("two");
    assertThat(transport.stream(2).headers.get(CUSTOM)).isEqualTo("three");
  }

  @Test
  void callOnReadyTransportGoesStraightToAStream() {
    fixture.build();
    fixture.channel.getState(true);
    FakeClientTransport transport = fixture.readyTransport();

    start(UNARY, CallOptions.DEFAULT, "direct");

    assertThat(transport.lastStream().ops()).containsExactly("start", "request 1");
  }

  @Test
  void transportReportingReadyFromItsStartTaskServesTheFirstCallAtOnce() {
    fixture.build();
    // In-process style: the task start() returns reports ready, after the channel unlocked.
    FakeClientTransportFactory factory = fixture.factory;
    factory.setReadyOnStart(true);

    RecordingListener listener = start(UNARY, CallOptions.DEFAULT, "x");

    FakeClientStream stream = factory.last().lastStream();
    assertThat(stream.isStarted()).isTrue();
    stream.serverClose(Status.OK);
    assertThat(listener.events()).containsExactly("close OK");
  }

  @Test
  void failFastCallsFailWithTheTransportStatusWhenConnectingFails() {
    fixture.build();
    RecordingListener listener = start(UNARY, CallOptions.DEFAULT, "x");

    fixture.factory.last().failToConnect(Status.UNAVAILABLE.withDescription("connection refused"));

    assertThat(listener.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(listener.status.getDescription()).isEqualTo("connection refused");
    assertThat(fixture.channel.getState(false)).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
  }

  @Test
  void newFailFastCallInTransientFailureFailsAtOnceWithoutCuttingBackoffShort() {
    fixture.build();
    fixture.channel.getState(true);
    fixture.factory.last().failToConnect(Status.UNAVAILABLE.withDescription("refused"));

    RecordingListener listener = start(UNARY, CallOptions.DEFAULT, "x");

    assertThat(listener.status.getDescription()).isEqualTo("refused");
    assertThat(fixture.factory.transportCount()).isEqualTo(1);
  }

  @Test
  void waitForReadyCallWaitsThroughFailuresAndRunsOnceReconnected() {
    fixture.build();
    RecordingListener listener = start(UNARY, CallOptions.DEFAULT.withWaitForReady(), "wfr");

    fixture.factory.last().failToConnect(Status.UNAVAILABLE.withDescription("down"));
    assertThat(listener.isClosed()).isFalse();

    fixture.clock.forwardTime(1, TimeUnit.SECONDS);
    assertThat(fixture.factory.transportCount()).isEqualTo(2);
    // pick_first's TRANSIENT_FAILURE is sticky (gRFC A62): it lasts until a connection is READY.
    assertThat(fixture.channel.getState(false)).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    FakeClientTransport second = fixture.readyTransport();
    assertThat(fixture.channel.getState(false)).isEqualTo(ConnectivityState.READY);

    FakeClientStream stream = second.lastStream();
    assertThat(stream.headers.get(CUSTOM)).isEqualTo("wfr");
    stream.serverClose(Status.OK);
    assertThat(listener.events()).containsExactly("close OK");
  }

  @Test
  void reconnectBackoffGrowsByOnePointSixUpToTwoMinutesAndResetsAfterSuccess() {
    fixture.build();
    start(UNARY, CallOptions.DEFAULT.withWaitForReady(), "wfr");

    List<Long> delaysMillis = new ArrayList<>();
    for (int attempt = 0; attempt < 13; attempt++) {
      fixture.factory.last().failToConnect(Status.UNAVAILABLE);
      long delay = nextTaskDelayNanos();
      delaysMillis.add(TimeUnit.NANOSECONDS.toMillis(delay));
      int before = fixture.factory.transportCount();
      fixture.clock.forwardTime(delay - 1, TimeUnit.NANOSECONDS);
      assertThat(fixture.factory.transportCount()).isEqualTo(before);
      fixture.clock.forwardTime(1, TimeUnit.NANOSECONDS);
      assertThat(fixture.factory.transportCount()).isEqualTo(before + 1);
    }
    assertThat(delaysMillis)
        .containsExactly(
            1000L, 1600L, 2560L, 4096L, 6553L, 10485L, 16777L, 26843L, 42949L, 68719L, 109951L,
            120000L, 120000L);

    // Success resets the back-off: the next failure waits 1 s again.
    fixture.readyTransport();
    fixture.factory.last().goAway(Status.UNAVAILABLE);
    start(UNARY, CallOptions.DEFAULT.withWaitForReady(), "again");
    fixture.factory.last().failToConnect(Status.UNAVAILABLE);
    assertThat(nextTaskDelayNanos()).isEqualTo(TimeUnit.SECONDS.toNanos(1));
  }

  @Test
  void backoffJitterSpreadsDelaysByAtMostTwentyPercent() {
    BackoffPolicy low = new BackoffPolicy(() -> 0.0);
    BackoffPolicy high = new BackoffPolicy(() -> 0.999_999);

    assertThat(low.nextBackoffNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(800));
    assertThat(high.nextBackoffNanos()).isBetween(1_199_000_000L, 1_200_000_000L);
    assertThat(low.nextBackoffNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(1280));
  }

  @Test
  void resetConnectBackoffReconnectsAtOnce() {
    fixture.build();
    start(UNARY, CallOptions.DEFAULT.withWaitForReady(), "wfr");
    fixture.factory.last().failToConnect(Status.UNAVAILABLE);
    assertThat(fixture.clock.getPendingTasks()).hasSize(1);

    fixture.channel.resetConnectBackoff();

    assertThat(fixture.factory.transportCount()).isEqualTo(2);
    // Sticky (gRFC A62): still TRANSIENT_FAILURE while the new attempt runs.
    assertThat(fixture.channel.getState(false)).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    assertThat(fixture.clock.getPendingTasks()).isEmpty();
  }

  @Test
  void goAwayOnReadyTransportMakesChannelIdleWhileItsCallsFinish() {
    fixture.build();
    RecordingListener inFlight = start(UNARY, CallOptions.DEFAULT, "old");
    FakeClientTransport first = fixture.readyTransport();

    first.goAway(Status.UNAVAILABLE.withDescription("GOAWAY"));

    assertThat(fixture.channel.getState(false)).isEqualTo(ConnectivityState.IDLE);
    first.lastStream().deliverMessage("still here");
    first.lastStream().serverClose(Status.OK);
    assertThat(inFlight.events()).containsExactly("message still here", "close OK");
    assertThat(first.isTerminated()).isTrue();

    start(UNARY, CallOptions.DEFAULT, "new");
    assertThat(fixture.factory.transportCount()).isEqualTo(2);
    assertThat(fixture.readyTransport().lastStream().headers.get(CUSTOM)).isEqualTo("new");
  }

  @Test
  void idleTimeoutShutsTheTransportDownAndTheNextCallReconnects() {
    fixture.idleTimeoutNanos = TimeUnit.SECONDS.toNanos(10);
    fixture.build();
    start(UNARY, CallOptions.DEFAULT, "one");
    FakeClientTransport first = fixture.readyTransport();
    first.lastStream().serverClose(Status.OK);

    fixture.clock.forwardTime(9, TimeUnit.SECONDS);
    assertThat(first.isShutdown()).isFalse();
    fixture.clock.forwardTime(1, TimeUnit.SECONDS);

    assertThat(first.shutdownStatus().getDescription()).isEqualTo("Channel entering idle mode");
    assertThat(fixture.channel.getState(false)).isEqualTo(ConnectivityState.IDLE);

    start(UNARY, CallOptions.DEFAULT, "two");
    assertThat(fixture.factory.transportCount()).isEqualTo(2);
  }

  @Test
  void idleTimerWaitsWhileACallIsInFlightAndRestartsFromTheLastActivity() {
    fixture.idleTimeoutNanos = TimeUnit.SECONDS.toNanos(10);
    fixture.build();
    start(UNARY, CallOptions.DEFAULT, "long");
    FakeClientTransport transport = fixture.readyTransport();

    fixture.clock.forwardTime(1, TimeUnit.HOURS);
    assertThat(transport.isShutdown()).isFalse();

    transport.lastStream().serverClose(Status.OK);
    fixture.clock.forwardTime(5, TimeUnit.SECONDS);
    start(UNARY, CallOptions.DEFAULT, "short");
    transport.lastStream().serverClose(Status.OK);
    fixture.clock.forwardTime(9, TimeUnit.SECONDS);
    assertThat(transport.isShutdown()).isFalse();

    fixture.clock.forwardTime(1, TimeUnit.SECONDS);
    assertThat(transport.isShutdown()).isTrue();
  }

  @Test
  void enterIdleDropsTheTransportButCallsInFlightFinish() {
    fixture.build();
    RecordingListener inFlight = start(UNARY, CallOptions.DEFAULT, "old");
    FakeClientTransport first = fixture.readyTransport();

    fixture.channel.enterIdle();

    assertThat(fixture.channel.getState(false)).isEqualTo(ConnectivityState.IDLE);
    assertThat(first.shutdownStatus().getDescription()).isEqualTo("Channel entering idle mode");
    first.lastStream().serverClose(Status.OK);
    assertThat(inFlight.events()).containsExactly("close OK");

    start(UNARY, CallOptions.DEFAULT, "new");
    assertThat(fixture.factory.transportCount()).isEqualTo(2);
  }

  @Test
  void enterIdleWithQueuedCallsReconnectsForThemAtOnce() {
    fixture.build();
    RecordingListener queued = start(UNARY, CallOptions.DEFAULT, "queued");

    fixture.channel.enterIdle();

    assertThat(fixture.factory.transport(0).isShutdown()).isTrue();
    assertThat(fixture.factory.transportCount()).isEqualTo(2);
    FakeClientTransport second = fixture.readyTransport();
    second.lastStream().serverClose(Status.OK);
    assertThat(queued.events()).containsExactly("close OK");
  }

  @Test
  void cancelledQueuedCallNeverReachesATransport() {
    fixture.build();
    RecordingListener listener = new RecordingListener();
    ClientCall<String, String> call = fixture.channel.newCall(UNARY, CallOptions.DEFAULT);
    call.start(listener, headers("x"));
    call.sendMessage("m");

    call.cancel("changed my mind", null);

    assertThat(listener.events()).containsExactly("close CANCELLED");
    assertThat(listener.status.getDescription()).isEqualTo("changed my mind");
    FakeClientTransport transport = fixture.readyTransport();
    assertThat(transport.streamCount()).isZero();
  }

  @Test
  void shutdownFailsNewCallsAtOnce() {
    fixture.build();
    fixture.channel.shutdown();

    RecordingListener listener = start(UNARY, CallOptions.DEFAULT, "late");

    assertThat(fixture.channel.isShutdown()).isTrue();
    assertThat(listener.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(listener.status.getDescription()).isEqualTo("Channel shutdown invoked");
    assertThat(fixture.channel.getState(true)).isEqualTo(ConnectivityState.SHUTDOWN);
    assertThat(fixture.factory.transportCount()).isZero();
  }

  /**
   * {@code shutdown()} hands the closing of transports to the channel's context; while another
   * thread runs a task there, that waits, and the transport stays READY. A call made meanwhile must
   * still be refused, not picked onto it (CI saw one such call end OK in LoopbackStressTest).
   */
  @Test
  void callMadeAfterShutdownIsRefusedWhileTheChannelsContextIsBusyOnAnotherThread()
      throws Exception {
    AtomicReference<SynchronizationContext> context = new AtomicReference<>();
    fixture.nameResolverFactory =
        args -> {
          context.set(args.getSynchronizationContext());
          return new DirectAddressNameResolver(ClientTestSupport.ADDRESS, "test.example:443");
        };
    fixture.build();
    start(UNARY, CallOptions.DEFAULT, "in flight");
    FakeClientTransport transport = fixture.readyTransport();
    CountDownLatch busy = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread other =
        new Thread(
            () ->
                context
                    .get()
                    .execute(
                        () -> {
                          busy.countDown();
                          awaitQuietly(release);
                        }));
    other.start();
    try {
      assertThat(busy.await(30, TimeUnit.SECONDS)).isTrue();

      fixture.channel.shutdown();
      RecordingListener late = start(UNARY, CallOptions.DEFAULT, "late");

      assertThat(late.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(late.status.getDescription()).isEqualTo("Channel shutdown invoked");
      assertThat(transport.streamCount()).isEqualTo(1);
    } finally {
      release.countDown();
      other.join(TimeUnit.SECONDS.toMillis(30));
    }
    assertThat(other.isAlive()).isFalse();
    assertThat(transport.shutdownStatus().getDescription()).isEqualTo("Channel shutdown invoked");
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void shutdownLetsCallsInFlightFinishThenTerminates() throws Exception {
    fixture.build();
    RecordingListener inFlight = start(UNARY, CallOptions.DEFAULT, "x");
    FakeClientTransport transport = fixture.readyTransport();

    fixture.channel.shutdown();

    assertThat(transport.shutdownStatus().getDescription()).isEqualTo("Channel shutdown invoked");
    assertThat(fixture.channel.isTerminated()).isFalse();
    assertThat(fixture.channel.awaitTermination(0, TimeUnit.MILLISECONDS)).isFalse();
    CompletableFuture<Boolean> waiter =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return fixture.channel.awaitTermination(30, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                throw new AssertionError(e);
              }
            });

    transport.lastStream().deliverMessage("done");
    transport.lastStream().serverClose(Status.OK);

    assertThat(inFlight.events()).containsExactly("message done", "close OK");
    assertThat(waiter.get(30, TimeUnit.SECONDS)).isTrue();
    assertThat(fixture.channel.isTerminated()).isTrue();
    assertThat(fixture.factory.isClosed()).isTrue();
  }

  @Test
  void shutdownFailsCallsStillWaitingForATransport() {
    fixture.build();
    RecordingListener queued = start(UNARY, CallOptions.DEFAULT.withWaitForReady(), "q");

    fixture.channel.shutdown();

    assertThat(queued.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(queued.status.getDescription()).isEqualTo("Channel shutdown invoked");
    assertThat(fixture.factory.last().isShutdown()).isTrue();
    assertThat(fixture.channel.isTerminated()).isTrue();
  }

  @Test
  void shutdownOfAChannelThatNeverConnectedTerminatesAtOnce() {
    fixture.build();

    fixture.channel.shutdown();

    assertThat(fixture.channel.isTerminated()).isTrue();
    assertThat(fixture.factory.isClosed()).isTrue();
  }

  @Test
  void shutdownNowCancelsCallsInFlight() {
    fixture.build();
    RecordingListener inFlight = start(UNARY, CallOptions.DEFAULT, "x");
    FakeClientTransport transport = fixture.readyTransport();

    fixture.channel.shutdownNow();

    assertThat(inFlight.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(inFlight.status.getDescription()).isEqualTo("Channel shutdownNow invoked");
    assertThat(transport.shutdownNowStatus()).isNotNull();
    assertThat(fixture.channel.isTerminated()).isTrue();
  }

  @Test
  void notifyWhenStateChangedRunsOnceOnTheNextChange() {
    fixture.build();
    List<ConnectivityState> seen = new ArrayList<>();
    fixture.channel.notifyWhenStateChanged(
        ConnectivityState.IDLE, () -> seen.add(fixture.channel.getState(false)));

    assertThat(seen).isEmpty();
    fixture.channel.getState(true);
    assertThat(seen).containsExactly(ConnectivityState.CONNECTING);

    fixture.readyTransport();
    assertThat(seen).hasSize(1);

    fixture.channel.notifyWhenStateChanged(ConnectivityState.IDLE, () -> seen.add(null));
    assertThat(seen).hasSize(2); // the state already differs: runs at once
  }

  @Test
  void stateCallbacksRunOnTheChannelExecutor() {
    FakeClientExecutor executor = new FakeClientExecutor();
    fixture.executor = executor;
    fixture.directExecutor = false;
    fixture.build();
    AtomicInteger runs = new AtomicInteger();
    fixture.channel.notifyWhenStateChanged(ConnectivityState.IDLE, runs::incrementAndGet);

    fixture.channel.getState(true);

    assertThat(runs).hasValue(0);
    assertThat(executor.runAll()).isEqualTo(1);
    assertThat(runs).hasValue(1);
  }

  @Test
  void builderInterceptorsWrapEveryCallLastAddedRunningFirst() {
    List<String> order = new ArrayList<>();
    fixture.interceptors =
        List.of(recordingInterceptor("first", order), recordingInterceptor("second", order));
    fixture.build();

    start(UNARY, CallOptions.DEFAULT, "x");

    assertThat(order).containsExactly("second", "first");
  }

  @Test
  void throwingBuilderInterceptorFailsTheCallInsteadOfThrowing() {
    ClientInterceptor broken =
        new ClientInterceptor() {
          @Override
          public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
              MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
            throw new IllegalStateException("interceptor bug");
          }
        };
    fixture.interceptors = List.of(broken);
    fixture.build();

    RecordingListener listener = start(UNARY, CallOptions.DEFAULT, "x");

    assertThat(listener.status.getCode()).isEqualTo(Status.Code.UNKNOWN);
    assertThat(listener.status.getDescription()).contains("threw");
    assertThat(listener.status.getCause()).hasMessage("interceptor bug");
    assertThat(fixture.factory.transportCount()).isZero();
  }

  @Test
  void authorityAndToStringDescribeTheChannel() {
    fixture.build();

    assertThat(fixture.channel.authority()).isEqualTo("test.example:443");
    assertThat(fixture.channel.toString()).contains("test.example");
  }

  private static ClientInterceptor recordingInterceptor(String name, List<String> order) {
    return new ClientInterceptor() {
      @Override
      public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
          MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
        return new ForwardingClientCall.SimpleForwardingClientCall<>(
            next.newCall(method, callOptions)) {
          @Override
          public void start(Listener<RespT> responseListener, dev.tern.Metadata headers) {
            order.add(name);
            super.start(responseListener, headers);
          }
        };
      }
    };
  }

  /** The delay of the earliest task pending on the channel's clock, in nanoseconds. */
  private long nextTaskDelayNanos() {
    return fixture.clock.getPendingTasks().iterator().next().getDelay(TimeUnit.NANOSECONDS);
  }
}
