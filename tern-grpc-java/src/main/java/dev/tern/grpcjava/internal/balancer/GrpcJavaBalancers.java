package dev.tern.grpcjava.internal.balancer;

/**
 * The load-balancer registry of bridged channels: Tern's default registry first, so Tern's own
 * policies ({@code pick_first}, {@code round_robin}, the xDS ones with {@code tern-xds}...) keep
 * their names, then, for a policy Tern has no provider of, the {@code io.grpc.LoadBalancerProvider}
 * the application registered in grpc-java's {@code LoadBalancerRegistry} (by {@code ServiceLoader}
 * or {@code register}), run through {@link GrpcJavaLoadBalancerProvider}. grpc-java's registry is
 * asked each time a channel parses a service config or switches policies, so a provider registered
 * after the channel was built is found by its next service config. Stateless and thread-safe.
 */
public final class GrpcJavaBalancers {
  private static final dev.tern.LoadBalancerRegistry REGISTRY =
      new dev.tern.LoadBalancerRegistry(
          dev.tern.LoadBalancerRegistry.getDefaultRegistry(), GrpcJavaBalancers::fromGrpcJava);

  private GrpcJavaBalancers() {}

  /** The registry every bridged channel looks its policies up in. */
  public static dev.tern.LoadBalancerRegistry registry() {
    return REGISTRY;
  }

  private static dev.tern.LoadBalancerProvider fromGrpcJava(String policy) {
    io.grpc.LoadBalancerProvider provider =
        io.grpc.LoadBalancerRegistry.getDefaultRegistry().getProvider(policy);
    return provider == null ? null : new GrpcJavaLoadBalancerProvider(provider);
  }
}
