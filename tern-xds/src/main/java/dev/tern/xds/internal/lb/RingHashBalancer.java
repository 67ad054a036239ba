package dev.tern.xds.internal.lb;

import dev.tern.ConnectivityState;
import dev.tern.ConnectivityStateInfo;
import dev.tern.EquivalentAddressGroup;
import dev.tern.LoadBalancer;
import dev.tern.Status;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code ring_hash_experimental} (gRFC A42): one subchannel per endpoint, made at once but left
 * IDLE until a call's hash lands on it (the picker then asks it to connect); the ring is built from
 * the endpoints' weights (EDS endpoint weight times locality weight). An endpoint that failed
 * counts as failed until it is READY again ("sticky" TRANSIENT_FAILURE) and reconnects by itself
 * when its back-off ends. The channel's state follows A42: READY if an endpoint is; else
 * TRANSIENT_FAILURE if two or more have failed; else CONNECTING if one is connecting, or if one has
 * failed and there are others; else IDLE if one is; else TRANSIENT_FAILURE. While in
 * TRANSIENT_FAILURE with nothing connecting, it starts the first IDLE endpoint, so that the channel
 * recovers without calls.
 *
 * <p>Not thread-safe: runs in the channel's synchronization context; its pickers are thread-safe.
 */
final class RingHashBalancer extends LoadBalancer {
  private final Helper helper;
  private final Map<EquivalentAddressGroup, Endpoint> endpoints = new LinkedHashMap<>();
  private Ring ring;
  private List<Endpoint> members = List.of();

  /** One endpoint: its subchannel and what it last said. */
  static final class Endpoint {
    final Subchannel subchannel;
    ConnectivityState state = ConnectivityState.IDLE;
    boolean failed;
    Status lastError = Status.UNAVAILABLE.withDescription("endpoint has not connected yet");

    Endpoint(Subchannel subchannel) {
      this.subchannel = subchannel;
    }

    /** The state the picker and the aggregate see: TRANSIENT_FAILURE from a failure to READY. */
    ConnectivityState effectiveState() {
      return failed && state != ConnectivityState.READY
          ? ConnectivityState.TRANSIENT_FAILURE
          : state;
    }
  }

  RingHashBalancer(Helper helper) {
    this.helper = helper;
  }

  @Override
  public Status acceptResolvedAddresses(ResolvedAddresses resolved) {
    RingHashConfig config = (RingHashConfig) resolved.getLoadBalancingPolicyConfig();
    if (config == null) {
      config = new RingHashConfig(RingHashConfig.DEFAULT_MIN_RING_SIZE, RingHashConfig.SIZE_CAP);
    }
    Map<EquivalentAddressGroup, Endpoint> kept = new LinkedHashMap<>();
    Map<EquivalentAddressGroup, Long> weights = new LinkedHashMap<>();
    for (EquivalentAddressGroup group : resolved.getAddresses()) {
      EquivalentAddressGroup key = new EquivalentAddressGroup(group.getAddresses());
      long weight = weight(group);
      if (weights.merge(key, weight, Long::sum) > weight) {
        continue; // the same endpoint twice: one subchannel, the weights added up
      }
      Endpoint endpoint = endpoints.remove(key);
      if (endpoint == null) {
        Subchannel subchannel =
            helper.createSubchannel(
                CreateSubchannelArgs.newBuilder()
                    .setAddresses(group)
                    .setAttributes(group.getAttributes())
                    .build());
        Endpoint created = new Endpoint(subchannel);
        subchannel.start(info -> onSubchannelState(created, info));
        endpoint = created;
      }
      kept.put(key, endpoint);
    }
    for (Endpoint removed : endpoints.values()) {
      removed.subchannel.shutdown();
    }
    endpoints.clear();
    endpoints.putAll(kept);
    if (endpoints.isEmpty()) {
      ring = null;
      members = List.of();
      Status error = Status.UNAVAILABLE.withDescription("ring_hash: no endpoints");
      helper.updateBalancingState(
          ConnectivityState.TRANSIENT_FAILURE, new FixedResultPicker(PickResult.withError(error)));
      return error;
    }
    List<Ring.Member> ringMembers = new ArrayList<>();
    for (Map.Entry<EquivalentAddressGroup, Long> entry : weights.entrySet()) {
      ringMembers.add(new Ring.Member(hashKey(entry.getKey()), entry.getValue()));
    }
    ring = Ring.build(ringMembers, config.minRingSize(), config.maxRingSize());
    members = List.copyOf(endpoints.values());
    publish();
    return Status.OK;
  }

