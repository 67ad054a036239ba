package dev.tern.inprocess;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.CompressorRegistry;
import dev.tern.DecompressorRegistry;
import dev.tern.LoadBalancerRegistry;
import dev.tern.ManagedChannel;
import dev.tern.ProxyDetector;
import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.internal.SharedExecutors;
import dev.tern.internal.channel.ChannelConfig;
import dev.tern.internal.channel.ClientTestSupport;
import dev.tern.internal.channel.DirectAddressNameResolver;
import dev.tern.internal.channel.ManagedChannelImpl;
import dev.tern.internal.channel.ServiceConfigOptions;
import dev.tern.internal.client.AdaptiveThrottling;
import dev.tern.internal.config.ServiceConfigParser;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.spi.ClientTransportFactory;
import dev.tern.spi.ManagedClientTransport;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCalls;
import dev.tern.testing.FakeClock;
import java.net.SocketAddress;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Client-side adaptive throttling end to end: a real in-process server that sheds most calls with
 * RESOURCE_EXHAUSTED, a channel whose calls retry or hedge on RESOURCE_EXHAUSTED, and what reaches
 * the server with and without throttling. The throttle's window runs on a fake clock (moved only to
 * let the window forget); its dice are a seeded random source, so each run sends the same attempts.
 */
class AdaptiveThrottlingEndToEndTest {
  /** 20 seconds of calls: the server can accept about 20. */
  private static final int CALLS = 200;

  private static final String RETRY =
      """
      {"methodConfig": [{"name": [{"service": "test.Echo"}],
        "retryPolicy": {"maxAttempts": 5, "initialBackoff": "0.001s", "maxBackoff": "0.002s",
          "backoffMultiplier": 2, "retryableStatusCodes": ["RESOURCE_EXHAUSTED"]}}]}
      """;
  private static final String HEDGING =
      """
      {"methodConfig": [{"name": [{"service": "test.Echo"}],
        "hedgingPolicy": {"maxAttempts": 5, "hedgingDelay": "0s",
          "nonFatalStatusCodes": ["RESOURCE_EXHAUSTED"]}}]}
      """;

  private final String name = InProcessServerBuilder.generateName();
  private final FakeClock clock = new FakeClock();
  private final AtomicInteger attempts = new AtomicInteger();
  private final AtomicInteger accepted = new AtomicInteger();
  private final AtomicLong lastAcceptedSecond = new AtomicLong(-1);
  private volatile boolean shedding = true;
  private Server server;
  private ManagedChannel channel;

