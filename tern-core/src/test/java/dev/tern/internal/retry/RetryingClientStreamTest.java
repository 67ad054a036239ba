package dev.tern.internal.retry;

import static dev.tern.internal.channel.ClientTestSupport.BIDI;
import static dev.tern.internal.channel.ClientTestSupport.UNARY;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.Deadline;
import dev.tern.LoadBalancer.PickSubchannelArgs;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.internal.channel.ClientTestSupport;
import dev.tern.internal.channel.FakeClientStream;
import dev.tern.internal.channel.FakeClientTransport;
import dev.tern.internal.channel.ReadyOnStartClientStream;
import dev.tern.internal.client.DelayedClientStream;
import dev.tern.internal.client.TransparentRetry;
import dev.tern.internal.config.HedgingPolicy;
import dev.tern.internal.config.RetryPolicy;
import dev.tern.internal.config.RetryThrottlingPolicy;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.spi.ClientStreamListener;
import dev.tern.testing.FakeClock;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The retry and hedging machinery against fake attempt streams and a fake clock: what each attempt
 * is sent, when the next one starts, what the call finally sees.
 */
class RetryingClientStreamTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  private final FakeClock clock = new FakeClock();
  private final FakeClientTransport transport =
      new FakeClientTransport(new InetSocketAddress("127.0.0.1", 1), "test", "tester");
  private final List<FakeClientStream> attempts = Collections.synchronizedList(new ArrayList<>());
  private final List<RetryingClientStream.AttemptArgs> picks =
      Collections.synchronizedList(new ArrayList<>());
  private final Recorder recorder = new Recorder();
  private RetryBuffer buffer = new RetryBuffer(1 << 20, 1 << 10);
  private double random = 0.5;

  /** When set, attempts from now on fail as they start (as a picker's error fails them). */
  private volatile Status failAttemptsWith;

  @BeforeEach
  void startTransport() {
    clock.setRethrowTaskFailures(true);
    transport.start(ClientTestSupport.IGNORING_TRANSPORT_LISTENER);
  }

  private static RetryPolicy retryPolicy(int maxAttempts, Status.Code... codes) {
    return new RetryPolicy(maxAttempts, 100 * MS, 300 * MS, 2.0, EnumSet.of(codes[0], codes));
  }

  private RetryingClientStream stream(
      MethodDescriptor<?, ?> method, AttemptPlan plan, Deadline deadline) {
    Metadata headers = new Metadata();
    headers.put(Metadata.Key.of("custom", Metadata.ASCII_STRING_MARSHALLER), "value");
    PickSubchannelArgs call =
        new RetryingClientStream.AttemptArgs(CallOptions.DEFAULT, headers, method, 0, false, false);
    return new RetryingClientStream(
        call,
        deadline,
        args -> {
          picks.add((RetryingClientStream.AttemptArgs) args);
          if (failAttemptsWith != null) {
            return DelayedClientStream.failed(failAttemptsWith);
          }
          FakeClientStream attempt =
              (FakeClientStream)
                  transport.newStream(
                      args.getMethodDescriptor(), args.getHeaders(), args.getCallOptions());
          attempts.add(attempt);
          return attempt;
        },
        plan,
        buffer);
  }

  private RetryingClientStream retrying(int maxAttempts, RetryThrottle throttle) {
    return stream(
        UNARY,
        AttemptPlan.retry(
            retryPolicy(maxAttempts, Status.Code.UNAVAILABLE), 5, throttle, clock, () -> random),
        null);
  }

  private RetryingClientStream hedging(int maxAttempts, long delayNanos) {
    HedgingPolicy policy =
        new HedgingPolicy(maxAttempts, delayNanos, EnumSet.of(Status.Code.UNAVAILABLE));
    return stream(UNARY, AttemptPlan.hedging(policy, 5, null, clock), null);
  }

  /** Starts {@code stream} as a unary call sending "req". */
  private void startUnary(RetryingClientStream stream) {
    stream.start(recorder);
    stream.request(1);
    stream.writeMessage(message("req"));
    stream.halfClose();
  }

  private static InputStream message(String text) {
    return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
  }

  private FakeClientStream attempt(int index) {
    return attempts.get(index);
  }

  private static String previousAttempts(FakeClientStream attempt) {
    return attempt.headers.get(GrpcHeaders.PREVIOUS_RPC_ATTEMPTS);
  }

  @Test
  void readinessSignalledBeforeTheAttemptCaughtUpReachesTheCallWhenItIsReady() {
    PickSubchannelArgs call =
        new RetryingClientStream.AttemptArgs(
            CallOptions.DEFAULT, new Metadata(), BIDI, 0, false, false);
    RetryingClientStream stream =
        new RetryingClientStream(
            call,
            null,
            args -> new ReadyOnStartClientStream(),
            AttemptPlan.retry(
                retryPolicy(3, Status.Code.UNAVAILABLE), 5, null, clock, () -> random),
            buffer);
    List<Boolean> readyWhenSignalled = new ArrayList<>();
    Recorder asking =
        new Recorder() {
          @Override
          public void onReady() {
            readyWhenSignalled.add(stream.isReady());
          }
        };

    // The attempt's stream says it is ready from inside its start, before the attempt has been
    // given the call's start: a signal passed on then would find isReady() false, and a caller
    // waiting for readiness (BlockingClientCall.write) would wait until the deadline.
    stream.start(asking);

    assertThat(readyWhenSignalled).isNotEmpty().containsOnly(true);
  }

  @Test
  void retriesAfterJitteredBackoffAndReplaysTheRequest() {
    RetryingClientStream stream = retrying(3, null);
    startUnary(stream);
    assertThat(attempts).hasSize(1);
    assertThat(previousAttempts(attempt(0))).isNull();

    attempt(0).serverClose(Status.UNAVAILABLE.withDescription("down"));
    assertThat(recorder.events).isEmpty();
    clock.forwardNanos(50 * MS - 1); // random 0.5 x initial backoff 100 ms
    assertThat(attempts).hasSize(1);
    clock.forwardNanos(1);

    assertThat(attempts).hasSize(2);
    FakeClientStream second = attempt(1);
    assertThat(previousAttempts(second)).isEqualTo("1");
    assertThat(second.headers.get(Metadata.Key.of("custom", Metadata.ASCII_STRING_MARSHALLER)))
        .isEqualTo("value");
    assertThat(second.ops()).containsExactly("start", "request 1", "message req", "halfClose");

    second.deliverHeaders(new Metadata());
    second.deliverMessage("resp");
    second.serverClose(Status.OK);
    assertThat(recorder.events).containsExactly("headers", "message resp", "closed OK PROCESSED");
    assertThat(buffer.used()).isZero();
  }

  @Test
  void backoffGrowsByTheMultiplierUpToTheMaximum() {
    random = 0.999;
    RetryingClientStream stream = retrying(5, null);
    startUnary(stream);
    long[] expectedMs = {99, 199, 299, 299};
    for (int i = 0; i < expectedMs.length; i++) {
      attempt(i).serverClose(Status.UNAVAILABLE);
      clock.forwardNanos(expectedMs[i] * MS);
      assertThat(attempts).as("attempt %d not yet", i + 2).hasSize(i + 1);
      clock.forwardNanos(MS);
      assertThat(attempts).hasSize(i + 2);
    }
    attempt(4).serverClose(Status.UNAVAILABLE.withDescription("fifth"));
    assertThat(recorder.events).containsExactly("closed UNAVAILABLE PROCESSED");
    assertThat(recorder.status.getDescription()).isEqualTo("fifth");
    assertThat(clock.numPendingTasks()).isZero();
  }

  @Test
  void statusNotRetryableEndsTheCallAtOnce() {
    RetryingClientStream stream = retrying(3, null);
    startUnary(stream);
    attempt(0).serverClose(Status.INVALID_ARGUMENT);
    assertThat(recorder.events).containsExactly("closed INVALID_ARGUMENT PROCESSED");
    assertThat(clock.numPendingTasks()).isZero();
  }

  @Test
  void channelCapCutsMaxAttempts() {
    RetryingClientStream stream =
        stream(
            UNARY,
            AttemptPlan.retry(
                retryPolicy(10, Status.Code.UNAVAILABLE), 2, null, clock, () -> random),
            null);
    startUnary(stream);
    attempt(0).serverClose(Status.UNAVAILABLE);
    clock.forwardTime(1, TimeUnit.SECONDS);
    attempt(1).serverClose(Status.UNAVAILABLE);
    assertThat(attempts).hasSize(2);
    assertThat(recorder.events).containsExactly("closed UNAVAILABLE PROCESSED");
  }

  @Test
  void pushbackSetsTheDelayAndResetsTheBackoff() {
    random = 0.999;
    RetryingClientStream stream = retrying(4, null);
    startUnary(stream);
    attempt(0).serverClose(Status.UNAVAILABLE, pushback("250"));
    clock.forwardNanos(250 * MS - 1);
    assertThat(attempts).hasSize(1);
    clock.forwardNanos(1);
    assertThat(attempts).hasSize(2);
    attempt(1).serverClose(Status.UNAVAILABLE);
    clock.forwardNanos(99 * MS); // back to the initial back-off
    assertThat(attempts).hasSize(2);
    clock.forwardNanos(MS);
    assertThat(attempts).hasSize(3);
  }

  @Test
  void negativeOrMalformedPushbackStopsRetries() {
    for (String value : new String[] {"-1", "abc", "007", "99999999999", ""}) {
      attempts.clear();
      recorder.events.clear();
      RetryingClientStream stream = retrying(4, null);
      startUnary(stream);
      attempt(0).serverClose(Status.UNAVAILABLE, pushback(value));
      assertThat(recorder.events)
          .as("pushback %s", value)
          .containsExactly("closed UNAVAILABLE PROCESSED");
      clock.forwardTime(10, TimeUnit.SECONDS);
      assertThat(attempts).as("pushback %s", value).hasSize(1);
    }
  }

  @Test
  void responseHeadersCommitTheCall() {
    RetryingClientStream stream = retrying(3, null);
    startUnary(stream);
    attempt(0).deliverHeaders(new Metadata());
    attempt(0).serverClose(Status.UNAVAILABLE);
    assertThat(recorder.events).containsExactly("headers", "closed UNAVAILABLE PROCESSED");
    assertThat(clock.numPendingTasks()).isZero();
  }

  @Test
  void refusedAttemptIsRetriedOnceAtOnceWithoutCounting() {
    RetryingClientStream stream = retrying(2, null);
    startUnary(stream);
    attempt(0).refuse(ClientStreamListener.RpcProgress.REFUSED);
    assertThat(attempts).hasSize(2);
    assertThat(previousAttempts(attempt(1))).isNull(); // the same attempt, sent again
    assertThat(attempt(1).ops()).containsExactly("start", "request 1", "message req", "halfClose");
    attempt(1).serverClose(Status.UNAVAILABLE); // now the policy's retry
    clock.forwardTime(1, TimeUnit.SECONDS);
    assertThat(attempts).hasSize(3);
    assertThat(previousAttempts(attempt(2))).isEqualTo("1");
  }

  @Test
  void refusedThenNeverSentTheCallSucceedsOnItsThirdStreamWithItsPolicyAttemptsIntact() {
    RetryingClientStream stream = retrying(2, null);
    startUnary(stream);
    attempt(0).refuse(ClientStreamListener.RpcProgress.REFUSED);
    attempt(1).refuse(ClientStreamListener.RpcProgress.DROPPED);
    assertThat(attempts).hasSize(3);
    assertThat(previousAttempts(attempt(2))).isNull(); // still the first attempt
    assertThat(attempt(2).ops()).containsExactly("start", "request 1", "message req", "halfClose");

    // The policy's one retry is still there.
    attempt(2).serverClose(Status.UNAVAILABLE);
    clock.forwardTime(1, TimeUnit.SECONDS);
    assertThat(attempts).hasSize(4);
    assertThat(previousAttempts(attempt(3))).isEqualTo("1");
    attempt(3).deliverHeaders(new Metadata());
    attempt(3).deliverMessage("ok");
    attempt(3).serverClose(Status.OK);
    assertThat(recorder.events).containsExactly("headers", "message ok", "closed OK PROCESSED");
  }

  @Test
  void aServerThatRefusesEveryStreamGetsOneTransparentRetryPerAttemptAndBackOffsBetween() {
    RetryingClientStream stream = retrying(3, null);
    startUnary(stream);
    for (int attempt = 0; attempt < 3; attempt++) {
      attempt(2 * attempt).refuse(ClientStreamListener.RpcProgress.REFUSED);
      assertThat(attempts).hasSize(2 * attempt + 2); // the transparent retry, at once
      attempt(2 * attempt + 1).refuse(ClientStreamListener.RpcProgress.REFUSED);
      assertThat(attempts).hasSize(2 * attempt + 2); // the policy's retry waits for its back-off
      clock.forwardTime(1, TimeUnit.SECONDS);
    }

    assertThat(attempts).hasSize(6);
    assertThat(recorder.events).containsExactly("closed UNAVAILABLE PROCESSED");
    assertThat(recorder.status.getDescription()).isEqualTo("refused");
    assertThat(clock.numPendingTasks()).isZero();
  }

  @Test
  void aTransportThatDropsEveryStreamEndsTheCallAfterTheBoundSayingSo() {
    RetryingClientStream stream = retrying(2, null);
    startUnary(stream);
    int perAttempt = TransparentRetry.MAX_DROPPED + 1;
    for (int i = 0; i < perAttempt; i++) {
      attempt(i).refuse(ClientStreamListener.RpcProgress.DROPPED);
    }
    assertThat(attempts).hasSize(perAttempt); // the policy's retry waits for its back-off
    clock.forwardTime(1, TimeUnit.SECONDS);
    for (int i = perAttempt; i < 2 * perAttempt; i++) {
      attempt(i).refuse(ClientStreamListener.RpcProgress.DROPPED);
    }

    assertThat(attempts).hasSize(2 * perAttempt);
    assertThat(recorder.events).containsExactly("closed UNAVAILABLE PROCESSED");
    assertThat(recorder.status.getDescription())
        .isEqualTo(
            "refused\ngave up after 100 transparent retries of streams that never left the client");
  }

  @Test
  void eachAttemptsPickSaysWhichAttemptItIsForItsTracers() {
    RetryingClientStream stream = retrying(2, null);
    startUnary(stream);
    attempt(0).refuse(ClientStreamListener.RpcProgress.REFUSED);
    attempt(1).serverClose(Status.UNAVAILABLE);
    clock.forwardTime(1, TimeUnit.SECONDS);

    assertThat(picks).hasSize(3);
    assertThat(picks.get(0).previous()).isZero();
    assertThat(picks.get(0).transparent()).isFalse();
    assertThat(picks.get(1).previous()).isZero(); // the same attempt, sent again
    assertThat(picks.get(1).transparent()).isTrue();
    assertThat(picks.get(2).previous()).isEqualTo(1);
    assertThat(picks.get(2).transparent()).isFalse();
    assertThat(picks).noneMatch(RetryingClientStream.AttemptArgs::hedging);
  }

  @Test
  void hedgedAttemptsPicksSayTheyAreHedges() {
    RetryingClientStream stream = hedging(2, 0);
    startUnary(stream);

    assertThat(picks).hasSize(2).allMatch(RetryingClientStream.AttemptArgs::hedging);
    assertThat(picks.get(1).previous()).isEqualTo(1);
  }

  @Test
  void cancelWhileWaitingToRetryEndsTheCallNow() {
    RetryingClientStream stream = retrying(3, null);
    startUnary(stream);
    attempt(0).serverClose(Status.UNAVAILABLE);
    stream.cancel(Status.CANCELLED.withDescription("user"));
    assertThat(recorder.events).containsExactly("closed CANCELLED PROCESSED");
    assertThat(clock.numPendingTasks()).isZero();
    assertThat(buffer.used()).isZero();
  }

  @Test
  void cancelReachesTheAttemptInFlight() {
    RetryingClientStream stream = retrying(3, null);
    startUnary(stream);
    stream.cancel(Status.DEADLINE_EXCEEDED);
    assertThat(attempt(0).cancelStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(recorder.events).containsExactly("closed DEADLINE_EXCEEDED PROCESSED");
    clock.forwardTime(1, TimeUnit.SECONDS);
    assertThat(attempts).hasSize(1);
  }

  @Test
  void passingThePerCallBufferLimitCommitsTheAttempt() {
    buffer = new RetryBuffer(1 << 20, 8);
    RetryingClientStream stream =
        stream(
            BIDI,
            AttemptPlan.retry(
                retryPolicy(3, Status.Code.UNAVAILABLE), 5, null, clock, () -> random),
            null);
    stream.start(recorder);
    stream.writeMessage(message("1234"));
    assertThat(buffer.used()).isEqualTo(4);
    stream.writeMessage(message("56789")); // 9 bytes: over the limit of 8
    assertThat(buffer.used()).isZero();
    stream.writeMessage(message("after"));
    assertThat(attempt(0).messages()).containsExactly("1234", "56789", "after");
    attempt(0).serverClose(Status.UNAVAILABLE);
    assertThat(recorder.events).containsExactly("closed UNAVAILABLE PROCESSED");
    assertThat(attempts).hasSize(1);
  }

  @Test
  void channelBufferIsSharedAndGivenBack() {
    buffer = new RetryBuffer(6, 1 << 10);
    RetryingClientStream first = retrying(3, null);
    startUnary(first); // holds 3 bytes
    RetryingClientStream second = retrying(3, null);
    second.start(new Recorder());
    second.writeMessage(message("four")); // 3 + 4 > 6: committed, not buffered
    assertThat(buffer.used()).isEqualTo(3);
    attempt(0).serverClose(Status.OK);
    assertThat(buffer.used()).isZero();
  }

  @Test
  void throttleStopsRetriesBelowHalfTheTokens() {
    RetryThrottle throttle = new RetryThrottle(new RetryThrottlingPolicy(4, 0.5));
    for (int call = 0; call < 2; call++) {
      RetryingClientStream stream = retrying(5, throttle);
      startUnary(stream);
      attempt(attempts.size() - 1).serverClose(Status.UNAVAILABLE);
      clock.forwardTime(1, TimeUnit.SECONDS);
      attempt(attempts.size() - 1).serverClose(Status.UNAVAILABLE);
    }
    // First call: 4 -> 3 tokens (3 > 2: retried), 3 -> 2 (not above 2: ended); second: 2 -> 1.
    assertThat(attempts).hasSize(3);
    assertThat(throttle.tokens()).isEqualTo(1.0);
    assertThat(throttle.allowsRetry()).isFalse();
  }

  @Test
  void hedgesAfterTheDelayAndTheWinnerCancelsTheRest() {
    RetryingClientStream stream = hedging(3, 50 * MS);
    startUnary(stream);
    assertThat(attempts).hasSize(1);
    clock.forwardNanos(50 * MS);
    assertThat(attempts).hasSize(2);
    assertThat(previousAttempts(attempt(1))).isEqualTo("1");
    assertThat(attempt(1).ops()).containsExactly("start", "request 1", "message req", "halfClose");

    attempt(1).deliverHeaders(new Metadata());
    assertThat(attempt(0).cancelStatus().getCode()).isEqualTo(Status.Code.CANCELLED);
    attempt(1).deliverMessage("fast");
    attempt(1).serverClose(Status.OK);
    clock.forwardTime(1, TimeUnit.SECONDS);
    assertThat(attempts).hasSize(2); // no third hedge once committed
    assertThat(recorder.events).containsExactly("headers", "message fast", "closed OK PROCESSED");
  }

  @Test
  void nonFatalFailureSendsTheNextHedgeAtOnce() {
    RetryingClientStream stream = hedging(3, 500 * MS);
    startUnary(stream);
    attempt(0).serverClose(Status.UNAVAILABLE);
    assertThat(attempts).hasSize(2);
    attempt(1).serverClose(Status.UNAVAILABLE);
    assertThat(attempts).hasSize(3);
    attempt(2).serverClose(Status.UNAVAILABLE.withDescription("last"));
    assertThat(recorder.events).containsExactly("closed UNAVAILABLE PROCESSED");
    assertThat(recorder.status.getDescription()).isEqualTo("last");
  }

  @Test
  void hedgeThatFailsAsItStartsEndsTheCallInsteadOfWaitingForTheDeadline() {
    // The rolling-restart finding: the first attempt fails while the next hedge's timer is set,
    // and the hedge sent at once instead fails as it starts (the channel's picker has an error).
    // Nothing is left in flight or scheduled, so the call must end now, not at its deadline.
    RetryingClientStream stream = hedging(2, 500 * MS);
    startUnary(stream);
    failAttemptsWith = Status.UNAVAILABLE.withDescription("no server is reachable");
    attempt(0).serverClose(Status.UNAVAILABLE.withDescription("connection closed"));
    assertThat(picks).hasSize(2);
    assertThat(recorder.events).containsExactly("closed UNAVAILABLE PROCESSED");
    assertThat(recorder.status.getDescription()).isEqualTo("no server is reachable");
    assertThat(clock.numPendingTasks()).isZero();
  }

  @Test
  void fatalFailureOfAHedgeCancelsTheOthers() {
    RetryingClientStream stream = hedging(3, 0);
    startUnary(stream);
    assertThat(attempts).hasSize(3); // a zero delay sends them all at once
    attempt(1).serverClose(Status.PERMISSION_DENIED);
    assertThat(attempt(0).cancelStatus()).isNotNull();
    assertThat(attempt(2).cancelStatus()).isNotNull();
    assertThat(recorder.events).containsExactly("closed PERMISSION_DENIED PROCESSED");
  }

  @Test
  void hedgingPushbackStopStopsFurtherHedges() {
    RetryingClientStream stream = hedging(3, 50 * MS);
    startUnary(stream);
    attempt(0).serverClose(Status.UNAVAILABLE, pushback("-1"));
    clock.forwardTime(1, TimeUnit.SECONDS);
    assertThat(attempts).hasSize(1);
    assertThat(recorder.events).containsExactly("closed UNAVAILABLE PROCESSED");
  }

  @Test
  void attemptsCarryTheRemainingTimeout() {
    Deadline deadline = Deadline.after(1, TimeUnit.SECONDS, clock.getTicker());
    RetryingClientStream stream =
        stream(
            UNARY,
            AttemptPlan.retry(
                retryPolicy(3, Status.Code.UNAVAILABLE), 5, null, clock, () -> random),
            deadline);
    startUnary(stream);
    assertThat(attempt(0).headers.get(GrpcHeaders.TIMEOUT)).isEqualTo("1000000u");
    attempt(0).serverClose(Status.UNAVAILABLE);
    clock.forwardNanos(50 * MS);
    assertThat(attempt(1).headers.get(GrpcHeaders.TIMEOUT)).isEqualTo("950000u");
  }

  private static Metadata pushback(String value) {
    Metadata trailers = new Metadata();
    trailers.put(GrpcHeaders.RETRY_PUSHBACK_MS, value);
    return trailers;
  }

  /** The call's side: records the events the stream delivers. */
  private static class Recorder implements ClientStreamListener {
    final List<String> events = Collections.synchronizedList(new ArrayList<>());
    volatile Status status;

    @Override
    public void headersRead(Metadata headers) {
      events.add("headers");
    }

    @Override
    public void closed(Status status, RpcProgress progress, Metadata trailers) {
      this.status = status;
      events.add("closed " + status.getCode() + " " + progress);
    }

    @Override
    public void messageRead(InputStream message) {
      try (InputStream in = message) {
        events.add("message " + new String(in.readAllBytes(), StandardCharsets.UTF_8));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    @Override
    public void onReady() {}
  }
}
