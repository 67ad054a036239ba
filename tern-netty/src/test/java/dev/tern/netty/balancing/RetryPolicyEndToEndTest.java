package dev.tern.netty.balancing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Server;
import dev.tern.ServerInterceptors;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.netty.balancing.CallLoad.Outcome;
import dev.tern.netty.balancing.FlakyService.Attempt;
import dev.tern.netty.balancing.FlakyService.Reply;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.Await;
import dev.tern.testtools.Dnsmasq;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Retry policies (gRFC A6) over real parts: dnsmasq serving {@code svc.tern.test}, Tern servers on
 * 127.0.0.2, .3 and .4, and a {@code dns://DNS_SERVER/} channel whose default service config picks
 * round_robin and retries UNAVAILABLE calls of {@link ServerNameService}; and, for the server's
 * pushback, one server on 127.0.0.1.
 */
class RetryPolicyEndToEndTest extends DnsFarmTest {
  private static final String SERVICE = "tern.test.ServerName";
  private static final String RETRY_UNAVAILABLE =
      ServiceConfigs.roundRobinWithRetry(SERVICE, 4, "UNAVAILABLE");
  private static final int CALLS = 1_000;
  private static final int CONCURRENCY = 8;

  private final Map<String, AttemptLog> logs = new LinkedHashMap<>();

  /**
   * One of three servers answers UNAVAILABLE to every call; the retry policy sends each call that
   * lands there again, and round_robin gives the retry to the next server, so every call succeeds.
   * The calls go one at a time, so that nothing else is picked between an attempt and its retry.
   * The failing server sees only first attempts (no {@code grpc-previous-rpc-attempts}); the
   * healthy ones see one retry ("1") for each of them.
   */
  @Test
  void retriesHideAServerThatFailsEveryCall() throws Exception {
    startFarmWithFailingServer();
    ManagedChannel channel = newChannel(b -> b.defaultServiceConfigJson(RETRY_UNAVAILABLE));
    awaitCallsOnEveryServer(channel);
    logs.values().forEach(AttemptLog::clear);

    List<Outcome> outcomes = CallLoad.start(channel, 1, CALLS).awaitDone();

    assertThat(outcomes.stream().filter(o -> !o.ok()).toList()).as("failed calls").isEmpty();
    assertThat(outcomes).hasSize(CALLS);
    Map<String, Integer> answers = CallLoad.answersPerServer(outcomes);
    assertThat(answers.get(ServerFarm.HOST_2)).isZero();
    assertThat(logs.get(ServerFarm.HOST_2).seen())
        .as("attempts the failing server saw: first attempts only")
        .hasSizeGreaterThanOrEqualTo(CALLS / 3)
        .containsOnly(AttemptLog.ABSENT);
    // Each of those was retried once, on the server after it in round_robin's order.
    assertThat(logs.get(ServerFarm.HOST_3).count("1") + logs.get(ServerFarm.HOST_4).count("1"))
        .as("retries the healthy servers answered")
        .isEqualTo(logs.get(ServerFarm.HOST_2).seen().size());
  }

  /**
   * With eight calls in flight, each attempt is a pick of its own among other calls' picks, so a
   * retry may land on the failing server again: a call fails only if all four of its attempts did
   * (the failing server saw its fourth attempt, "3"), and there are few such calls.
   */
  @Test
  void concurrentCallsFailOnlyWhenEveryAttemptHitTheFailingServer() throws Exception {
    startFarmWithFailingServer();
    ManagedChannel channel = newChannel(b -> b.defaultServiceConfigJson(RETRY_UNAVAILABLE));
    awaitCallsOnEveryServer(channel);
    logs.values().forEach(AttemptLog::clear);

    List<Outcome> outcomes = CallLoad.start(channel, CONCURRENCY, CALLS).awaitDone();

    List<Outcome> failures = outcomes.stream().filter(o -> !o.ok()).toList();
    assertThat(failures).as("failed calls").hasSizeLessThan(CALLS / 20);
    assertThat((long) failures.size())
        .as("failed calls, vs. fourth attempts the failing server saw")
        .isEqualTo(logs.get(ServerFarm.HOST_2).count("3"));
  }

  /** The same with retries disabled on the channel: calls that land on the failing server fail. */
  @Test
  void withRetryDisabledTheFailingServersCallsFail() throws Exception {
    startFarmWithFailingServer();
    ManagedChannel channel =
        newChannel(b -> b.defaultServiceConfigJson(RETRY_UNAVAILABLE).disableRetry());
    awaitCallsOnEveryServer(channel);

    List<Outcome> outcomes = CallLoad.start(channel, CONCURRENCY, CALLS / 2).awaitDone();

    List<Outcome> failures = outcomes.stream().filter(o -> !o.ok()).toList();
    assertThat(failures)
        .as("failed calls, about a third")
        .hasSizeBetween(CALLS / 2 / 5, CALLS / 2 / 2)
        .allSatisfy(f -> assertThat(f.status().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    logs.values()
        .forEach(log -> assertThat(log.seen()).as("no retry was sent").containsOnly("absent"));
  }

  /**
   * Under load, one server shut down gracefully and then another one's process killed: with the
   * retry policy, no call fails (those that were on the killed server are sent again) unless the
   * killed server's response headers had reached it, and the last server takes every call.
   */
  @Test
  void losingTwoServersUnderLoadCostsNoCall() throws Exception {
    dns = Dnsmasq.start(Map.of(DnsChannels.SERVICE_NAME, ServerFarm.HOSTS));
    farm = ServerFarm.start(cleanup, Set.of(ServerFarm.HOST_4));
    ManagedChannel channel = newChannel(b -> b.defaultServiceConfigJson(RETRY_UNAVAILABLE));
    DnsChannels.awaitAnswersFrom(channel, ServerFarm.HOSTS);
    CallLoad load = CallLoad.start(channel, 12);
    load.awaitCompleted(300);

    Server leaving = farm.server(ServerFarm.HOST_2);
    leaving.shutdown();
    assertThat(leaving.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    load.awaitCompleted(load.completed() + 300);
    farm.process(ServerFarm.HOST_4).kill();
    load.awaitCompleted(load.completed() + CALLS);
    List<Outcome> outcomes = load.stop();

    // A call whose response headers had arrived from the killed server is committed (gRFC A6: no
    // retry after the server's headers), so it may fail if the kill fell between its headers and
    // its trailers; any other failure is a call the policy should have sent again.
    assertThat(outcomes.stream().filter(o -> !o.ok()).toList())
        .as("failed calls")
        .allSatisfy(
            failure -> {
              assertThat(failure.headersReceived())
                  .as("committed by the server's headers")
                  .isTrue();
              assertThat(failure.status().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
              assertThat(((InetSocketAddress) failure.closedOn()).getAddress().getHostAddress())
                  .as("the server the call was on")
                  .isEqualTo(ServerFarm.HOST_4);
            })
        .hasSizeLessThanOrEqualTo(12);
    List<Outcome> last = outcomes.subList(outcomes.size() - CALLS / 2, outcomes.size());
    assertThat(CallLoad.answersPerServer(last))
        .containsEntry(ServerFarm.HOST_2, 0)
        .containsEntry(ServerFarm.HOST_3, CALLS / 2)
        .containsEntry(ServerFarm.HOST_4, 0);
  }

  /** A negative {@code grpc-retry-pushback-ms} tells the client not to retry: one attempt only. */
  @Test
  void negativePushbackStopsTheRetries() throws Exception {
    FlakyService flaky =
        new FlakyService(
            Reply.fail(Status.Code.UNAVAILABLE, "-1"),
            Reply.fail(Status.Code.UNAVAILABLE),
            Reply.fail(Status.Code.UNAVAILABLE));
    ManagedChannel channel = flakyChannel(flaky);

    assertThatThrownBy(() -> unary(channel))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    assertThat(flaky.attempts()).as("attempts the server saw").hasSize(1);
  }

  /**
   * A pushback of 300 ms: the retry reaches the server no sooner than 300 ms after the server ended
   * the first attempt, and carries {@code grpc-previous-rpc-attempts: 1}.
   */
  @Test
  void pushbackDelaysTheRetry() throws Exception {
    FlakyService flaky = new FlakyService(Reply.fail(Status.Code.UNAVAILABLE, "300"));
    ManagedChannel channel = flakyChannel(flaky);

    assertThat(unary(channel)).isEqualTo("1");

    List<Attempt> attempts = flaky.attempts();
    assertThat(attempts).hasSize(2);
    assertThat(attempts.get(0).previousAttempts()).isNull();
    assertThat(attempts.get(1).previousAttempts()).isEqualTo("1");
    long gapMillis =
        TimeUnit.NANOSECONDS.toMillis(
            attempts.get(1).arrivedNanos() - attempts.get(0).closedNanos());
    assertThat(gapMillis)
        .as("ms between the first attempt's end and the retry")
        .isGreaterThanOrEqualTo(300);
  }

  // ------------------------------------------------------------------------------ helpers

  /** Three servers, each with an {@link AttemptLog}; the one on 127.0.0.2 fails every call. */
  private void startFarmWithFailingServer() throws Exception {
    dns = Dnsmasq.start(Map.of(DnsChannels.SERVICE_NAME, ServerFarm.HOSTS));
    for (String host : ServerFarm.HOSTS) {
      logs.put(host, new AttemptLog());
    }
    farm =
        ServerFarm.start(
            cleanup,
            Set.of(),
            host ->
                ServerInterceptors.intercept(
                    host.equals(ServerFarm.HOST_2)
                        ? alwaysUnavailable()
                        : ServerNameService.definition(host),
                    logs.get(host)));
  }

  private static ServerServiceDefinition alwaysUnavailable() {
    return ServerServiceDefinition.builder(SERVICE)
        .addMethod(
            ServerNameService.GET,
            (call, headers) -> {
              call.close(
                  Status.UNAVAILABLE.withDescription("always failing"), new dev.tern.Metadata());
              return new dev.tern.ServerCall.Listener<>() {};
            })
        .build();
  }

  private ManagedChannel newChannel(java.util.function.Consumer<ManagedChannelBuilder<?>> options) {
    return DnsChannels.channel(
        cleanup, DnsChannels.target(dns, DnsChannels.SERVICE_NAME, farm.port()), options);
  }

  /**
   * Calls (whatever their outcome) until every server has received one: round_robin sends calls
   * only to servers it has connected to, and connects to them one by one.
   */
  private void awaitCallsOnEveryServer(ManagedChannel channel) {
    long deadline = System.nanoTime() + Await.TIMEOUT.toNanos();
    while (logs.values().stream().anyMatch(log -> log.seen().isEmpty())) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out waiting for a call on every server: " + logs);
      }
      try {
        DnsChannels.whoAnswers(channel);
      } catch (StatusRuntimeException e) {
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      }
    }
  }

  private ManagedChannel flakyChannel(FlakyService flaky) throws Exception {
    Server server = flaky.serve(cleanup);
    return cleanup.register(
        ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort())
            .usePlaintext()
            .defaultServiceConfigJson(ServiceConfigs.retry(FlakyService.SERVICE, 3, "UNAVAILABLE"))
            .build());
  }

  private static String unary(ManagedChannel channel) {
    return ClientCalls.blockingUnaryCall(
        channel,
        FlakyService.UNARY,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
        "hello");
  }
}
