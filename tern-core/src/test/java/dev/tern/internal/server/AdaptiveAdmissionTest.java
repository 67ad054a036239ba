package dev.tern.internal.server;

import static dev.tern.internal.server.ServerTestSupport.echoService;
import static dev.tern.internal.server.ServerTestSupport.timeoutHeader;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Metadata;
import dev.tern.ServerCall;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.internal.server.ServerTestSupport.QueueExecutor;
import dev.tern.internal.server.ServerTestSupport.RecordingHandler;
import dev.tern.internal.server.ServerTestSupport.RefusalRecorder;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.testing.FakeClock;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The server's adaptive limit on unary calls, driven through the fake transport on a fake clock:
 * what it measures of a call (from its request's end to its handler's close), when it refuses, and
 * the calls it must never refuse (a slow-uploading client, a slow-reading client, hundreds of calls
 * held open together).
 */
class AdaptiveAdmissionTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  /** More than half the cold limit: enough calls in progress for the limiter to take notice. */
  private static final int NEAR_THE_COLD_LIMIT = AdaptiveConcurrencyLimit.INITIAL_LIMIT * 3 / 5;

  private final FakeClock clock = new FakeClock();
  private final RecordingHandler handler = new RecordingHandler();

  /** Hears admission; installed only by the tests that read it (it keeps every event). */
  private final RefusalRecorder tracers = new RefusalRecorder();

  private final FakeServerBuilder builder =
      new FakeServerBuilder()
          .directExecutor()
          .deadlineTicker(clock.getTicker())
          .addService(echoService(handler));
  private FakeServerTransport transport;

  private void startServer() throws IOException {
    builder.build().start();
    transport = builder.transportServer.accept();
    transport.ready(dev.tern.Attributes.EMPTY);
  }

  /** A unary call that arrived and sent its request; null if the server refused it. */
  private FakeServerStream received(Metadata headers) {
    FakeServerStream stream = transport.newStream("test.Echo/Unary", headers);
    if (stream.closeStatus != null) {
      stream.completeClose();
      return null;
    }
    stream.clientSends("request");
    stream.clientHalfCloses();
    return stream;
  }

  /** The handler answers the call of {@code stream}, and its trailers reach the client. */
  private static void answer(ServerCall<String, String> call, FakeServerStream stream) {
    call.close(Status.OK, new Metadata());
    stream.completeClose();
  }

  /** Teaches the limit the handler's unloaded latency, {@code latencyNanos}, a call at a time. */
  private void learnUnloaded(long latencyNanos) {
    for (int i = 0; i < 4 * AdaptiveConcurrencyLimit.WINDOW; i++) {
      FakeServerStream stream = received(new Metadata());
      clock.forwardNanos(latencyNanos);
      answer(handler.lastCall(), stream);
    }
  }

  /**
   * Offers a call every 0.25 ms to a handler that serves them one at a time, 1 ms each (the test
   * plays its one thread), then serves what it queued.
   *
   * @return the calls refused
   */
  private int oneThreadOfferedFourTimesWhatItServes(int arrivals) {
    ArrayDeque<FakeServerStream> streams = new ArrayDeque<>();
    ArrayDeque<ServerCall<String, String>> calls = new ArrayDeque<>();
    ArrayDeque<Long> arrivedAt = new ArrayDeque<>();
    long headEnds = 0;
    int refused = 0;
    for (int i = 0; i <= arrivals; i++) {
      long arrival = clock.currentTimeNanos() + MS / 4;
      while (!calls.isEmpty() && (headEnds <= arrival || i == arrivals)) {
        clock.forwardNanos(Math.max(0, headEnds - clock.currentTimeNanos()));
        arrivedAt.poll();
        answer(calls.poll(), streams.poll());
        if (!calls.isEmpty()) {
          headEnds = Math.max(headEnds, arrivedAt.peek()) + MS;
        }
      }
      if (i == arrivals) {
        break;
      }
      clock.forwardNanos(arrival - clock.currentTimeNanos());
      FakeServerStream stream = received(new Metadata());
      if (stream == null) {
        refused++;
        continue;
      }
      if (calls.isEmpty()) {
        headEnds = arrival + MS;
      }
      streams.add(stream);
      calls.add(handler.lastCall());
      arrivedAt.add(arrival);
    }
    return refused;
  }

  /** Takes the limit to its floor: real queueing, from a 1 ms unloaded latency. */
  private void overloadToTheFloor() {
    learnUnloaded(MS);
    assertThat(oneThreadOfferedFourTimesWhatItServes(40_000)).isPositive();
  }

  @Test
  void realQueueing_shedsWithResourceExhaustedBeforeTheHandler() throws IOException {
    builder
        .adaptiveConcurrencyLimit(true)
        .overloadRetryPushback(100)
        .addStreamTracerFactory(tracers);
    startServer();
    overloadToTheFloor();
    int started = handler.calls.size();
    List<FakeServerStream> open = new ArrayList<>();
    FakeServerStream refused = null;
    while (refused == null) {
      FakeServerStream next = transport.newStream("test.Echo/Unary", new Metadata());
      if (next.closeStatus != null) {
        refused = next;
      } else {
        open.add(next);
      }
    }
    FakeServerStream stream = transport.newStream("test.Echo/Bidi", new Metadata());

    // Down to about what one thread serves within the allowed latency, not hundreds.
    assertThat(open).hasSizeBetween(AdaptiveConcurrencyLimit.MIN_LIMIT, 24);
    assertThat(refused.closeStatus.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(refused.closeStatus.getDescription())
        .isEqualTo(
            "Server overloaded: "
                + open.size()
                + " unary calls in progress, its adaptive limit (adaptiveConcurrencyLimit); try"
                + " again later");
    assertThat(refused.closeTrailers.get(GrpcHeaders.RETRY_PUSHBACK_MS)).isEqualTo("100");
    assertThat(tracers.events).contains("refused ADAPTIVE_CONCURRENCY_LIMIT");
    assertThat(stream.closeStatus).as("streams do not count against the adaptive limit").isNull();
    assertThat(handler.calls).hasSize(started + open.size() + 1);

    open.get(0).reportClosed(Status.CANCELLED);
    assertThat(transport.newStream("test.Echo/Unary", new Metadata()).closeStatus).isNull();
  }

  @Test
  void adaptiveLimitOff_neverRefusesWhateverTheQueue() throws IOException {
    builder.adaptiveConcurrencyLimit(false);
    startServer();
    learnUnloaded(MS);

    assertThat(oneThreadOfferedFourTimesWhatItServes(20_000)).isZero();
  }

  @Test
  void adaptiveLimitReached_givesBackTheMaxConcurrentCallsSlotItTook() throws IOException {
    builder
        .adaptiveConcurrencyLimit(true)
        .maxConcurrentCalls(AdaptiveConcurrencyLimit.INITIAL_LIMIT + 1);
    startServer();
    for (int i = 0; i < AdaptiveConcurrencyLimit.INITIAL_LIMIT; i++) {
      transport.newStream("test.Echo/Unary", new Metadata());
    }
    for (int i = 0; i < 3; i++) {
      FakeServerStream refused = transport.newStream("test.Echo/Unary", new Metadata());
      assertThat(refused.closeStatus.getDescription()).contains("adaptive limit");
      refused.completeClose();
    }

    assertThat(transport.newStream("test.Echo/Bidi", new Metadata()).closeStatus)
        .as("the one slot of maxConcurrentCalls left")
        .isNull();
  }

  /** Serves test.Other/Unary too, and holds as many test.Echo/Unary calls as the cold limit. */
  private void startWithASecondUnaryMethod_andEchoAtTheColdLimit() throws IOException {
    builder.addService(
        ServerServiceDefinition.builder("test.Other")
            .addMethod(ServerTestSupport.method("test.Other/Unary", false), handler)
            .build());
    startServer();
    for (int i = 0; i < AdaptiveConcurrencyLimit.INITIAL_LIMIT; i++) {
      transport.newStream("test.Echo/Unary", new Metadata());
    }
  }

  @Test
  void perMethod_aMethodAtItsLimitIsRefusedByName_andAnotherMethodStillStarts() throws IOException {
    builder.adaptiveConcurrencyLimitPerMethod(true);
    startWithASecondUnaryMethod_andEchoAtTheColdLimit();

    FakeServerStream refused = transport.newStream("test.Echo/Unary", new Metadata());
    FakeServerStream other = transport.newStream("test.Other/Unary", new Metadata());

    assertThat(refused.closeStatus.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(refused.closeStatus.getDescription())
        .isEqualTo(
            "Server overloaded: "
                + AdaptiveConcurrencyLimit.INITIAL_LIMIT
                + " calls of test.Echo/Unary in progress, its adaptive limit per method"
                + " (adaptiveConcurrencyLimitPerMethod); try again later");
    assertThat(other.closeStatus).as("the other method's limit is its own").isNull();
  }

  /** Serves test.Feed/Watch, a server-streaming method, beside test.Echo's unary and bidi ones. */
  private void startWithAServerStreamingMethod() throws IOException {
    builder.addService(
        ServerServiceDefinition.builder("test.Feed")
            .addMethod(
                ServerTestSupport.UNARY.toBuilder()
                    .setFullMethodName("test.Feed/Watch")
                    .setType(dev.tern.MethodDescriptor.MethodType.SERVER_STREAMING)
                    .build(),
                handler)
            .build());
    startServer();
  }

  @Test
  void serverStreamsWithADeadline_meetTheirMethodsOwnLimit_refusedByName() throws IOException {
    startWithAServerStreamingMethod();
    for (int i = 0; i < AdaptiveConcurrencyLimit.INITIAL_LIMIT; i++) {
      assertThat(transport.newStream("test.Feed/Watch", timeoutHeader("10S")).closeStatus).isNull();
    }

    FakeServerStream refused = transport.newStream("test.Feed/Watch", timeoutHeader("10S"));
    FakeServerStream unary = transport.newStream("test.Echo/Unary", new Metadata());

    assertThat(refused.closeStatus.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(refused.closeStatus.getDescription())
        .isEqualTo(
            "Server overloaded: "
                + AdaptiveConcurrencyLimit.INITIAL_LIMIT
                + " server-streaming calls of test.Feed/Watch in progress, its adaptive limit"
                + " (adaptiveConcurrencyLimit, one per streaming method); try again later");
    assertThat(unary.closeStatus)
        .as("unary calls meet the server's limit, not the stream's")
        .isNull();
  }

  @Test
  void serverStreamsWithoutADeadline_andBidiStreams_meetNoAdaptiveLimit() throws IOException {
    startWithAServerStreamingMethod();
    for (int i = 0; i <= AdaptiveConcurrencyLimit.INITIAL_LIMIT; i++) {
      assertThat(transport.newStream("test.Feed/Watch", new Metadata()).closeStatus)
          .as("a watch stream without a deadline")
          .isNull();
      assertThat(transport.newStream("test.Echo/Bidi", timeoutHeader("10S")).closeStatus)
          .as("a bidi stream")
          .isNull();
    }
  }

  @Test
  void oneLimitForTheServer_byDefault_countsEveryUnaryMethod() throws IOException {
    startWithASecondUnaryMethod_andEchoAtTheColdLimit();

    FakeServerStream other = transport.newStream("test.Other/Unary", new Metadata());

    assertThat(other.closeStatus.getDescription())
        .isEqualTo(
            "Server overloaded: "
                + AdaptiveConcurrencyLimit.INITIAL_LIMIT
                + " unary calls in progress, its adaptive limit (adaptiveConcurrencyLimit); try"
                + " again later");
  }

  @Test
  void unaryCallWithLessTimeThanTheRecentMedianLatency_isNotStartedWhileBusy() throws IOException {
    builder.adaptiveConcurrencyLimit(true).addStreamTracerFactory(tracers);
    startServer();
    overloadToTheFloor();
    learnUnloaded(100 * MS); // the recent median: 100 ms
    FakeServerStream idle = transport.newStream("test.Echo/Unary", timeoutHeader("10m"));
    assertThat(idle.closeStatus).as("an idle server starts it, and keeps learning").isNull();
    // More calls in progress, until the server is busy (half its limit) and refuses a short one.
    FakeServerStream tooShort = null;
    for (int i = 0; tooShort == null; i++) {
      assertThat(i).as("calls in progress before the server is busy").isLessThan(64);
      transport.newStream("test.Echo/Unary", new Metadata());
      FakeServerStream shortCall = transport.newStream("test.Echo/Unary", timeoutHeader("10m"));
      if (shortCall.closeStatus != null) {
        tooShort = shortCall;
      }
    }
    int started = handler.calls.size();

    FakeServerStream enough = transport.newStream("test.Echo/Unary", timeoutHeader("150m"));
    FakeServerStream streaming = transport.newStream("test.Echo/Bidi", timeoutHeader("10m"));

    assertThat(tooShort.closeStatus.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(tooShort.closeStatus.getDescription())
        .isEqualTo(
            "Deadline too short: the call's grpc-timeout of 10000000 ns is shorter than the"
                + " server's recent median unary call latency of 100000000 ns; not started");
    assertThat(tracers.events).contains("refused DEADLINE_SHORTER_THAN_RECENT_LATENCY");
    assertThat(enough.closeStatus).isNull();
    assertThat(streaming.closeStatus).as("streams are not measured").isNull();
    assertThat(handler.calls).hasSize(started + 2);
  }

  /**
   * Rounds of {@code calls} unary calls in progress together: each arrives, then {@code upload}
   * passes before its request is complete; the handler answers each {@code serve} after that, and
   * {@code download} passes before the answer has reached the client.
   *
   * @return the calls refused
   */
  private int rounds(int rounds, int calls, long upload, long serve, long download) {
    int refused = 0;
    for (int r = 0; r < rounds; r++) {
      List<FakeServerStream> streams = new ArrayList<>();
      for (int i = 0; i < calls; i++) {
        FakeServerStream stream = transport.newStream("test.Echo/Unary", new Metadata());
        if (stream.closeStatus != null) {
          refused++;
          stream.completeClose();
        } else {
          streams.add(stream);
        }
      }
      clock.forwardNanos(upload);
      for (FakeServerStream stream : streams) {
        stream.clientSends("request");
        stream.clientHalfCloses();
      }
      clock.forwardNanos(serve);
      for (ServerCall<String, String> call :
          handler.calls.subList(handler.calls.size() - streams.size(), handler.calls.size())) {
        call.close(Status.OK, new Metadata());
      }
      clock.forwardNanos(download);
      for (FakeServerStream stream : streams) {
        stream.completeClose();
      }
    }
    return refused;
  }

  @Test
  void slowUploadingClients_nearTheLimit_areNotTakenForOverload() throws IOException {
    // The default server: its adaptive limit is on.
    startServer();
    learnUnloaded(MS);

    // Each request takes 10 s to arrive; the server answers it in 1 ms.
    assertThat(rounds(10, NEAR_THE_COLD_LIMIT, 10_000 * MS, MS, 0)).isZero();
    assertThat(rounds(1, AdaptiveConcurrencyLimit.INITIAL_LIMIT, 0, MS, 0)).isZero();
  }

  @Test
  void slowReadingClients_nearTheLimit_areNotTakenForOverload() throws IOException {
    // The default server: its adaptive limit is on.
    startServer();
    learnUnloaded(MS);

    // The server answers in 1 ms; each answer takes 10 s to reach its client (flow control).
    assertThat(rounds(10, NEAR_THE_COLD_LIMIT, 0, MS, 10_000 * MS)).isZero();
    assertThat(rounds(1, AdaptiveConcurrencyLimit.INITIAL_LIMIT, 0, MS, 0)).isZero();
  }

  @Test
  void fiveHundredCallsHeldOpenUntilAllArrived_areAllAdmittedRoundAfterRound() throws IOException {
    // The default server: its adaptive limit is on.
    startServer();
    learnUnloaded(MS / 2);

    // A handler that waits for all 500 (a latch): each takes 2 s, 4,000 times its unloaded latency.
    assertThat(rounds(50, 500, 0, 2_000 * MS, 0)).isZero();
  }

  @Test
  void deadlinesPassingInTheExecutorsQueue_farBelowTheColdLimit_bringItDown() throws IOException {
    QueueExecutor executor = new QueueExecutor();
    builder.executor(executor); // the default server, but for the executor the test runs
    startServer();
    for (int i = 0; i < 4 * AdaptiveConcurrencyLimit.WINDOW; i++) {
      FakeServerStream stream = received(new Metadata());
      executor.runAll();
      clock.forwardTime(1, TimeUnit.MILLISECONDS);
      answer(handler.lastCall(), stream);
    }

    // 1,000 calls with 100 ms deadlines wait for an executor that reaches them 200 ms later: none
    // starts, all end DEADLINE_EXCEEDED, far below half the cold limit.
    List<FakeServerStream> waited = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      waited.add(received(timeoutHeader("100m")));
    }
    clock.forwardTime(200, TimeUnit.MILLISECONDS);
    executor.runAll();
    assertThat(waited)
        .allSatisfy(
            s -> assertThat(s.cancelStatus.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));

    for (int i = 0; i < AdaptiveConcurrencyLimit.MIN_LIMIT; i++) {
      assertThat(received(new Metadata())).isNotNull();
    }
    FakeServerStream refused = transport.newStream("test.Echo/Unary", new Metadata());
    assertThat(refused.closeStatus).as("the call past the limit's floor, refused").isNotNull();
    assertThat(refused.closeStatus.getDescription())
        .isEqualTo(
            "Server overloaded: "
                + AdaptiveConcurrencyLimit.MIN_LIMIT
                + " unary calls in progress, its adaptive limit (adaptiveConcurrencyLimit); try"
                + " again later");
  }

  @Test
  void callsTheirClientsCancelBeforeTheAnswer_farBelowTheColdLimit_bringItDown()
      throws IOException {
    QueueExecutor executor = new QueueExecutor();
    builder.executor(executor); // the default server, but for the executor the test runs
    startServer();
    for (int i = 0; i < 4 * AdaptiveConcurrencyLimit.WINDOW; i++) {
      FakeServerStream stream = received(new Metadata());
      executor.runAll();
      clock.forwardTime(1, TimeUnit.MILLISECONDS);
      answer(handler.lastCall(), stream);
    }

    // 1,000 calls wait for an executor that is 1 s behind, and their clients give up first (they
    // cancel at their own deadlines, which the server's clock may not have reached yet): the server
    // fails them at the concurrency it has, far below half the cold limit.
    List<FakeServerStream> abandoned = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      abandoned.add(received(new Metadata()));
    }
    clock.forwardTime(1, TimeUnit.SECONDS);
    for (FakeServerStream stream : abandoned) {
      stream.reportClosed(Status.CANCELLED.withDescription("client cancelled (RST_STREAM CANCEL)"));
    }
    executor.runAll();

    for (int i = 0; i < AdaptiveConcurrencyLimit.MIN_LIMIT; i++) {
      assertThat(received(new Metadata())).isNotNull();
    }
    FakeServerStream refused = transport.newStream("test.Echo/Unary", new Metadata());
    assertThat(refused.closeStatus).as("the call past the limit's floor, refused").isNotNull();
    assertThat(refused.closeStatus.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }
}
