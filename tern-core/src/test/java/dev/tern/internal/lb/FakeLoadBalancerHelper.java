package dev.tern.internal.lb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.ConnectivityState;
import dev.tern.ConnectivityStateInfo;
import dev.tern.EquivalentAddressGroup;
import dev.tern.LoadBalancer;
import dev.tern.LoadBalancer.PickResult;
import dev.tern.LoadBalancer.PickSubchannelArgs;
import dev.tern.LoadBalancer.SubchannelPicker;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import dev.tern.testing.FakeClock;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

/**
 * A {@link LoadBalancer.Helper} for balancer tests: it records what the balancer asks for
 * (subchannels, states and pickers, re-resolutions), runs a real {@link SynchronizationContext}
 * whose handler keeps what tasks throw, and times with a {@link FakeClock}. Its subchannels are
 * {@link FakeSubchannel}s whose states the test reports. The balancer runs in the context, as in a
 * channel: call it through {@link #run}.
 *
 * <p>Not thread-safe: one test thread drives it.
 */
final class FakeLoadBalancerHelper extends LoadBalancer.Helper {
  static final PickSubchannelArgs ARGS = new Args();

  final FakeClock clock = new FakeClock();
  final List<Throwable> thrown = new CopyOnWriteArrayList<>();
  final SynchronizationContext sync = new SynchronizationContext((t, e) -> thrown.add(e));
  final List<FakeSubchannel> subchannels = new ArrayList<>();
  final List<ConnectivityState> states = new ArrayList<>();
  SubchannelPicker picker;
  int refreshes;

  FakeLoadBalancerHelper() {
    clock.setRethrowTaskFailures(true);
  }

  /** An address that is never looked up, for tests that do not care about its family. */
  static SocketAddress address(String host) {
    return InetSocketAddress.createUnresolved(host, 443);
  }

  /** One group per address. */
  static List<EquivalentAddressGroup> groups(SocketAddress... addresses) {
    List<EquivalentAddressGroup> groups = new ArrayList<>();
    for (SocketAddress address : addresses) {
      groups.add(new EquivalentAddressGroup(address));
    }
    return groups;
  }

  static LoadBalancer.ResolvedAddresses resolved(List<EquivalentAddressGroup> groups) {
    return LoadBalancer.ResolvedAddresses.newBuilder().setAddresses(groups).build();
  }

  /** Runs {@code task} in the synchronization context. */
  void run(Runnable task) {
    sync.execute(task);
  }

  /** Calls {@code task} in the synchronization context and returns its result. */
  <T> T call(Supplier<T> task) {
    List<T> result = new ArrayList<>(1);
    sync.execute(() -> result.add(task.get()));
    assertThat(result).as("the task ran").hasSize(1);
    return result.get(0);
  }

  /** The last state published, or null if none was. */
  ConnectivityState state() {
    return states.isEmpty() ? null : states.get(states.size() - 1);
  }

  /** A pick with the last picker published. */
  PickResult pick() {
    assertThat(picker).as("a picker was published").isNotNull();
    return picker.pickSubchannel(ARGS);
  }

  /** The subchannel the last picker picks. */
  FakeSubchannel pickedSubchannel() {
    PickResult result = pick();
    assertThat(result.getSubchannel()).as("picked subchannel of " + result).isNotNull();
    return (FakeSubchannel) result.getSubchannel();
  }

  /** The most recent subchannel created for {@code address}. */
  FakeSubchannel subchannel(SocketAddress address) {
    for (int i = subchannels.size() - 1; i >= 0; i--) {
      FakeSubchannel subchannel = subchannels.get(i);
      if (subchannel.address().equals(address)) {
        return subchannel;
      }
    }
    throw new AssertionError("no subchannel for " + address + " among " + subchannels);
  }

  /** The addresses of the subchannels created so far, in creation order. */
  List<SocketAddress> createdAddresses() {
    List<SocketAddress> addresses = new ArrayList<>();
    for (FakeSubchannel subchannel : subchannels) {
      addresses.add(subchannel.address());
    }
    return addresses;
  }

