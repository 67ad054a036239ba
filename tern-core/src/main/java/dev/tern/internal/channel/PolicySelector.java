package dev.tern.internal.channel;

import dev.tern.ConnectivityState;
import dev.tern.LoadBalancer;
import dev.tern.LoadBalancerProvider;
import dev.tern.LoadBalancerRegistry;
import dev.tern.Status;

/**
 * The balancer a channel talks to: it creates the balancer of the configured policy (the channel's
 * default, or the one its service config names) when addresses arrive and hands everything on to
 * it. A policy that is not registered makes the channel TRANSIENT_FAILURE, and calls fail
 * UNAVAILABLE naming it and the policies there are.
 *
 * <p>Not thread-safe: used only in the channel's synchronization context.
 */
final class PolicySelector extends LoadBalancer {
  private final Helper helper;
  private final LoadBalancerRegistry registry;
  private String policyName;
  private LoadBalancer delegate;
  private Status missingPolicy;

  PolicySelector(Helper helper, LoadBalancerRegistry registry, String policyName) {
    this.helper = helper;
    this.registry = registry;
    this.policyName = policyName;
  }

  /**
   * Uses the policy named {@code name} from the next addresses on (a service config chose it); a
   * different policy than the current one replaces its balancer, whose subchannels shut down.
   */
  void usePolicy(String name) {
    if (name.equals(policyName)) {
      return;
    }
    policyName = name;
    missingPolicy = null;
    if (delegate != null) {
      delegate.shutdown();
      delegate = null;
    }
  }

  /** The policy in use (or to be used). */
  String policyName() {
    return policyName;
  }

  @Override
  public Status acceptResolvedAddresses(ResolvedAddresses resolvedAddresses) {
    if (delegate == null) {
      LoadBalancerProvider provider = registry.getProvider(policyName);
      if (provider == null) {
        missingPolicy =
            Status.UNAVAILABLE.withDescription(
                "no load balancing policy named '"
                    + policyName
                    + "' is registered (registered: "
                    + registry.policyNames()
                    + ")");
        // A drop, not an error: wait-for-ready calls fail too, as no policy will ever appear.
        helper.updateBalancingState(
            ConnectivityState.TRANSIENT_FAILURE,
            new FixedResultPicker(PickResult.withDrop(missingPolicy)));
        return Status.OK; // resolving again would not help
      }
      delegate = provider.newLoadBalancer(helper);
    }
    return delegate.acceptResolvedAddresses(resolvedAddresses);
  }

  @Override
  public void handleNameResolutionError(Status error) {
    if (delegate != null) {
      delegate.handleNameResolutionError(error);
    } else if (missingPolicy == null) {
      failCalls(error);
    }
  }

  @Override
  public void requestConnection() {
    if (delegate != null) {
      delegate.requestConnection();
    }
  }

  @Override
  public void shutdown() {
    if (delegate != null) {
      delegate.shutdown();
      delegate = null;
    }
  }

  private void failCalls(Status error) {
    helper.updateBalancingState(
        ConnectivityState.TRANSIENT_FAILURE, new FixedResultPicker(PickResult.withError(error)));
  }
}