  @Override
  public void handleNameResolutionError(Status error) {
    if (ring == null) {
      helper.updateBalancingState(
          ConnectivityState.TRANSIENT_FAILURE, new FixedResultPicker(PickResult.withError(error)));
    }
  }

  @Override
  public void shutdown() {
    for (Endpoint endpoint : endpoints.values()) {
      endpoint.subchannel.shutdown();
    }
    endpoints.clear();
    members = List.of();
    ring = null;
  }

  private void onSubchannelState(Endpoint endpoint, ConnectivityStateInfo info) {
    if (!endpoints.containsValue(endpoint) || info.getState() == ConnectivityState.SHUTDOWN) {
      return;
    }
    ConnectivityState previous = endpoint.state;
    endpoint.state = info.getState();
    switch (info.getState()) {
      case READY -> endpoint.failed = false;
      case TRANSIENT_FAILURE -> {
        endpoint.failed = true;
        endpoint.lastError = info.getStatus();
        helper.refreshNameResolution();
      }
      case IDLE -> {
        if (previous == ConnectivityState.READY) {
          helper.refreshNameResolution();
        }
        if (endpoint.failed) {
          endpoint.subchannel.requestConnection(); // sticky failure: keep trying (A42)
        }
      }
      default -> {}
    }
    publish();
  }

  private void publish() {
    int ready = 0;
    int failed = 0;
    int connecting = 0;
    int idle = 0;
    for (Endpoint endpoint : members) {
      switch (endpoint.effectiveState()) {
        case READY -> ready++;
        case TRANSIENT_FAILURE -> failed++;
        case CONNECTING -> connecting++;
        default -> idle++;
      }
    }
    ConnectivityState state;
    if (ready > 0) {
      state = ConnectivityState.READY;
    } else if (failed >= 2) {
      state = ConnectivityState.TRANSIENT_FAILURE;
    } else if (connecting > 0 || (failed == 1 && members.size() > 1)) {
      state = ConnectivityState.CONNECTING;
    } else if (idle > 0) {
      state = ConnectivityState.IDLE;
    } else {
      state = ConnectivityState.TRANSIENT_FAILURE;
    }
    if (state == ConnectivityState.TRANSIENT_FAILURE && connecting == 0) {
      for (Endpoint endpoint : members) {
        if (endpoint.state == ConnectivityState.IDLE && !endpoint.failed) {
          endpoint.subchannel.requestConnection();
          break;
        }
      }
    }
    helper.updateBalancingState(
        state, new RingHashPicker(ring, members, helper.getSynchronizationContext()));
  }

  private static long weight(EquivalentAddressGroup group) {
    Integer endpoint = group.getAttributes().get(AddressPath.ENDPOINT_WEIGHT);
    Integer locality = group.getAttributes().get(AddressPath.LOCALITY_WEIGHT);
    long weight = (endpoint == null ? 1 : endpoint) * (long) (locality == null ? 1 : locality);
    return Math.max(1, weight);
  }

  /** {@code <ip>:<port>} of the group's first address ({@code [ip]:port} for IPv6). */
  static String hashKey(EquivalentAddressGroup group) {
    SocketAddress address = group.getAddresses().get(0);
    if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
      String ip = inet.getAddress().getHostAddress();
      int zone = ip.indexOf('%');
      if (zone >= 0) {
        ip = ip.substring(0, zone);
      }
      return (inet.getAddress() instanceof Inet6Address ? "[" + ip + "]" : ip)
          + ":"
          + inet.getPort();
    }
    return address.toString();
  }
}
