package dev.tern.internal.lb;

import dev.tern.Attributes;
import dev.tern.ConnectivityState;
import dev.tern.ConnectivityStateInfo;
import dev.tern.EquivalentAddressGroup;
import dev.tern.LoadBalancer;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * {@code pick_first}: one connection at a time, to the first address that answers (gRFC A62). The
 * addresses of every server are flattened into one list (the servers shuffled first if configured,
 * each keeping its own addresses' order; then IPv6 and IPv4 interleaved, as gRFC A61's happy
 * eyeballs asks), one subchannel per address. A pass tries them in order, starting the next one
 * when the current fails or has not connected within 250 ms; the first to become READY wins and the
 * others are shut down. If every address fails, the balancer is TRANSIENT_FAILURE and stays so
 * (sticky) until one connects, while each subchannel keeps retrying after its back-off; it asks for
 * re-resolution when the pass fails and again each time as many failures as there are addresses
 * follow. A READY connection that is lost makes the balancer IDLE until a call or {@code
 * getState(true)} asks for a connection, and asks for re-resolution.
 *
 * <p>Not thread-safe: runs in the channel's synchronization context.
 */
final class PickFirstLoadBalancer extends LoadBalancer {
  static final long HAPPY_EYEBALLS_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

  private final Helper helper;
  private final Random random;
  private final Map<SocketAddress, Entry> entries = new LinkedHashMap<>();
  private List<SocketAddress> addresses = List.of();

  /** Each address's group attributes, from the last resolution. */
  private Map<SocketAddress, Attributes> attributes = Map.of();

  private int nextIndex;
  private boolean passActive;
  private boolean sticky;
  private int stickyFailures; // failures reported since the last re-resolution, while sticky
  private boolean waitingForRequest; // IDLE after losing a READY connection
  private Entry chosen;
  private ConnectivityState state = ConnectivityState.IDLE;
  private SynchronizationContext.ScheduledHandle eyeballsTimer;

  PickFirstLoadBalancer(Helper helper, Random random) {
    this.helper = helper;
    this.random = random;
  }

  /** A subchannel for one address and what we last heard from it. */
  private static final class Entry {
    final SocketAddress address;

    /** Its group's attributes, as the subchannel was given them last. */
    Attributes attributes;

    Subchannel subchannel;
    ConnectivityState state = ConnectivityState.IDLE;
    boolean failedThisPass;

    Entry(SocketAddress address) {
      this.address = address;
    }
  }

  @Override
  public Status acceptResolvedAddresses(ResolvedAddresses resolved) {
    List<EquivalentAddressGroup> endpoints = new ArrayList<>(resolved.getAddresses());
    Object config = resolved.getLoadBalancingPolicyConfig();
    if (config instanceof PickFirstConfig && ((PickFirstConfig) config).shuffleAddressList()) {
      Collections.shuffle(endpoints, random); // endpoints, each keeping its addresses' order
    }
    Map<SocketAddress, Attributes> flat = flatten(endpoints);
    if (flat.isEmpty()) {
      Status error =
          Status.UNAVAILABLE.withDescription(
              "name resolver returned no addresses for '" + helper.getChannelTarget() + "'");
      handleNameResolutionError(error);
      return error;
    }
    addresses = interleaveFamilies(new ArrayList<>(flat.keySet()));
    attributes = flat;
    for (Iterator<Entry> it = entries.values().iterator(); it.hasNext(); ) {
      Entry entry = it.next();
      Attributes now = flat.get(entry.address);
      if (now == null) {
        it.remove();
        entry.subchannel.shutdown();
        if (entry == chosen) {
          chosen = null;
        }
      } else if (!now.equals(entry.attributes)) {
        // Same address, new attributes (a locality, a hostname, security settings): the
        // subchannel takes them, and its connection stays.
        entry.attributes = now;
        entry.subchannel.updateAddresses(List.of(new EquivalentAddressGroup(entry.address, now)));
      }
    }
    if (chosen != null) {
      return Status.OK; // still connected to an address the resolver still lists
    }
    if (waitingForRequest && state == ConnectivityState.IDLE) {
      return Status.OK; // connect when asked
    }
    startPass();
    return Status.OK;
  }

  @Override
  public void handleNameResolutionError(Status error) {
    if (chosen != null) {
      return; // keep using the connection we have
    }
    cancelTimer();
    for (Entry entry : entries.values()) {
      entry.subchannel.shutdown();
    }
    entries.clear();
    passActive = false;
    updateState(
        ConnectivityState.TRANSIENT_FAILURE, new FixedResultPicker(PickResult.withError(error)));
  }

  @Override
  public void requestConnection() {
    if (chosen == null && !passActive && !sticky && !addresses.isEmpty()) {
      startPass();
    }
  }

  @Override
  public void shutdown() {
    cancelTimer();
    for (Entry entry : entries.values()) {
      entry.subchannel.shutdown();
    }
    entries.clear();
    chosen = null;
  }

  private void startPass() {
    waitingForRequest = false;
    passActive = true;
    nextIndex = 0;
    for (Entry entry : entries.values()) {
      entry.failedThisPass = false;
    }
    if (!sticky) {
      updateState(ConnectivityState.CONNECTING, new FixedResultPicker(PickResult.withNoResult()));
    }
    startNext();
  }

  /** Starts the next untried address of the pass; false if every one was tried. */
  private boolean startNext() {
    cancelTimer();
    while (nextIndex < addresses.size()) {
      Entry entry = entryFor(addresses.get(nextIndex++));
      if (entry.state == ConnectivityState.TRANSIENT_FAILURE) {
        entry.failedThisPass = true; // still backing off from an earlier failure
        continue;
      }
      entry.subchannel.requestConnection();
      eyeballsTimer =
          helper
              .getSynchronizationContext()
              .schedule(
                  this::eyeballsTimerFired,
                  HAPPY_EYEBALLS_DELAY_NANOS,
                  TimeUnit.NANOSECONDS,
                  helper.getScheduledExecutorService());
      return true;
    }
    return false;
  }

