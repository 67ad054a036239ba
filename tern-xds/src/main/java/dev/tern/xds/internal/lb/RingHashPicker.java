package dev.tern.xds.internal.lb;

import dev.tern.ConnectivityState;
import dev.tern.LoadBalancer.PickResult;
import dev.tern.LoadBalancer.PickSubchannelArgs;
import dev.tern.LoadBalancer.Subchannel;
import dev.tern.LoadBalancer.SubchannelPicker;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import dev.tern.xds.internal.XdsAttributes;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks by the call's hash ({@link XdsAttributes#RPC_HASH}, a random one when the call has none) on
 * a snapshot of the ring and its endpoints' states, as gRFC A42's picker: the endpoint of the first
 * ring point at or after the hash if READY; if IDLE, ask it to connect and queue the call; if
 * CONNECTING, queue; if failed, ask it to connect and look at the next distinct endpoint on the
 * ring the same way; if that one failed too, take the first READY endpoint further on (asking the
 * first one that has not failed to connect), else fail the call with the first endpoint's error.
 * Immutable; thread-safe; allocates only to ask for a connection.
 */
final class RingHashPicker extends SubchannelPicker {
  private final Ring ring;
  private final Subchannel[] subchannels;
  private final ConnectivityState[] states;
  private final PickResult[] results;
  private final SynchronizationContext syncContext;

  RingHashPicker(
      Ring ring, List<RingHashBalancer.Endpoint> members, SynchronizationContext syncContext) {
    this.ring = ring;
    this.syncContext = syncContext;
    int n = members.size();
    subchannels = new Subchannel[n];
    states = new ConnectivityState[n];
    results = new PickResult[n];
    for (int i = 0; i < n; i++) {
      RingHashBalancer.Endpoint endpoint = members.get(i);
      subchannels[i] = endpoint.subchannel;
      states[i] = endpoint.effectiveState();
      results[i] =
          states[i] == ConnectivityState.READY
              ? PickResult.withSubchannel(endpoint.subchannel)
              : PickResult.withError(
                  Status.UNAVAILABLE.withDescription(
                      "ring_hash: endpoint "
                          + endpoint.subchannel.getAllAddresses()
                          + " failed: "
                          + endpoint.lastError.getDescription()));
    }
  }

  @Override
  public PickResult pickSubchannel(PickSubchannelArgs args) {
    Long callHash = args.getCallOptions().getOption(XdsAttributes.RPC_HASH);
    long hash = callHash != null ? callHash : ThreadLocalRandom.current().nextLong();
    int first = ring.indexOf(hash);
    int firstMember = ring.memberAt(first);
    PickResult result = pickOrQueue(firstMember);
    if (result != null) {
      return result;
    }
    connect(firstMember);
    int size = ring.size();
    int second = -1;
    boolean askedNonFailed = false;
    for (int i = 1; i < size; i++) {
      int member = ring.memberAt((first + i) % size);
      if (member == firstMember) {
        continue;
      }
      if (second < 0) {
        second = member;
        result = pickOrQueue(member);
        if (result != null) {
          return result;
        }
        connect(member);
        continue;
      }
      if (states[member] == ConnectivityState.READY) {
        return results[member];
      }
      if (!askedNonFailed && states[member] != ConnectivityState.TRANSIENT_FAILURE) {
        askedNonFailed = true;
        if (states[member] == ConnectivityState.IDLE) {
          connect(member);
        }
      }
    }
    return results[firstMember];
  }

  /** READY: its result; IDLE: connect and queue; CONNECTING: queue; failed: null. */
  private PickResult pickOrQueue(int member) {
    switch (states[member]) {
      case READY:
        return results[member];
      case IDLE:
        connect(member);
        return PickResult.withNoResult();
      case CONNECTING:
        return PickResult.withNoResult();
      default:
        return null;
    }
  }

  private void connect(int member) {
    Subchannel subchannel = subchannels[member];
    syncContext.execute(subchannel::requestConnection);
  }

  @Override
  public String toString() {
    return "RingHashPicker{points=" + ring.size() + ", endpoints=" + states.length + "}";
  }
}
