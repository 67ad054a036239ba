package dev.tern.examples.nameresolve;

import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.NameResolverRegistry;
import dev.tern.examples.ExampleMain;
import dev.tern.examples.loadbalance.LoadBalancingDemo;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Greets {@code example:///greeter}: a target only the {@link ExampleNameResolverProvider} this
 * client registers understands, resolving to the servers of {@code
 * --servers=HOST:PORT,HOST:PORT,...} (default 127.0.0.1:50051,127.0.0.1:50052, where {@link
 * NameResolveServer} listens). It calls {@code --calls=N} times (default 6) with {@code pick_first}
 * (every call to one server), then as many with {@code round_robin} (every server in turn).
 *
 * <p>Unlike grpc-java, Tern's channel builder has no {@code nameResolverFactory}: a channel takes
 * its resolvers from a {@link NameResolverRegistry}, the default one or one given to {@code
 * nameResolverRegistry}, as here.
 */
public final class NameResolveClient {
  private NameResolveClient() {}

  /** The target the client calls. */
  public static final String TARGET = ExampleNameResolverProvider.SCHEME + ":///greeter";

  /**
   * Greets {@code calls} times through {@code target} (such as {@link #TARGET}), resolved with
   * {@code table}, with the load-balancing {@code policy}.
   *
   * @param table the servers of each service name, for the {@link ExampleNameResolverProvider}
   * @return how many calls each server answered
   */
  public static Map<String, Integer> greet(
      Map<String, List<InetSocketAddress>> table, String target, String policy, int calls)
      throws InterruptedException {
    NameResolverRegistry registry = new NameResolverRegistry();
    registry.register(new ExampleNameResolverProvider(table));
    ManagedChannel channel =
        ManagedChannelBuilder.forTarget(target)
            .nameResolverRegistry(registry)
            .defaultLoadBalancingPolicy(policy)
            .usePlaintext()
            .build();
    try {
      return LoadBalancingDemo.greet(channel, calls);
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  /** {@code java ... NameResolveClient [--servers=HOST:PORT,...] [--calls=N]}. */
  public static void main(String[] args) throws InterruptedException {
    String servers = ExampleMain.flag(args, "servers", "127.0.0.1:50051,127.0.0.1:50052");
    int calls = ExampleMain.intFlag(args, "calls", 6);
    List<InetSocketAddress> addresses = new ArrayList<>();
    for (String server : servers.split(",")) {
      int colon = server.lastIndexOf(':');
      addresses.add(
          new InetSocketAddress(
              server.substring(0, colon), Integer.parseInt(server.substring(colon + 1))));
    }
    for (String policy : List.of("pick_first", "round_robin")) {
      System.out.println("Calling " + TARGET + " with " + policy);
      Map<String, List<InetSocketAddress>> table = Map.of("greeter", addresses);
      System.out.println("Calls per server: " + greet(table, TARGET, policy, calls));
    }
  }
}
