package dev.tern.netty.balancing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.ManagedChannel;
import dev.tern.netty.balancing.CallLoad.Outcome;
import dev.tern.testtools.Dnsmasq;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The load balancing policies over real parts: three Tern servers on 127.0.0.2, .3 and .4 (one
 * port), the name {@code svc.tern.test} served by a real DNS server (dnsmasq) with the three
 * addresses, and a channel to {@code dns://DNS_SERVER/svc.tern.test:port}, which asks that server
 * through Netty's DNS client. 3,000 unary calls, eight in flight at a time.
 */
class DnsLoadBalancingTest extends DnsFarmTest {
  private static final int CALLS = 3_000;
  private static final int CONCURRENCY = 8;

  @BeforeEach
  void start() throws Exception {
    dns = Dnsmasq.start(Map.of(DnsChannels.SERVICE_NAME, ServerFarm.HOSTS));
    farm = ServerFarm.start(cleanup, Set.of());
  }

  /**
   * Once all three servers are connected, round_robin hands calls to them strictly in turn, so
   * 3,000 calls are exactly 1,000 per server (the picker is a counter over the READY servers; it is
   * replaced only when one connects or is lost, and none is lost here).
   */
  @Test
  void roundRobinSendsEachServerExactlyOneThirdOfTheCalls() {
    ManagedChannel channel = newChannel("round_robin");
    DnsChannels.awaitAnswersFrom(channel, ServerFarm.HOSTS);

    List<Outcome> outcomes = CallLoad.start(channel, CONCURRENCY, CALLS).awaitDone();

    assertThat(outcomes).hasSize(CALLS).allMatch(Outcome::ok);
    assertThat(CallLoad.answersPerServer(outcomes))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(ServerFarm.HOST_2, 1_000, ServerFarm.HOST_3, 1_000, ServerFarm.HOST_4, 1_000));
  }

  /** pick_first (the default) connects to one server and sends it every call. */
  @Test
  void pickFirstSendsEveryCallToOneServer() {
    ManagedChannel channel = newChannel("pick_first");

    List<Outcome> outcomes = CallLoad.start(channel, CONCURRENCY, CALLS).awaitDone();

    assertThat(outcomes).hasSize(CALLS).allMatch(Outcome::ok);
    Map<String, Integer> answers = CallLoad.answersPerServer(outcomes);
    assertThat(answers.values()).containsExactlyInAnyOrder(CALLS, 0, 0);
  }

  /**
   * least_request sends each call to the less busy of two random servers, so it spreads the calls
   * too, though not evenly: a server that answers more slowly (here, one whose event loop is
   * busier) gets fewer. Each server gets at least half of an even share.
   */
  @Test
  void leastRequestSpreadsTheCallsOverEveryServer() {
    ManagedChannel channel = newChannel("least_request");
    DnsChannels.awaitAnswersFrom(channel, ServerFarm.HOSTS);

    List<Outcome> outcomes = CallLoad.start(channel, CONCURRENCY, CALLS).awaitDone();

    assertThat(outcomes).hasSize(CALLS).allMatch(Outcome::ok);
    Map<String, Integer> answers = CallLoad.answersPerServer(outcomes);
    assertThat(answers.values())
        .allSatisfy(count -> assertThat(count).isGreaterThanOrEqualTo(CALLS / 6));
  }

  private ManagedChannel newChannel(String policy) {
    return DnsChannels.channel(
        cleanup, DnsChannels.target(dns, DnsChannels.SERVICE_NAME, farm.port()), policy);
  }
}
