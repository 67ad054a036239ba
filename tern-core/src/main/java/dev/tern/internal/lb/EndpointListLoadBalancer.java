package dev.tern.internal.lb;

import dev.tern.ConnectivityState;
import dev.tern.ConnectivityStateInfo;
import dev.tern.EquivalentAddressGroup;
import dev.tern.LoadBalancer;
import dev.tern.Status;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The common part of balancers that use every server at once ({@code round_robin}, {@code
 * least_request}): one subchannel per endpoint (an {@link EquivalentAddressGroup}; its addresses
 * are tried in order), each kept connected: an endpoint that goes IDLE (connection lost, or its
 * back-off after a failure is over) reconnects at once, and a failure or a lost connection asks for
 * re-resolution. An endpoint that failed counts as failed until it is READY again, even while it
 * reconnects (so a flapping server does not flip the channel to CONNECTING). The channel is READY
 * if any endpoint is, else CONNECTING if any is connecting, else TRANSIENT_FAILURE with the last
 * error; subclasses make the picker over the READY endpoints.
 *
 * <p>Not thread-safe: runs in the channel's synchronization context.
 */
abstract class EndpointListLoadBalancer extends LoadBalancer {
  private final Helper helper;
  private final Map<EquivalentAddressGroup, Endpoint> endpoints = new LinkedHashMap<>();
  private Status lastError = Status.UNAVAILABLE.withDescription("no endpoint has connected yet");
  private ConnectivityState state;
  private List<Endpoint> lastReady = List.of();

  EndpointListLoadBalancer(Helper helper) {
    this.helper = helper;
  }

  /** One endpoint: its subchannel and what we last heard from it. */
  static final class Endpoint {
    final Subchannel subchannel;
    ConnectivityState state = ConnectivityState.IDLE;
    boolean failedSinceReady;

    Endpoint(Subchannel subchannel) {
      this.subchannel = subchannel;
    }
  }

  /** A picker over {@code ready} (never empty, in the resolver's order). */
  abstract SubchannelPicker readyPicker(List<Endpoint> ready);

  @Override
  public Status acceptResolvedAddresses(ResolvedAddresses resolved) {
    List<EquivalentAddressGroup> groups = resolved.getAddresses();
    if (groups.isEmpty()) {
      Status error =
          Status.UNAVAILABLE.withDescription(
              "name resolver returned no addresses for '" + helper.getChannelTarget() + "'");
      handleNameResolutionError(error);
      return error;
    }
    Map<EquivalentAddressGroup, Endpoint> kept = new LinkedHashMap<>();
    List<Endpoint> created = new ArrayList<>();
    for (EquivalentAddressGroup group : groups) {
      EquivalentAddressGroup key = new EquivalentAddressGroup(group.getAddresses());
      if (kept.containsKey(key)) {
        continue;
      }
      Endpoint endpoint = endpoints.remove(key);
      if (endpoint == null) {
        Subchannel subchannel =
            helper.createSubchannel(
                CreateSubchannelArgs.newBuilder()
                    .setAddresses(group)
                    .setAttributes(group.getAttributes())
                    .build());
        endpoint = new Endpoint(subchannel);
        created.add(endpoint);
      }
      kept.put(key, endpoint);
    }
    for (Endpoint removed : endpoints.values()) {
      removed.subchannel.shutdown();
    }
    endpoints.clear();
    endpoints.putAll(kept);
    for (Endpoint endpoint : created) {
      endpoint.subchannel.start(info -> onSubchannelState(endpoint, info));
      endpoint.subchannel.requestConnection();
    }
    publish();
    return Status.OK;
  }

  @Override
  public void handleNameResolutionError(Status error) {
    lastError = error;
    if (endpoints.isEmpty() || state != ConnectivityState.READY) {
      if (endpoints.isEmpty() || allFailed()) {
        updateState(
            ConnectivityState.TRANSIENT_FAILURE,
            new FixedResultPicker(PickResult.withError(error)));
      }
    }
  }

  @Override
  public void shutdown() {
    for (Endpoint endpoint : endpoints.values()) {
      endpoint.subchannel.shutdown();
    }
    endpoints.clear();
  }

  private void onSubchannelState(Endpoint endpoint, ConnectivityStateInfo info) {
    if (!endpoints.containsValue(endpoint)) {
      return;
    }
    ConnectivityState previous = endpoint.state;
    endpoint.state = info.getState();
    switch (info.getState()) {
      case READY -> endpoint.failedSinceReady = false;
      case TRANSIENT_FAILURE -> {
        endpoint.failedSinceReady = true;
        lastError = info.getStatus();
        helper.refreshNameResolution();
      }
      case IDLE -> {
        if (previous == ConnectivityState.READY) {
          helper.refreshNameResolution();
        }
        endpoint.subchannel.requestConnection();
      }
      default -> {}
    }
    publish();
  }

  private boolean allFailed() {
    for (Endpoint endpoint : endpoints.values()) {
      if (!endpoint.failedSinceReady) {
        return false;
      }
    }
    return true;
  }

  private void publish() {
    List<Endpoint> ready = new ArrayList<>();
    boolean connecting = false;
    for (Endpoint endpoint : endpoints.values()) {
      if (endpoint.state == ConnectivityState.READY) {
        ready.add(endpoint);
      } else if (!endpoint.failedSinceReady) {
        connecting = true;
      }
    }
    if (!ready.isEmpty()) {
      if (state != ConnectivityState.READY || !ready.equals(lastReady)) {
        lastReady = ready;
        updateState(ConnectivityState.READY, readyPicker(ready));
      }
      return;
    }
    lastReady = List.of();
    if (connecting) {
      if (state != ConnectivityState.CONNECTING) {
        updateState(ConnectivityState.CONNECTING, new FixedResultPicker(PickResult.withNoResult()));
      }
    } else {
      updateState(
          ConnectivityState.TRANSIENT_FAILURE,
          new FixedResultPicker(PickResult.withError(lastError)));
    }
  }

  private void updateState(ConnectivityState newState, SubchannelPicker picker) {
    state = newState;
    helper.updateBalancingState(newState, picker);
  }

  /** Every current endpoint, in the resolver's order (READY or not). */
  List<Endpoint> allEndpoints() {
    List<Endpoint> list = new ArrayList<>();
    for (Iterator<Endpoint> it = endpoints.values().iterator(); it.hasNext(); ) {
      list.add(it.next());
    }
    return list;
  }
}
