package dev.tern.grpcjava.internal.balancer;

import dev.tern.grpcjava.internal.convert.AddressGroups;
import dev.tern.grpcjava.internal.convert.Statuses;
import java.util.List;

/**
 * A Tern subchannel behind grpc-java's {@code Subchannel}, for a grpc-java balancer. The Tern
 * subchannel is made in the channel's synchronization context, as Tern requires, right after the
 * balancer asks for it; {@code start}, {@code requestConnection}, {@code updateAddresses} and
 * {@code shutdown} follow it there in the order called. Its state changes reach the balancer's
 * listener converted, in the balancer's context. grpc-java's attributes (the balancer's own) stay
 * here; the addresses' attributes are dropped, as no key maps. {@code asChannel} is not supported
 * (a Tern subchannel's channel is Tern's, not {@code io.grpc}'s).
 *
 * <p>Thread-safe: the balancer may call it from any thread; the Tern subchannel is set once, in the
 * channel's context, and read by pickers on callers' threads.
 */
final class GrpcJavaSubchannel extends io.grpc.LoadBalancer.Subchannel {
  private final GrpcJavaHelper helper;
  private final io.grpc.Attributes attributes;
  private volatile List<io.grpc.EquivalentAddressGroup> addresses;
  private volatile dev.tern.LoadBalancer.Subchannel subchannel;

  GrpcJavaSubchannel(
      GrpcJavaHelper helper,
      dev.tern.LoadBalancer.Helper ternHelper,
      io.grpc.LoadBalancer.CreateSubchannelArgs args) {
    this.helper = helper;
    this.attributes = args.getAttributes();
    this.addresses = List.copyOf(args.getAddresses());
    dev.tern.LoadBalancer.CreateSubchannelArgs ternArgs =
        dev.tern.LoadBalancer.CreateSubchannelArgs.newBuilder()
            .setAddresses(AddressGroups.toTern(args.getAddresses()))
            .build();
    helper.runInChannel(() -> subchannel = ternHelper.createSubchannel(ternArgs));
  }

  /** The Tern subchannel, or null until the channel's context has made it. */
  dev.tern.LoadBalancer.Subchannel ternSubchannel() {
    return subchannel;
  }

  @Override
  public void start(io.grpc.LoadBalancer.SubchannelStateListener listener) {
    helper.runInChannel(
        () ->
            subchannel.start(
                state -> {
                  io.grpc.ConnectivityStateInfo converted = toGrpc(state);
                  helper.runInBalancer(() -> listener.onSubchannelState(converted));
                }));
  }

  @Override
  public void shutdown() {
    helper.runInChannel(() -> subchannel.shutdown());
  }

  @Override
  public void requestConnection() {
    helper.runInChannel(() -> subchannel.requestConnection());
  }

  @Override
  public List<io.grpc.EquivalentAddressGroup> getAllAddresses() {
    return addresses;
  }

  @Override
  public void updateAddresses(List<io.grpc.EquivalentAddressGroup> newAddresses) {
    List<dev.tern.EquivalentAddressGroup> converted = AddressGroups.toTern(newAddresses);
    addresses = List.copyOf(newAddresses);
    helper.runInChannel(() -> subchannel.updateAddresses(converted));
  }

  @Override
  public io.grpc.Attributes getAttributes() {
    return attributes;
  }

  @Override
  public io.grpc.ChannelLogger getChannelLogger() {
    return helper.getChannelLogger();
  }

  @Override
  public io.grpc.Channel asChannel() {
    throw new UnsupportedOperationException(
        "grpc-java load balancer "
            + helper.policy()
            + " called Subchannel.asChannel, which the Tern bridge does not support: a Tern"
            + " subchannel's channel is Tern's, not io.grpc's");
  }

  @Override
  public String toString() {
    return "GrpcJavaSubchannel{" + addresses + "}";
  }

  private static io.grpc.ConnectivityStateInfo toGrpc(dev.tern.ConnectivityStateInfo state) {
    io.grpc.ConnectivityState converted =
        io.grpc.ConnectivityState.valueOf(state.getState().name());
    return converted == io.grpc.ConnectivityState.TRANSIENT_FAILURE
        ? io.grpc.ConnectivityStateInfo.forTransientFailure(Statuses.toGrpc(state.getStatus()))
        : io.grpc.ConnectivityStateInfo.forNonError(converted);
  }
}