  @AfterEach
  void tearDown() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    if (server != null) {
      server.shutdownNow();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  /**
   * While shedding, the server has the capacity of one call a second (of the fake clock): it
   * accepts the first attempt of each second and refuses the rest.
   */
  private void startServer() throws Exception {
    server =
        InProcessServerBuilder.forName(name)
            .addService(
                ServerServiceDefinition.builder("test.Echo")
                    .addMethod(
                        ClientTestSupport.UNARY,
                        ServerCalls.asyncUnaryCall(
                            (String request, dev.tern.stub.StreamObserver<String> response) -> {
                              attempts.incrementAndGet();
                              long second =
                                  TimeUnit.NANOSECONDS.toSeconds(clock.currentTimeNanos());
                              if (shedding && lastAcceptedSecond.getAndSet(second) == second) {
                                response.onError(
                                    Status.RESOURCE_EXHAUSTED
                                        .withDescription("shedding")
                                        .asRuntimeException());
                                return;
                              }
                              accepted.incrementAndGet();
                              response.onNext(request);
                              response.onCompleted();
                            }))
                    .build())
            .build()
            .start();
  }

  private ManagedChannel channel(String serviceConfig, boolean throttled) {
    AdaptiveThrottling throttling =
        throttled
            ? new AdaptiveThrottling(
                2.0,
                AdaptiveThrottling.DEFAULT_WINDOW_NANOS,
                AdaptiveThrottling.DEFAULT_BUCKETS,
                clock.getTicker(),
                new Random(49)::nextDouble)
            : null;
    SocketAddress address = new InProcessSocketAddress(name);
    return new ManagedChannelImpl(
        new ChannelConfig(
            "inprocess:" + name,
            args -> new DirectAddressNameResolver(address, name),
            0,
            null,
            "pick_first",
            LoadBalancerRegistry.getDefaultRegistry(),
            "tester " + GrpcHeaders.USER_AGENT_TOKEN,
            new InProcessFactory(),
            null,
            false,
            List.of(),
            TimeUnit.MINUTES.toNanos(30),
            4 << 20,
            CompressorRegistry.getDefaultInstance(),
            DecompressorRegistry.getDefaultInstance(),
            dev.tern.Deadline.getSystemTicker(),
            () -> 0.5,
            new ServiceConfigOptions(
                ServiceConfigParser.parseJson(
                    serviceConfig, LoadBalancerRegistry.getDefaultRegistry()),
                false,
                true,
                5,
                5,
                16L << 20,
                1L << 20),
            null,
            ProxyDetector.none(),
            throttling,
            dev.tern.MetricRecorder.none()));
  }

  /** What {@code calls} calls, one every 100 ms (ten times the server's capacity), ended with. */
  private Outcomes run(int calls) {
    Outcomes outcomes = new Outcomes();
    for (int i = 0; i < calls; i++) {
      clock.forwardTime(100, TimeUnit.MILLISECONDS);
      try {
        ClientCalls.blockingUnaryCall(channel, ClientTestSupport.UNARY, CallOptions.DEFAULT, "x");
        outcomes.ok++;
      } catch (StatusRuntimeException e) {
        Status status = e.getStatus();
        assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        if (status.getDescription().startsWith("client-side throttling: ")) {
          outcomes.throttled++;
        } else {
          assertThat(status.getDescription()).isEqualTo("shedding");
          outcomes.shed++;
        }
      }
    }
    return outcomes;
  }

  @Test
  void retriesAgainstASheddingServerReachItOnlyAboutTwiceAsOftenAsItAccepts() throws Exception {
    assertThrottlingBoundsTheAttempts(RETRY);
  }

  @Test
  void hedgesAgainstASheddingServerReachItOnlyAboutTwiceAsOftenAsItAccepts() throws Exception {
    assertThrottlingBoundsTheAttempts(HEDGING);
  }

  @Test
  void withoutAPolicy_aThrottledCallNeverReachesTheServer() throws Exception {
    startServer();
    channel = channel("{}", true);

    Outcomes outcomes = run(CALLS);

    assertThat(outcomes.throttled).isPositive();
    assertThat(attempts.get())
        .as("every call the server saw ended OK or shed; none of the throttled ones")
        .isEqualTo(outcomes.ok + outcomes.shed);
    assertThat(attempts.get()).isLessThanOrEqualTo(2 * accepted.get() + 30);
  }

  @Test
  void onceTheServerStopsSheddingAndTheWindowHasPassed_everyCallGoesThrough() throws Exception {
    startServer();
    channel = channel(RETRY, true);
    assertThat(run(CALLS).throttled).isPositive();

    shedding = false;
    Outcomes remembered = run(20);
    clock.forwardTime(2, TimeUnit.MINUTES);
    Outcomes forgotten = run(50);

    assertThat(remembered.shed).isZero();
    assertThat(remembered.throttled)
        .as("the window still holds the refusals: some calls are throttled")
        .isPositive();
    assertThat(forgotten.ok).isEqualTo(50);
  }

  /** Runs the calls without throttling, then with, under {@code serviceConfig}, and compares. */
  private void assertThrottlingBoundsTheAttempts(String serviceConfig) throws Exception {
    startServer();
    channel = channel(serviceConfig, false);
    run(CALLS);
    int unthrottledAttempts = attempts.getAndSet(0);
    accepted.set(0);
    channel.shutdownNow();
    clock.forwardTime(1, TimeUnit.SECONDS);

    channel = channel(serviceConfig, true);
    Outcomes outcomes = run(CALLS);

    int sent = attempts.get();
    int accepts = accepted.get();
    assertThat(outcomes.ok + outcomes.shed + outcomes.throttled).isEqualTo(CALLS);
    // At most: a hedge the server accepted may lose to another hedge's refusal, which ends the
    // call first (a fatal status commits a hedged call).
    assertThat(outcomes.ok).isPositive().isLessThanOrEqualTo(accepts);
    assertThat(outcomes.throttled).isPositive();
    // Unthrottled, nearly every call makes all its attempts; throttled, the attempts that reach
    // the server stay near k (2) times those it accepts (measured: 39 for 15 with retries, 38 to
    // 45 for 15 with hedges, whose five attempts go out together; unthrottled 916 and 1,000).
    assertThat(unthrottledAttempts).isGreaterThan(4 * CALLS);
    assertThat(sent).isLessThanOrEqualTo(2 * accepts + 30);
    assertThat(sent).isLessThan(unthrottledAttempts / 5);
  }

  private static final class Outcomes {
    int ok;
    int shed;
    int throttled;

    @Override
    public String toString() {
      return "ok=" + ok + ", shed=" + shed + ", throttled=" + throttled;
    }
  }

  /** In-process transports on the shared timer. */
  private static final class InProcessFactory implements ClientTransportFactory {
    @Override
    public ManagedClientTransport newClientTransport(
        SocketAddress address, String authority, String userAgent) {
      return new InProcessTransport(
          (InProcessSocketAddress) address, authority, userAgent, Integer.MAX_VALUE);
    }

    @Override
    public ScheduledExecutorService getScheduledExecutorService() {
      return SharedExecutors.timer();
    }

    @Override
    public void close() {}
  }
}
