package dev.tern.grpcjava.internal.balancer;

import dev.tern.grpcjava.internal.convert.AddressGroups;
import dev.tern.grpcjava.internal.convert.Statuses;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A grpc-java {@code LoadBalancer} run as Tern's: Tern's callbacks (addresses, resolver errors,
 * connection requests, shutdown) reach it converted, in its own {@code
 * io.grpc.SynchronizationContext} ({@link GrpcJavaHelper}), and what it asks of the channel goes
 * back through Tern's helper.
 *
 * <p>Threads: Tern calls it from the channel's synchronization context. It hands each call to the
 * grpc-java context, which runs it at once on the same thread unless another thread is running that
 * context's tasks (the balancer's own timers or a picker's {@code execute}); then that thread runs
 * it next, and {@link #acceptResolvedAddresses} answers OK without waiting for the balancer's
 * answer.
 */
final class GrpcJavaLoadBalancer extends dev.tern.LoadBalancer {
  private final GrpcJavaHelper helper;
  private final io.grpc.LoadBalancer balancer;

  GrpcJavaLoadBalancer(io.grpc.LoadBalancerProvider provider, dev.tern.LoadBalancer.Helper helper) {
    this.helper = new GrpcJavaHelper(provider.getPolicyName(), helper);
    this.balancer = provider.newLoadBalancer(this.helper);
  }

  @Override
  public dev.tern.Status acceptResolvedAddresses(ResolvedAddresses resolvedAddresses) {
    io.grpc.LoadBalancer.ResolvedAddresses converted =
        io.grpc.LoadBalancer.ResolvedAddresses.newBuilder()
            .setAddresses(AddressGroups.toGrpc(resolvedAddresses.getAddresses()))
            .setLoadBalancingPolicyConfig(resolvedAddresses.getLoadBalancingPolicyConfig())
            .build();
    AtomicReference<dev.tern.Status> answer = new AtomicReference<>(dev.tern.Status.OK);
    helper.runInBalancer(
        () -> answer.set(Statuses.toTern(balancer.acceptResolvedAddresses(converted))));
    return answer.get();
  }

  @Override
  public void handleNameResolutionError(dev.tern.Status error) {
    io.grpc.Status converted = Statuses.toGrpc(error);
    helper.runInBalancer(() -> balancer.handleNameResolutionError(converted));
  }

  @Override
  public void requestConnection() {
    helper.runInBalancer(balancer::requestConnection);
  }

  @Override
  public void shutdown() {
    helper.runInBalancer(balancer::shutdown);
  }
}
