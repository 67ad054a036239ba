package dev.tern.grpcjava.internal.balancer;

import dev.tern.grpcjava.internal.convert.Statuses;
import java.util.Map;

/**
 * A grpc-java {@code LoadBalancerProvider} as Tern's: same name, priority and availability; its
 * {@code parseLoadBalancingPolicyConfig} parses the policy's {@code loadBalancingConfig} entry
 * (what it returns reaches its balancer unchanged, as on grpc-java), and its balancers run through
 * {@link GrpcJavaLoadBalancer}. Immutable and thread-safe as the wrapped provider is (grpc-java
 * requires its providers to be).
 */
final class GrpcJavaLoadBalancerProvider extends dev.tern.LoadBalancerProvider {
  private final io.grpc.LoadBalancerProvider provider;

  GrpcJavaLoadBalancerProvider(io.grpc.LoadBalancerProvider provider) {
    this.provider = provider;
  }

  @Override
  public boolean isAvailable() {
    return provider.isAvailable();
  }

  @Override
  public int getPriority() {
    return provider.getPriority();
  }

  @Override
  public String getPolicyName() {
    return provider.getPolicyName();
  }

  @Override
  public dev.tern.LoadBalancer newLoadBalancer(dev.tern.LoadBalancer.Helper helper) {
    return new GrpcJavaLoadBalancer(provider, helper);
  }

  @Override
  public dev.tern.NameResolver.ConfigOrError parseLoadBalancingPolicyConfig(
      Map<String, ?> rawConfig) {
    io.grpc.NameResolver.ConfigOrError parsed;
    try {
      parsed = provider.parseLoadBalancingPolicyConfig(rawConfig == null ? Map.of() : rawConfig);
    } catch (RuntimeException e) {
      return dev.tern.NameResolver.ConfigOrError.fromError(
          dev.tern.Status.INVALID_ARGUMENT
              .withDescription(
                  "grpc-java load balancer "
                      + provider.getPolicyName()
                      + " threw parsing its config "
                      + rawConfig
                      + ": "
                      + e)
              .withCause(e));
    }
    if (parsed == null) {
      return dev.tern.NameResolver.ConfigOrError.fromError(
          dev.tern.Status.INVALID_ARGUMENT.withDescription(
              "grpc-java load balancer "
                  + provider.getPolicyName()
                  + " returned no result parsing its config "
                  + rawConfig));
    }
    if (parsed.getError() != null) {
      return dev.tern.NameResolver.ConfigOrError.fromError(Statuses.toTern(parsed.getError()));
    }
    return dev.tern.NameResolver.ConfigOrError.fromConfig(parsed.getConfig());
  }

  @Override
  public String toString() {
    return "grpc-java's " + provider;
  }
}
