package dev.tern.services.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.BindableService;
import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Three Tern servers on 127.0.0.2, 127.0.0.3 and 127.0.0.4 (each on a port of its own), serving
 * {@link EchoService} and whatever health service the test gives each, counting the calls each
 * receives by method; and a channel to all three through an {@code ipv4:} target.
 *
 * <p>Thread-safe counters; made by the test thread, servers and channels registered with the test's
 * cleanup extension.
 */
final class HealthFarm {
  static final List<String> HOSTS = List.of("127.0.0.2", "127.0.0.3", "127.0.0.4");

  private final Map<String, Server> servers = new LinkedHashMap<>();
  private final Map<String, Map<String, AtomicInteger>> calls = new ConcurrentHashMap<>();
  private final TernCleanupExtension cleanup;

  private HealthFarm(TernCleanupExtension cleanup) {
    this.cleanup = cleanup;
  }

  /** Starts the servers; {@code health} gives each host's health service, or null for none. */
  static HealthFarm start(TernCleanupExtension cleanup, Function<String, BindableService> health)
      throws IOException {
    HealthFarm farm = new HealthFarm(cleanup);
    for (String host : HOSTS) {
      Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();
      farm.calls.put(host, counts);
      NettyServerBuilder builder =
          NettyServerBuilder.forAddress(new InetSocketAddress(host, 0))
              .addService(EchoService.definition())
              .intercept(counting(counts));
      BindableService service = health.apply(host);
      if (service != null) {
        builder.addService(service);
      }
      farm.servers.put(host, cleanup.register(builder.build()).start());
    }
    return farm;
  }

  private static ServerInterceptor counting(Map<String, AtomicInteger> counts) {
    return new ServerInterceptor() {
      @Override
      public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
          ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
        counts
            .computeIfAbsent(
                call.getMethodDescriptor().getFullMethodName(), name -> new AtomicInteger())
            .incrementAndGet();
        return next.startCall(call, headers);
      }
    };
  }

  /** {@code ipv4:127.0.0.2:P2,127.0.0.3:P3,127.0.0.4:P4}. */
  String target() {
    List<String> addresses = new ArrayList<>();
    servers.forEach(
        (host, server) ->
            addresses.add(
                host + ":" + ((InetSocketAddress) server.getListenSockets().get(0)).getPort()));
    return "ipv4:" + String.join(",", addresses);
  }

  /** A plaintext channel to the three servers with {@code serviceConfigJson} as its default. */
  ManagedChannel channel(String serviceConfigJson) {
    return cleanup.register(
        NettyChannelBuilder.forTarget(target())
            .usePlaintext()
            .defaultServiceConfigJson(serviceConfigJson)
            .build());
  }

  /** The calls {@code host} received of the method named {@code fullMethodName}. */
  int calls(String host, String fullMethodName) {
    AtomicInteger count = calls.get(host).get(fullMethodName);
    return count == null ? 0 : count.get();
  }

  /** The Echo calls each host received, in host order. */
  List<Integer> echoCalls() {
    List<Integer> counts = new ArrayList<>();
    for (String host : HOSTS) {
      counts.add(calls(host, EchoService.UNARY.getFullMethodName()));
    }
    return counts;
  }

  /**
   * Makes Echo calls until twenty in a row missed {@code host}, failing after ten seconds: once the
   * client has heard that {@code host} is unhealthy, it sends it nothing more.
   */
  void echoUntilAvoided(ManagedChannel channel, String host) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    String echo = EchoService.UNARY.getFullMethodName();
    for (int run = 0; run < 20; ) {
      assertThat(System.nanoTime() - deadline)
          .as("20 calls in a row avoiding %s within 10 s; calls per host: %s", host, echoCalls())
          .isNegative();
      int before = calls(host, echo);
      echo(channel, 1);
      run = calls(host, echo) == before ? run + 1 : 0;
    }
  }

  /** The Echo calls each host gets of {@code count} more calls. */
  List<Integer> echoDelta(ManagedChannel channel, int count) {
    List<Integer> before = echoCalls();
    echo(channel, count);
    List<Integer> after = echoCalls();
    List<Integer> delta = new ArrayList<>();
    for (int i = 0; i < after.size(); i++) {
      delta.add(after.get(i) - before.get(i));
    }
    return delta;
  }

  /** Makes {@code count} Echo calls on {@code channel}, one after the other. */
  static void echo(ManagedChannel channel, int count) {
    for (int i = 0; i < count; i++) {
      ClientCalls.blockingUnaryCall(
          channel,
          EchoService.UNARY,
          CallOptions.DEFAULT.withWaitForReady().withDeadlineAfter(5, TimeUnit.SECONDS),
          "hi");
    }
  }

  /**
   * Makes Echo calls until {@code done} holds for the per-host counts (as {@link #echoCalls()}
   * gives them), failing after ten seconds: a change of health reaches the client one round trip
   * after it was made, and the calls are how the test sees that it has.
   */
  void echoUntil(ManagedChannel channel, Predicate<List<Integer>> done, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!done.test(echoCalls())) {
      assertThat(System.nanoTime() - deadline)
          .as("%s within 10 s; Echo calls per host: %s", what, echoCalls())
          .isNegative();
      echo(channel, 1);
    }
  }
}
