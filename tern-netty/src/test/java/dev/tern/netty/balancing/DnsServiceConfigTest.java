package dev.tern.netty.balancing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.MethodDescriptor;
import dev.tern.MethodDescriptor.MethodType;
import dev.tern.NameResolverRegistry;
import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.netty.NettyDnsNameResolverProvider;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.netty.balancing.CallLoad.Outcome;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCallStreamObserver;
import dev.tern.stub.ServerCalls;
import dev.tern.testing.Await;
import dev.tern.testing.TestMarshallers;
import dev.tern.testtools.Dnsmasq;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * A service config published in DNS (gRFC A2: a {@code grpc_config} TXT record of {@code
 * _grpc_config.NAME}) changes what a channel does, with nothing set on the channel or the call:
 * real dnsmasq, Tern servers on 127.0.0.2, .3 and .4, and a {@code dns://DNS_SERVER/} channel with
 * service configs from DNS turned on.
 */
class DnsServiceConfigTest extends DnsFarmTest {
  private static final String TXT_NAME = "_grpc_config." + DnsChannels.SERVICE_NAME;
  private static final int CALLS = 300;

  /** {@code tern.test.Slow/Echo}: the server never answers (until the call is cancelled). */
  private static final MethodDescriptor<String, String> SLOW_ECHO =
      MethodDescriptor.newBuilder(TestMarshallers.utf8(), TestMarshallers.utf8())
          .setFullMethodName(MethodDescriptor.generateFullMethodName("tern.test.Slow", "Echo"))
          .setType(MethodType.UNARY)
          .build();

  /**
   * The channel's own default is pick_first, which would send every call to one server; the TXT
   * record says round_robin, so the calls go to all three, in turn.
   */
  @Test
  void loadBalancingPolicyFromTxtSpreadsCallsOverEveryServer() throws Exception {
    dns =
        Dnsmasq.start(
            Map.of(DnsChannels.SERVICE_NAME, ServerFarm.HOSTS),
            Map.of(
                TXT_NAME,
                List.of(
                    "grpc_config=[{\"serviceConfig\":"
                        + " {\"loadBalancingConfig\": [{\"round_robin\": {}}]}}]")));
    farm = ServerFarm.start(cleanup, Set.of());
    ManagedChannel channel =
        channel(DnsChannels.target(dns, DnsChannels.SERVICE_NAME, farm.port()));

    DnsChannels.awaitAnswersFrom(channel, ServerFarm.HOSTS);
    List<Outcome> outcomes = CallLoad.start(channel, 1, CALLS).awaitDone();

    assertThat(outcomes).hasSize(CALLS).allMatch(Outcome::ok);
    assertThat(CallLoad.answersPerServer(outcomes))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(ServerFarm.HOST_2, 100, ServerFarm.HOST_3, 100, ServerFarm.HOST_4, 100));
    assertThat(dns.queries()).contains("query[TXT] " + TXT_NAME + " from 127.0.0.1");
  }

  /**
   * The record gives the slow method a 0.2 s timeout: a call without a deadline of its own fails
   * DEADLINE_EXCEEDED, and the server sees it cancelled.
   */
  @Test
  void timeoutFromTxtEndsACallThatSetNoDeadline() throws Exception {
    dns =
        Dnsmasq.start(
            Map.of(DnsChannels.SERVICE_NAME, List.of(ServerFarm.HOST_2)),
            Map.of(
                TXT_NAME,
                List.of(
                    "grpc_config=[{\"serviceConfig\": {\"methodConfig\": [{\"name\":"
                        + " [{\"service\": \"tern.test.Slow\", \"method\": \"Echo\"}],"
                        + " \"timeout\": \"0.2s\"}]}}]")));
    CountDownLatch cancelled = new CountDownLatch(1);
    Server server =
        cleanup.register(
            NettyServerBuilder.forAddress(new InetSocketAddress(ServerFarm.HOST_2, 0))
                .addService(slowService(cancelled))
                .build()
                .start());
    int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    ManagedChannel channel = channel(DnsChannels.target(dns, DnsChannels.SERVICE_NAME, port));

    // A future, not a blocking call: were the timeout not applied, the wait gives up, not hangs.
    CompletableFuture<String> call =
        ClientCalls.futureUnaryCall(channel.newCall(SLOW_ECHO, CallOptions.DEFAULT), "hello");
    Throwable failure =
        Await.get(call.handle((response, error) -> error), "the call to end (its 0.2 s timeout)");

    assertThat(failure).isInstanceOf(StatusRuntimeException.class);
    assertThat(((StatusRuntimeException) failure).getStatus().getCode())
        .isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    Await.await(cancelled, "the server to see the call cancelled");
  }

  /** A channel whose default policy is pick_first, reading service configs from DNS. */
  private ManagedChannel channel(String target) {
    NameResolverRegistry registry = new NameResolverRegistry();
    registry.register(
        new NettyDnsNameResolverProvider(DnsChannels.RESOLVE_INTERVAL)
            .withServiceConfigLookup(true));
    return cleanup.register(
        ManagedChannelBuilder.forTarget(target)
            .usePlaintext()
            .nameResolverRegistry(registry)
            .defaultLoadBalancingPolicy("pick_first")
            .build());
  }

  private static ServerServiceDefinition slowService(CountDownLatch cancelled) {
    return ServerServiceDefinition.builder("tern.test.Slow")
        .addMethod(
            SLOW_ECHO,
            ServerCalls.asyncUnaryCall(
                (request, response) ->
                    ((ServerCallStreamObserver<String>) response)
                        .setOnCancelHandler(cancelled::countDown)))
        .build();
  }
}