  @Override
  public LoadBalancer.Subchannel createSubchannel(LoadBalancer.CreateSubchannelArgs args) {
    sync.throwIfNotInThisSynchronizationContext();
    FakeSubchannel subchannel = new FakeSubchannel(args.getAddresses(), args.getAttributes());
    subchannels.add(subchannel);
    return subchannel;
  }

  @Override
  public void updateBalancingState(ConnectivityState newState, SubchannelPicker newPicker) {
    sync.throwIfNotInThisSynchronizationContext();
    states.add(newState);
    picker = newPicker;
  }

  @Override
  public void refreshNameResolution() {
    refreshes++;
  }

  @Override
  public SynchronizationContext getSynchronizationContext() {
    return sync;
  }

  @Override
  public ScheduledExecutorService getScheduledExecutorService() {
    return clock;
  }

  @Override
  public String getAuthority() {
    return "fake.example:443";
  }

  @Override
  public String getChannelTarget() {
    return "fake-target";
  }

  /**
   * A subchannel that records what its balancer asks of it; the test reports its states, which
   * reach the balancer in the context. Like the channel's, it reports SHUTDOWN when shut down.
   */
  final class FakeSubchannel extends LoadBalancer.Subchannel {
    private List<EquivalentAddressGroup> addresses;
    private final Attributes attributes;
    private LoadBalancer.SubchannelStateListener listener;
    int connectionRequests;
    boolean shutdown;

    FakeSubchannel(List<EquivalentAddressGroup> addresses, Attributes attributes) {
      this.addresses = addresses;
      this.attributes = attributes;
    }

    SocketAddress address() {
      return addresses.get(0).getAddresses().get(0);
    }

    boolean isStarted() {
      return listener != null;
    }

    /** Reports {@code state} (not TRANSIENT_FAILURE) to the balancer. */
    void report(ConnectivityState state) {
      deliver(ConnectivityStateInfo.forNonError(state));
    }

    /** Reports TRANSIENT_FAILURE with {@code error} to the balancer. */
    void fail(Status error) {
      deliver(ConnectivityStateInfo.forTransientFailure(error));
    }

    private void deliver(ConnectivityStateInfo info) {
      assertThat(listener).as(this + " was started").isNotNull();
      assertThat(shutdown).as(this + " is shut down").isFalse();
      sync.execute(() -> listener.onSubchannelState(info));
    }

    @Override
    public void start(LoadBalancer.SubchannelStateListener listener) {
      sync.throwIfNotInThisSynchronizationContext();
      if (this.listener != null) {
        throw new IllegalStateException("started twice");
      }
      this.listener = listener;
    }

    @Override
    public void shutdown() {
      if (shutdown) {
        return;
      }
      shutdown = true;
      if (listener != null) {
        LoadBalancer.SubchannelStateListener l = listener;
        sync.execute(
            () ->
                l.onSubchannelState(ConnectivityStateInfo.forNonError(ConnectivityState.SHUTDOWN)));
      }
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
      addresses = List.copyOf(newAddresses);
    }

    @Override
    public Attributes getAttributes() {
      return attributes;
    }

    @Override
    public String toString() {
      return "FakeSubchannel{" + addresses + "}";
    }
  }

  /** The pick arguments of one plain call. */
  private static final class Args implements PickSubchannelArgs {
    private static final MethodDescriptor.Marshaller<String> STRINGS =
        new MethodDescriptor.Marshaller<>() {
          @Override
          public InputStream stream(String value) {
            return new ByteArrayInputStream(
                value.getBytes(java.nio.charset.StandardCharsets.UTF_8));
          }

          @Override
          public String parse(InputStream stream) {
            throw new UnsupportedOperationException();
          }
        };

    private final MethodDescriptor<String, String> method =
        MethodDescriptor.<String, String>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName("test.Echo/Unary")
            .setRequestMarshaller(STRINGS)
            .setResponseMarshaller(STRINGS)
            .build();

    @Override
    public CallOptions getCallOptions() {
      return CallOptions.DEFAULT;
    }

    @Override
    public Metadata getHeaders() {
      return new Metadata();
    }

    @Override
    public MethodDescriptor<?, ?> getMethodDescriptor() {
      return method;
    }
  }
}
