package dev.tern.xds.internal.lb;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.ConnectivityState;
import dev.tern.ConnectivityStateInfo;
import dev.tern.EquivalentAddressGroup;
import dev.tern.LoadBalancer;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.MetricRecorder;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import dev.tern.testing.FakeClock;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A test Helper: records the subchannels balancers create (fakes whose state the test sets) and the
 * state and picker last published; its timer is a FakeClock. A task failing in its synchronization
 * context fails the test. Used from the test thread only.
 */
final class RecordingHelper extends LoadBalancer.Helper {
  final FakeClock clock = new FakeClock();
  final List<FakeSubchannel> subchannels = new ArrayList<>();
  final SynchronizationContext syncContext =
      new SynchronizationContext(
          (thread, e) -> {
            throw new AssertionError("task failed in the synchronization context", e);
          });
  ConnectivityState state;
  LoadBalancer.SubchannelPicker picker;
  int refreshes;
  int backoffResets;
  MetricRecorder metricRecorder = MetricRecorder.none();

  @Override
  public LoadBalancer.Subchannel createSubchannel(LoadBalancer.CreateSubchannelArgs args) {
    FakeSubchannel subchannel = new FakeSubchannel(args);
    subchannels.add(subchannel);
    return subchannel;
  }

  @Override
  public void updateBalancingState(
      ConnectivityState newState, LoadBalancer.SubchannelPicker newPicker) {
    state = newState;
    picker = newPicker;
  }

  @Override
  public void refreshNameResolution() {
    refreshes++;
  }

  @Override
  public void resetConnectBackoff() {
    backoffResets++;
  }

  @Override
  public SynchronizationContext getSynchronizationContext() {
    return syncContext;
  }

  @Override
  public ScheduledExecutorService getScheduledExecutorService() {
    return clock;
  }

  @Override
  public String getAuthority() {
    return "test.example";
  }

  @Override
  public String getChannelTarget() {
    return "test:///test.example";
  }

  @Override
  public MetricRecorder getMetricRecorder() {
    return metricRecorder;
  }

  /** The live subchannel for {@code port} on 127.0.0.1. */
  FakeSubchannel subchannel(int port) {
    for (FakeSubchannel subchannel : subchannels) {
      if (!subchannel.shutdown
          && subchannel.getAllAddresses().get(0).getAddresses().contains(address(port))) {
        return subchannel;
      }
    }
    return null;
  }

  /** Picks with the last published picker. */
  LoadBalancer.PickResult pick() {
    return pick(CallOptions.DEFAULT);
  }

  /** Picks with the last published picker for a call with {@code options}. */
  LoadBalancer.PickResult pick(CallOptions options) {
    return picker.pickSubchannel(
        new LoadBalancer.PickSubchannelArgs() {
          @Override
          public CallOptions getCallOptions() {
            return options;
          }

          @Override
          public Metadata getHeaders() {
            return new Metadata();
          }

          @Override
          public MethodDescriptor<?, ?> getMethodDescriptor() {
            return null;
          }
        });
  }

  /** Runs {@code task} in the synchronization context, as the channel calls balancers. */
  void run(Runnable task) {
    syncContext.execute(task);
  }

  static InetSocketAddress address(int port) {
    return new InetSocketAddress("127.0.0.1", port);
  }

  /** An endpoint on 127.0.0.1:{@code port} reached by {@code path}. */
  static EquivalentAddressGroup endpoint(int port, String... path) {
    return new EquivalentAddressGroup(
        List.of(address(port)),
        Attributes.newBuilder().set(AddressPath.PATH, List.of(path)).build());
  }

  /** A subchannel whose state the test sets. */
  static final class FakeSubchannel extends LoadBalancer.Subchannel {
    private final LoadBalancer.CreateSubchannelArgs args;
    private List<EquivalentAddressGroup> addresses;
    LoadBalancer.SubchannelStateListener listener;
    boolean shutdown;
    int connectionRequests;
    dev.tern.Channel channel; // what asChannel() returns; null: not supported

    FakeSubchannel(LoadBalancer.CreateSubchannelArgs args) {
      this.args = args;
      this.addresses = args.getAddresses();
    }

    void setState(ConnectivityState state) {
      listener.onSubchannelState(ConnectivityStateInfo.forNonError(state));
    }

    void fail() {
      listener.onSubchannelState(
          ConnectivityStateInfo.forTransientFailure(
              Status.UNAVAILABLE.withDescription("connection refused")));
    }

    @Override
    public void start(LoadBalancer.SubchannelStateListener stateListener) {
      this.listener = stateListener;
    }

    @Override
    public void shutdown() {
      shutdown = true;
    }

    @Override
    public void requestConnection() {
      connectionRequests++;
    }

    @Override
    public List<EquivalentAddressGroup> getAllAddresses() {
      return addresses;
    }

    @Override
    public void updateAddresses(List<EquivalentAddressGroup> newAddresses) {
      addresses = newAddresses;
    }

    @Override
    public Attributes getAttributes() {
      return args.getAttributes();
    }

    @Override
    public dev.tern.Channel asChannel() {
      return channel == null ? super.asChannel() : channel;
    }

    @Override
    public String toString() {
      return "FakeSubchannel" + addresses;
    }
  }
}