  private void eyeballsTimerFired() {
    eyeballsTimer = null;
    if (passActive && chosen == null) {
      startNext();
    }
  }

  private Entry entryFor(SocketAddress address) {
    Entry entry = entries.get(address);
    if (entry == null) {
      Entry created = new Entry(address);
      created.attributes = attributes.getOrDefault(address, Attributes.EMPTY);
      created.subchannel =
          helper.createSubchannel(
              CreateSubchannelArgs.newBuilder()
                  .setAddresses(new EquivalentAddressGroup(address, created.attributes))
                  .build());
      created.subchannel.start(info -> onSubchannelState(created, info));
      entries.put(address, created);
      entry = created;
    }
    return entry;
  }

  private void onSubchannelState(Entry entry, ConnectivityStateInfo info) {
    if (entries.get(entry.address) != entry) {
      return; // shut down by us
    }
    entry.state = info.getState();
    switch (info.getState()) {
      case READY -> choose(entry);
      case TRANSIENT_FAILURE -> onFailure(entry, info.getStatus());
      case IDLE -> {
        if (entry == chosen) {
          chosen = null;
          waitingForRequest = true;
          updateState(ConnectivityState.IDLE, new RequestConnectionPicker(this, helper));
          helper.refreshNameResolution();
        } else if (sticky) {
          entry.subchannel.requestConnection(); // its back-off is over: try again
        }
      }
      default -> {
        // CONNECTING: the balancer already says CONNECTING (or sticky TRANSIENT_FAILURE).
      }
    }
  }

  private void onFailure(Entry entry, Status error) {
    entry.failedThisPass = true;
    if (sticky) {
      updateState(
          ConnectivityState.TRANSIENT_FAILURE, new FixedResultPicker(PickResult.withError(error)));
      if (++stickyFailures >= addresses.size()) {
        stickyFailures = 0; // every address failed once more: the servers may have moved
        helper.refreshNameResolution();
      }
      return;
    }
    if (!passActive || startNext()) {
      return;
    }
    for (SocketAddress address : addresses) {
      Entry other = entries.get(address);
      if (other == null || !other.failedThisPass) {
        return; // still connecting somewhere
      }
    }
    passActive = false;
    sticky = true;
    stickyFailures = 0;
    cancelTimer();
    for (Entry other : entries.values()) {
      if (other.state == ConnectivityState.IDLE) {
        other.subchannel.requestConnection(); // its back-off ended while the pass went on
      }
    }
    updateState(
        ConnectivityState.TRANSIENT_FAILURE, new FixedResultPicker(PickResult.withError(error)));
    helper.refreshNameResolution();
  }

  private void choose(Entry entry) {
    chosen = entry;
    passActive = false;
    sticky = false;
    cancelTimer();
    for (Iterator<Entry> it = entries.values().iterator(); it.hasNext(); ) {
      Entry other = it.next();
      if (other != entry) {
        it.remove();
        other.subchannel.shutdown();
      }
    }
    updateState(
        ConnectivityState.READY,
        new FixedResultPicker(PickResult.withSubchannel(entry.subchannel)));
  }

  private void updateState(ConnectivityState newState, SubchannelPicker picker) {
    state = newState;
    helper.updateBalancingState(newState, picker);
  }

  private void cancelTimer() {
    if (eyeballsTimer != null) {
      eyeballsTimer.cancel();
      eyeballsTimer = null;
    }
  }

  /**
   * Every group's addresses in order, once each, with the attributes of the first group that lists
   * the address (a subchannel of one address carries its group's attributes, as the balancer above
   * set them: a locality, a hostname, security settings).
   */
  private static Map<SocketAddress, Attributes> flatten(List<EquivalentAddressGroup> groups) {
    Map<SocketAddress, Attributes> seen = new LinkedHashMap<>();
    for (EquivalentAddressGroup group : groups) {
      for (SocketAddress address : group.getAddresses()) {
        seen.putIfAbsent(address, group.getAttributes());
      }
    }
    return seen;
  }

  /**
   * Alternates IPv6 and IPv4 addresses, starting with the first address's family and keeping each
   * family's order (gRFC A61); other address kinds keep their places after those.
   */
  static List<SocketAddress> interleaveFamilies(List<SocketAddress> addresses) {
    List<SocketAddress> v6 = new ArrayList<>();
    List<SocketAddress> v4 = new ArrayList<>();
    List<SocketAddress> others = new ArrayList<>();
    for (SocketAddress address : addresses) {
      if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
        (inet.getAddress() instanceof Inet6Address ? v6 : v4).add(address);
      } else {
        others.add(address);
      }
    }
    if (v6.isEmpty() || v4.isEmpty()) {
      return addresses;
    }
    boolean v6First =
        ((InetSocketAddress) (v6.contains(addresses.get(0)) ? v6.get(0) : v4.get(0))).getAddress()
            instanceof Inet6Address;
    List<SocketAddress> first = v6First ? v6 : v4;
    List<SocketAddress> second = v6First ? v4 : v6;
    List<SocketAddress> result = new ArrayList<>(addresses.size());
    for (int i = 0; i < Math.max(first.size(), second.size()); i++) {
      if (i < first.size()) {
        result.add(first.get(i));
      }
      if (i < second.size()) {
        result.add(second.get(i));
      }
    }
    result.addAll(others);
    return result;
  }
}
