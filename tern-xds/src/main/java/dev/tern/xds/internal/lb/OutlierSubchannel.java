package dev.tern.xds.internal.lb;

import dev.tern.Attributes;
import dev.tern.Channel;
import dev.tern.ClientStreamTracer;
import dev.tern.ConnectivityState;
import dev.tern.ConnectivityStateInfo;
import dev.tern.EquivalentAddressGroup;
import dev.tern.LoadBalancer.Subchannel;
import dev.tern.LoadBalancer.SubchannelStateListener;
import dev.tern.Metadata;
import dev.tern.Status;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The subchannel outlier detection gives its child (gRFC A50's subchannel wrapper): it passes the
 * real subchannel's states on, except while its address is ejected, when the child sees
 * TRANSIENT_FAILURE instead; on return the child sees the latest real state. Its connection is kept
 * while ejected, so a returning address is usable at once.
 *
 * <p>Runs in the channel's synchronization context, except {@link #endpoint()} and the tracer
 * factory, which the call path reads (the endpoint is a volatile field).
 */
final class OutlierSubchannel extends Subchannel {
  static final Status EJECTED = Status.UNAVAILABLE.withDescription("ejected by outlier detection");

  private final Subchannel delegate;
  private final Function<List<EquivalentAddressGroup>, OutlierEndpoint> lookup;
  private final Consumer<OutlierSubchannel> onShutdown;
  private final ClientStreamTracer countingTracer = new OutlierCallTracer(this, null);
  private final ClientStreamTracer.Factory countingFactory =
      new ClientStreamTracer.Factory() {
        @Override
        public ClientStreamTracer newClientStreamTracer(
            ClientStreamTracer.StreamInfo info, Metadata headers) {
          return countingTracer; // keeps no per-stream state: one for all streams
        }
      };
  private volatile OutlierEndpoint endpoint;
  private SubchannelStateListener listener;
  private ConnectivityStateInfo latest;
  private boolean ejected;

  /**
   * @param lookup the entry for an address list, or null when it has none (several addresses, or
   *     one the balancer was not given)
   * @param onShutdown told when the child shuts this subchannel down
   */
  OutlierSubchannel(
      Subchannel delegate,
      Function<List<EquivalentAddressGroup>, OutlierEndpoint> lookup,
      Consumer<OutlierSubchannel> onShutdown) {
    this.delegate = delegate;
    this.lookup = lookup;
    this.onShutdown = onShutdown;
    attach(lookup.apply(delegate.getAllAddresses()));
  }

  Subchannel delegate() {
    return delegate;
  }

  /** Its address's entry, or null when its results are not counted. */
  OutlierEndpoint endpoint() {
    return endpoint;
  }

  /** A factory for a tracer counting each call's result for this subchannel's address. */
  ClientStreamTracer.Factory countingFactory() {
    return countingFactory;
  }

  /** Looks its entry up again (after the balancer's addresses changed). */
  void relink() {
    OutlierEndpoint found = lookup.apply(delegate.getAllAddresses());
    if (found != endpoint) {
      attach(found);
    }
  }

  @Override
  public void start(SubchannelStateListener stateListener) {
    listener = stateListener;
    delegate.start(
        state -> {
          latest = state;
          if (!ejected || state.getState() == ConnectivityState.SHUTDOWN) {
            stateListener.onSubchannelState(state);
          }
        });
    if (ejected) {
      stateListener.onSubchannelState(ConnectivityStateInfo.forTransientFailure(EJECTED));
    }
  }

  void eject() {
    if (ejected) {
      return;
    }
    ejected = true;
    if (listener != null) {
      listener.onSubchannelState(ConnectivityStateInfo.forTransientFailure(EJECTED));
    }
  }

  void uneject() {
    if (!ejected) {
      return;
    }
    ejected = false;
    if (listener != null && latest != null) {
      listener.onSubchannelState(latest);
    }
  }

  @Override
  public void shutdown() {
    attach(null);
    onShutdown.accept(this);
    delegate.shutdown();
  }

  @Override
  public void requestConnection() {
    delegate.requestConnection();
  }

  @Override
  public List<EquivalentAddressGroup> getAllAddresses() {
    return delegate.getAllAddresses();
  }

  @Override
  public void updateAddresses(List<EquivalentAddressGroup> addresses) {
    delegate.updateAddresses(addresses);
    relink();
  }

  @Override
  public Attributes getAttributes() {
    return delegate.getAttributes();
  }

  @Override
  public Channel asChannel() {
    return delegate.asChannel();
  }

  @Override
  public String toString() {
    return "OutlierSubchannel{" + delegate + (ejected ? ", ejected" : "") + "}";
  }

  /**
   * Moves to {@code next}'s entry (or none), taking on its ejection and dropping the old counts.
   */
  private void attach(OutlierEndpoint next) {
    OutlierEndpoint previous = endpoint;
    if (previous != null) {
      previous.remove(this);
    }
    endpoint = next;
    if (next != null) {
      next.add(this);
    }
    if (next == null || !next.ejected()) {
      uneject();
    }
  }
}
