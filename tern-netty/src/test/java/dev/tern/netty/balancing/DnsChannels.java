package dev.tern.netty.balancing;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.NameResolverRegistry;
import dev.tern.StatusRuntimeException;
import dev.tern.netty.NettyDnsNameResolverProvider;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.Await;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testtools.Dnsmasq;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** Channels to a name served by a test's {@link Dnsmasq}, as an application would build them. */
final class DnsChannels {
  /** The name the tests' DNS server maps to the servers' addresses. */
  static final String SERVICE_NAME = "svc.tern.test";

  /**
   * How soon the resolver may ask the DNS server again when the balancer asks it to: short, so a
   * test sees new records promptly (the default, 30 s, protects real DNS servers).
   */
  static final Duration RESOLVE_INTERVAL = Duration.ofMillis(200);

  private DnsChannels() {}

  /** {@code dns://DNS_SERVER:PORT/host:port}: ask that DNS server for {@code host}. */
  static String target(Dnsmasq dns, String host, int port) {
    return "dns://" + dns.address().getHostString() + ":" + dns.port() + "/" + host + ":" + port;
  }

  /** Resolvers for {@code dns://server/} targets that re-resolve at most every 200 ms. */
  static NameResolverRegistry registry() {
    NameResolverRegistry registry = new NameResolverRegistry();
    registry.register(new NettyDnsNameResolverProvider(RESOLVE_INTERVAL));
    return registry;
  }

  /** A plaintext channel to {@code target} with {@code policy}, shut down after the test. */
  static ManagedChannel channel(TernCleanupExtension cleanup, String target, String policy) {
    return cleanup.register(
        ManagedChannelBuilder.forTarget(target)
            .usePlaintext()
            .nameResolverRegistry(registry())
            .defaultLoadBalancingPolicy(policy)
            .build());
  }

  /**
   * A plaintext channel to {@code target} with the load balancing policy and anything else chosen
   * by {@code options} (such as a default service config), shut down after the test.
   */
  static ManagedChannel channel(
      TernCleanupExtension cleanup, String target, Consumer<ManagedChannelBuilder<?>> options) {
    ManagedChannelBuilder<?> builder =
        ManagedChannelBuilder.forTarget(target).usePlaintext().nameResolverRegistry(registry());
    options.accept(builder);
    return cleanup.register(builder.build());
  }

  /** Asks which server answers, waiting for a connection, at most 10 s. */
  static String whoAnswers(ManagedChannel channel) {
    return ClientCalls.blockingUnaryCall(
        channel,
        ServerNameService.GET,
        CallOptions.DEFAULT.withWaitForReady().withDeadlineAfter(10, TimeUnit.SECONDS),
        "who answers?");
  }

  /**
   * Calls until each of {@code servers} has answered (a balancer connects to them one by one, and
   * sends calls only to those connected); gives up after {@link Await#TIMEOUT}. Returns how many
   * calls each server answered.
   */
  static Map<String, Integer> awaitAnswersFrom(ManagedChannel channel, Collection<String> servers) {
    Map<String, Integer> answers = new LinkedHashMap<>();
    long deadline = System.nanoTime() + Await.TIMEOUT.toNanos();
    while (!answers.keySet().containsAll(servers)) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError(
            "timed out after "
                + Await.TIMEOUT
                + " waiting for answers from each of "
                + servers
                + "; answers: "
                + answers);
      }
      try {
        answers.merge(whoAnswers(channel), 1, Integer::sum);
      } catch (StatusRuntimeException e) {
        throw new AssertionError("a call failed while the servers were connecting", e);
      }
    }
    return answers;
  }
}
