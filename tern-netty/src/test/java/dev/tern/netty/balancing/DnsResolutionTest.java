package dev.tern.netty.balancing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.Await;
import dev.tern.testtools.Dnsmasq;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What a {@code dns://DNS_SERVER/} channel does with what its DNS server says: new records are used
 * once the old servers are gone (their lost connections make the channel ask again), and a name the
 * server does not know, or a server that does not answer, fails calls UNAVAILABLE naming the host.
 * Real parts: dnsmasq, Tern servers on 127.0.0.2, .3 and .4, Netty's DNS client.
 */
class DnsResolutionTest extends DnsFarmTest {
  /**
   * The name moves from {.2, .3} to {.4} (dnsmasq re-reads its records on SIGHUP); the channel
   * keeps using .2 and .3 while they answer, and once they shut down it asks the DNS server again
   * and reaches .4.
   */
  @Test
  void newRecordsAreUsedOnceTheOldServersAreGone() throws Exception {
    dns =
        Dnsmasq.start(
            Map.of(DnsChannels.SERVICE_NAME, List.of(ServerFarm.HOST_2, ServerFarm.HOST_3)));
    farm = ServerFarm.start(cleanup, Set.of());
    ManagedChannel channel =
        DnsChannels.channel(
            cleanup, DnsChannels.target(dns, DnsChannels.SERVICE_NAME, farm.port()), "round_robin");
    Map<String, Integer> before =
        DnsChannels.awaitAnswersFrom(channel, List.of(ServerFarm.HOST_2, ServerFarm.HOST_3));
    assertThat(before).doesNotContainKey(ServerFarm.HOST_4);

    dns.setRecords(Map.of(DnsChannels.SERVICE_NAME, List.of(ServerFarm.HOST_4)));
    long queriesBefore = serviceQueries();
    // Still the old servers: nothing made the channel ask again yet.
    assertThat(DnsChannels.whoAnswers(channel)).isIn(ServerFarm.HOST_2, ServerFarm.HOST_3);
    Server old2 = farm.server(ServerFarm.HOST_2);
    Server old3 = farm.server(ServerFarm.HOST_3);
    old2.shutdown();
    old3.shutdown();
    assertThat(old2.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(old3.awaitTermination(10, TimeUnit.SECONDS)).isTrue();

    // Wait-for-ready calls: they wait out the moment between the old servers and the new one.
    for (int i = 0; i < 30; i++) {
      assertThat(DnsChannels.whoAnswers(channel)).isEqualTo(ServerFarm.HOST_4);
    }
    assertThat(serviceQueries())
        .as("queries for the name after the change")
        .isGreaterThan(queriesBefore);
  }

  /** A name the DNS server does not know (dnsmasq answers REFUSED): UNAVAILABLE, naming it. */
  @Test
  void unknownNameFailsCallsUnavailableNamingTheHost() throws Exception {
    dns = Dnsmasq.start(Map.of(DnsChannels.SERVICE_NAME, List.of(ServerFarm.HOST_2)));
    ManagedChannel channel =
        DnsChannels.channel(
            cleanup, DnsChannels.target(dns, "nosuch.tern.test", 50051), "round_robin");

    StatusRuntimeException failure = failFastCall(channel);

    assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(failure.getStatus().getDescription()).contains("nosuch.tern.test");
    assertThat(dns.queries()).anyMatch(query -> query.contains("nosuch.tern.test"));
    channel.shutdown();
    assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }

  /**
   * A DNS server that does not answer (nothing listens on its port): after the resolver's query
   * timeout (5 s), UNAVAILABLE naming the host; the channel still shuts down at once.
   */
  @Test
  void silentDnsServerFailsCallsUnavailableNamingTheHost() throws Exception {
    int deadPort;
    try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
      deadPort = socket.getLocalPort();
    }
    ManagedChannel channel =
        DnsChannels.channel(
            cleanup,
            "dns://127.0.0.1:" + deadPort + "/" + DnsChannels.SERVICE_NAME + ":50051",
            "round_robin");

    StatusRuntimeException failure = failFastCall(channel);

    assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(failure.getStatus().getDescription()).contains(DnsChannels.SERVICE_NAME);
    channel.shutdown();
    assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }

  /** A fail-fast call with a deadline past the resolver's query timeout; returns its failure. */
  private static StatusRuntimeException failFastCall(ManagedChannel channel) {
    return catchThrowableOfType(
        StatusRuntimeException.class,
        () ->
            ClientCalls.blockingUnaryCall(
                channel,
                ServerNameService.GET,
                CallOptions.DEFAULT.withDeadlineAfter(
                    Await.TIMEOUT.toMillis() - 1_000, TimeUnit.MILLISECONDS),
                "who answers?"));
  }

  private long serviceQueries() {
    return dns.queries().stream().filter(q -> q.contains(DnsChannels.SERVICE_NAME)).count();
  }
}
