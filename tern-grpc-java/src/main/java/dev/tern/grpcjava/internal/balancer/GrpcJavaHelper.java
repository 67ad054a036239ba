package dev.tern.grpcjava.internal.balancer;

import dev.tern.grpcjava.internal.convert.LoggingChannelLogger;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What a grpc-java balancer sees as its channel: Tern's helper behind grpc-java's. Subchannels,
 * balancing states and pickers, name resolution refreshes go to Tern's helper; the synchronization
 * context is the balancer's own {@code io.grpc.SynchronizationContext}, the timer is the channel's,
 * the logger writes to {@code java.util.logging}. What Tern's channel has no equivalent for
 * (out-of-band channels, the channel's credentials, the resolver's arguments) throws {@code
 * UnsupportedOperationException} naming the method.
 *
 * <p>Threads: the balancer may call it from any thread, its own context's tasks included. Every
 * request to the channel is handed to Tern's synchronization context, in the order made: run at
 * once when no thread is in that context, else after the task running there (when Tern's callback
 * that reached the balancer returns). A task of the balancer's that throws puts the channel in
 * TRANSIENT_FAILURE for good, failing every call with INTERNAL naming the policy and the exception,
 * as grpc-java's channel panics; the balancer's later states are ignored.
 */
final class GrpcJavaHelper extends io.grpc.LoadBalancer.Helper {
  private static final Logger logger = Logger.getLogger(GrpcJavaLoadBalancer.class.getName());

  private final String policy;
  private final dev.tern.LoadBalancer.Helper helper;
  private final io.grpc.SynchronizationContext balancerContext;
  private final io.grpc.ChannelLogger channelLogger = new LoggingChannelLogger(logger);
  private volatile boolean panicked;

  GrpcJavaHelper(String policy, dev.tern.LoadBalancer.Helper helper) {
    this.policy = policy;
    this.helper = helper;
    this.balancerContext = new io.grpc.SynchronizationContext((thread, failure) -> panic(failure));
  }

  /** Runs {@code task} in the balancer's context. */
  void runInBalancer(Runnable task) {
    balancerContext.execute(task);
  }

  /** Runs {@code task} in the channel's (Tern's) context. */
  void runInChannel(Runnable task) {
    helper.getSynchronizationContext().execute(task);
  }

  String policy() {
    return policy;
  }

  @Override
  public io.grpc.LoadBalancer.Subchannel createSubchannel(
      io.grpc.LoadBalancer.CreateSubchannelArgs args) {
    return new GrpcJavaSubchannel(this, helper, args);
  }

  @Override
  public void updateBalancingState(
      io.grpc.ConnectivityState newState, io.grpc.LoadBalancer.SubchannelPicker newPicker) {
    dev.tern.ConnectivityState state = dev.tern.ConnectivityState.valueOf(newState.name());
    GrpcJavaPicker picker = new GrpcJavaPicker(policy, newPicker);
    runInChannel(
        () -> {
          if (!panicked) {
            helper.updateBalancingState(state, picker);
          }
        });
  }

  @Override
  public void refreshNameResolution() {
    runInChannel(helper::refreshNameResolution);
  }

  @Override
  public io.grpc.SynchronizationContext getSynchronizationContext() {
    return balancerContext;
  }

  @Override
  public ScheduledExecutorService getScheduledExecutorService() {
    return helper.getScheduledExecutorService();
  }

  @Override
  public String getAuthority() {
    return helper.getAuthority();
  }

  @Override
  public String getChannelTarget() {
    return helper.getChannelTarget();
  }

  @Override
  public io.grpc.ChannelLogger getChannelLogger() {
    return channelLogger;
  }

  @Override
  public io.grpc.ManagedChannel createOobChannel(
      io.grpc.EquivalentAddressGroup addresses, String authority) {
    throw unsupported("createOobChannel", "Tern's channel makes no out-of-band channels");
  }

  @Override
  public io.grpc.ManagedChannel createOobChannel(
      List<io.grpc.EquivalentAddressGroup> addresses, String authority) {
    throw unsupported("createOobChannel", "Tern's channel makes no out-of-band channels");
  }

  @Override
  public void updateOobChannelAddresses(
      io.grpc.ManagedChannel channel, io.grpc.EquivalentAddressGroup addresses) {
    throw unsupported("updateOobChannelAddresses", "Tern's channel makes no out-of-band channels");
  }

  @Override
  public void updateOobChannelAddresses(
      io.grpc.ManagedChannel channel, List<io.grpc.EquivalentAddressGroup> addresses) {
    throw unsupported("updateOobChannelAddresses", "Tern's channel makes no out-of-band channels");
  }

  @Override
  public io.grpc.ManagedChannel createResolvingOobChannel(String target) {
    throw unsupported(
        "createResolvingOobChannel",
        "Tern's channel makes no out-of-band channels; build a channel with"
            + " Grpc.newChannelBuilder");
  }

  @Override
  @SuppressWarnings("deprecation") // overridden to say why it fails, as the others
  public io.grpc.ManagedChannelBuilder<?> createResolvingOobChannelBuilder(String target) {
    throw unsupported(
        "createResolvingOobChannelBuilder",
        "Tern's channel makes no out-of-band channels; build a channel with"
            + " Grpc.newChannelBuilder");
  }

  @Override
  public io.grpc.ManagedChannelBuilder<?> createResolvingOobChannelBuilder(
      String target, io.grpc.ChannelCredentials credentials) {
    throw unsupported(
        "createResolvingOobChannelBuilder",
        "Tern's channel makes no out-of-band channels; build a channel with"
            + " Grpc.newChannelBuilder");
  }

  @Override
  public io.grpc.ChannelCredentials getChannelCredentials() {
    throw unsupported("getChannelCredentials", "Tern's channel does not hand out its credentials");
  }

  @Override
  public io.grpc.ChannelCredentials getUnsafeChannelCredentials() {
    throw unsupported(
        "getUnsafeChannelCredentials", "Tern's channel does not hand out its credentials");
  }

  @Override
  public io.grpc.NameResolver.Args getNameResolverArgs() {
    throw unsupported("getNameResolverArgs", "Tern's resolver arguments are not grpc-java's");
  }

  @Override
  public io.grpc.NameResolverRegistry getNameResolverRegistry() {
    throw unsupported(
        "getNameResolverRegistry",
        "the channel resolves with Tern's resolvers, then grpc-java's registered ones");
  }

  private UnsupportedOperationException unsupported(String method, String why) {
    return new UnsupportedOperationException(
        "grpc-java load balancer "
            + policy
            + " called LoadBalancer.Helper."
            + method
            + ", which the Tern bridge does not support: "
            + why);
  }

  private void panic(Throwable failure) {
    logger.log(Level.SEVERE, "grpc-java load balancer " + policy + " threw", failure);
    dev.tern.Status status =
        dev.tern.Status.INTERNAL
            .withDescription("grpc-java load balancer " + policy + " threw: " + failure)
            .withCause(failure);
    dev.tern.LoadBalancer.SubchannelPicker failing =
        new dev.tern.LoadBalancer.FixedResultPicker(
            dev.tern.LoadBalancer.PickResult.withDrop(status));
    runInChannel(
        () -> {
          if (!panicked) {
            panicked = true;
            helper.updateBalancingState(dev.tern.ConnectivityState.TRANSIENT_FAILURE, failing);
          }
        });
  }
}
