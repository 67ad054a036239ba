package dev.tern.services.health;

import dev.tern.LoadBalancer;
import dev.tern.LoadBalancerProvider;
import dev.tern.NameResolver;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;

/**
 * {@code round_robin} with client-side health checking (gRFC A17): with {@code "healthCheckConfig":
 * {"serviceName": "..."}} in the channel's service config, each connected server is watched through
 * {@code grpc.health.v1.Health/Watch} and gets calls only while it says SERVING. It wraps the
 * {@code round_robin} Tern's core provides, so without a health-check config it behaves exactly
 * like that one.
 *
 * <p>Found by {@link ServiceLoader} when tern-services is on the class or module path: its priority
 * ({@value #PRIORITY}) is above core's (5), so channels choosing {@code round_robin} get it. Only
 * {@code round_robin} is wrapped; {@code pick_first} never checks health (as gRFC A17 says).
 *
 * <p>Thread-safe.
 */
public final class HealthCheckingLoadBalancerProvider extends LoadBalancerProvider {
  /** Above core's {@code round_robin} (5). */
  public static final int PRIORITY = 6;

  private static final String POLICY = "round_robin";

  private final long initialBackoffNanos;
  private volatile LoadBalancerProvider wrapped;

  /** For {@link ServiceLoader}: back-off after a failed Watch starts at one second. */
  public HealthCheckingLoadBalancerProvider() {
    this(TimeUnit.SECONDS.toNanos(1));
  }

  /** For tests: a shorter first back-off. */
  HealthCheckingLoadBalancerProvider(long initialBackoffNanos) {
    this.initialBackoffNanos = initialBackoffNanos;
  }

  @Override
  public boolean isAvailable() {
    return wrapped() != null;
  }

  @Override
  public int getPriority() {
    return PRIORITY;
  }

  @Override
  public String getPolicyName() {
    return POLICY;
  }

  /**
   * A round_robin balancer with health checking.
   *
   * @throws IllegalStateException if no other {@code round_robin} provider is there to wrap
   */
  @Override
  public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
    LoadBalancerProvider inner = wrapped();
    if (inner == null) {
      throw new IllegalStateException("no round_robin provider to wrap");
    }
    return new HealthCheckingLoadBalancer(helper, inner::newLoadBalancer, initialBackoffNanos);
  }

  @Override
  public NameResolver.ConfigOrError parseLoadBalancingPolicyConfig(Map<String, ?> rawConfig) {
    LoadBalancerProvider inner = wrapped();
    return inner != null
        ? inner.parseLoadBalancingPolicyConfig(rawConfig)
        : super.parseLoadBalancingPolicyConfig(rawConfig);
  }

  /**
   * The available {@code round_robin} provider with the highest priority other than this kind, as
   * {@link ServiceLoader} finds them (core's, unless the application ships its own); null if none.
   */
  private LoadBalancerProvider wrapped() {
    LoadBalancerProvider found = wrapped;
    if (found == null) {
      for (LoadBalancerProvider provider :
          ServiceLoader.load(
              LoadBalancerProvider.class, LoadBalancerProvider.class.getClassLoader())) {
        if (!(provider instanceof HealthCheckingLoadBalancerProvider)
            && POLICY.equals(provider.getPolicyName())
            && provider.isAvailable()
            && (found == null || provider.getPriority() > found.getPriority())) {
          found = provider;
        }
      }
      wrapped = found;
    }
    return found;
  }
}
