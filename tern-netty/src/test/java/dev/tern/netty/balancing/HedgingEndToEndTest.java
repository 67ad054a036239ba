package dev.tern.netty.balancing;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.ServerCall;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.Await;
import dev.tern.testtools.Dnsmasq;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Hedging (gRFC A6) over real parts: dnsmasq, three Tern servers behind a round_robin {@code
 * dns://} channel, one of which takes 500 ms to answer. With a hedging policy (three attempts 50 ms
 * apart), a call that lands on the slow server is answered by the next hedge, and the slow server
 * is told its attempt is no longer wanted.
 */
@Tag("external-check") // long, or a rerun: -Pexternal-checks and CI (README.md#development)
class HedgingEndToEndTest extends DnsFarmTest {
  private static final String HEDGING =
      ServiceConfigs.roundRobinWithHedging("tern.test.ServerName", 3, "0.05s", "UNAVAILABLE");
  private static final int CALLS = 500;
  private static final long SLOW_MILLIS = 500;

  /**
   * 500 calls one after another: the 99th percentile of their latency stays under 200 ms (without
   * hedging a third of them would take 500 ms), and every attempt the slow server received was
   * cancelled, none answered.
   */
  @Test
  void hedgesAnswerForTheSlowServerAndItsAttemptsAreCancelled() throws Exception {
    ScheduledExecutorService timer = cleanup.register(Executors.newSingleThreadScheduledExecutor());
    SlowService slow = new SlowService(timer);
    dns = Dnsmasq.start(Map.of(DnsChannels.SERVICE_NAME, ServerFarm.HOSTS));
    farm =
        ServerFarm.start(
            cleanup,
            Set.of(),
            host ->
                host.equals(ServerFarm.HOST_2)
                    ? slow.definition()
                    : ServerNameService.definition(host));
    ManagedChannel channel =
        DnsChannels.channel(
            cleanup,
            DnsChannels.target(dns, DnsChannels.SERVICE_NAME, farm.port()),
            b -> b.defaultServiceConfigJson(HEDGING));
    DnsChannels.awaitAnswersFrom(channel, List.of(ServerFarm.HOST_3, ServerFarm.HOST_4));
    while (slow.received() == 0) { // until round_robin has connected to the slow one too
      DnsChannels.whoAnswers(channel);
    }

    int receivedBefore = slow.received();
    List<Long> latencies = new ArrayList<>();
    for (int i = 0; i < CALLS; i++) {
      long start = System.nanoTime();
      String answer =
          ClientCalls.blockingUnaryCall(
              channel,
              ServerNameService.GET,
              CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
              "who answers?");
      latencies.add(System.nanoTime() - start);
      assertThat(answer).isNotEqualTo(ServerFarm.HOST_2);
    }

    Collections.sort(latencies);
    long p99Millis = TimeUnit.NANOSECONDS.toMillis(latencies.get(CALLS * 99 / 100 - 1));
    assertThat(p99Millis).as("p99 latency, ms").isLessThan(200);
    assertThat(slow.received() - receivedBefore)
        .as("attempts the slow server received")
        .isGreaterThanOrEqualTo(CALLS / 6);
    slow.awaitAllCancelled();
    assertThat(slow.answered()).as("attempts the slow server answered").isZero();
  }

  /**
   * Answers {@link ServerNameService#GET} after {@link #SLOW_MILLIS}, from a timer (no thread
   * blocked), unless the call is cancelled first; counts calls received, cancelled and answered.
   *
   * <p>Thread-safe.
   */
  private static final class SlowService {
    private final ScheduledExecutorService timer;

    @GuardedBy("this")
    private int received;

    @GuardedBy("this")
    private int cancelled;

    @GuardedBy("this")
    private int answered;

    SlowService(ScheduledExecutorService timer) {
      this.timer = timer;
    }

    ServerServiceDefinition definition() {
      return ServerServiceDefinition.builder("tern.test.ServerName")
          .addMethod(ServerNameService.GET, this::startCall)
          .build();
    }

    synchronized int received() {
      return received;
    }

    synchronized int answered() {
      return answered;
    }

    /** Waits until every call received has been cancelled or answered. */
    synchronized void awaitAllCancelled() throws InterruptedException {
      long deadline = System.nanoTime() + Await.TIMEOUT.toNanos();
      while (cancelled + answered < received) {
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
          throw new AssertionError(
              "timed out: the slow server received "
                  + received
                  + " calls, saw "
                  + cancelled
                  + " cancelled and answered "
                  + answered);
        }
        TimeUnit.NANOSECONDS.timedWait(this, remaining);
      }
    }

    private synchronized void countReceived() {
      received++;
    }

    private synchronized void countAnswered() {
      answered++;
      notifyAll();
    }

    private synchronized void countCancelled() {
      cancelled++;
      notifyAll();
    }

    private ServerCall.Listener<String> startCall(
        ServerCall<String, String> call, Metadata headers) {
      countReceived();
      call.request(1);
      return new ServerCall.Listener<>() {
        private ScheduledFuture<?> answer;

        @Override
        public void onHalfClose() {
          synchronized (this) {
            answer = timer.schedule(this::answer, SLOW_MILLIS, TimeUnit.MILLISECONDS);
          }
        }

        private void answer() {
          countAnswered();
          call.sendHeaders(new Metadata());
          call.sendMessage(ServerFarm.HOST_2);
          call.close(Status.OK, new Metadata());
        }

        @Override
        public void onCancel() {
          synchronized (this) {
            if (answer != null) {
              answer.cancel(false);
            }
          }
          countCancelled();
        }
      };
    }
  }
}
