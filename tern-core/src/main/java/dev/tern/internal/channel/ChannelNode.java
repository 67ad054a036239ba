package dev.tern.internal.channel;

import dev.tern.ConnectivityState;
import dev.tern.channelz.CallCounter;
import dev.tern.channelz.ChannelStats;
import dev.tern.channelz.Channelz;
import dev.tern.channelz.Instrumented;
import dev.tern.channelz.Ref;
import dev.tern.channelz.TraceEvent;
import dev.tern.channelz.TraceLog;
import dev.tern.internal.client.ClientCallImpl;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * A {@link ManagedChannelImpl} as channelz sees it: its calls (counted by {@link ClientCallImpl}),
 * its state changes (logged by {@link ChannelStateTracker}), and its subchannels (added and removed
 * by {@link ChannelLifecycle}). Registered with {@link Channelz#global()} from creation until the
 * channel has terminated.
 *
 * <p>Thread-safe: the counter and the trace are; the subchannels are a concurrent set (changed from
 * the synchronization context, read by snapshots from any thread); the state is read through the
 * tracker's lock.
 */
final class ChannelNode implements Instrumented<ChannelStats> {
  private final long id = Channelz.allocateId();
  private final String target;
  private final CallCounter calls = new CallCounter();
  private final TraceLog trace = new TraceLog();
  private final Set<SubchannelImpl> subchannels = ConcurrentHashMap.newKeySet();
  private volatile Supplier<ConnectivityState> state = () -> ConnectivityState.IDLE;

  ChannelNode(String target) {
    this.target = target;
    trace.add("Channel for " + target + " created", TraceEvent.Severity.INFO);
  }

  CallCounter calls() {
    return calls;
  }

  TraceLog trace() {
    return trace;
  }

  /** Where the state comes from (set once the tracker exists). */
  void stateFrom(Supplier<ConnectivityState> source) {
    this.state = source;
  }

  void subchannelCreated(SubchannelImpl subchannel) {
    subchannels.add(subchannel);
    Ref ref = subchannel.channelzNode().channelzRef();
    trace.add(
        new TraceEvent(
            "Subchannel " + ref.id() + " created for " + ref.name(),
            TraceEvent.Severity.INFO,
            Instant.now(),
            ref,
            true));
  }

  void subchannelTerminated(SubchannelImpl subchannel) {
    subchannels.remove(subchannel);
  }

  @Override
  public long channelzId() {
    return id;
  }

  @Override
  public String channelzName() {
    return target;
  }

  @Override
  public ChannelStats channelzStats() {
    List<Ref> children = new ArrayList<>();
    for (SubchannelImpl subchannel : subchannels) {
      children.add(subchannel.channelzNode().channelzRef());
    }
    children.sort((a, b) -> Long.compare(a.id(), b.id()));
    return new ChannelStats(
        target, state.get(), calls.snapshot(), trace.snapshot(), children, List.of());
  }

  @Override
  public String toString() {
    return "ChannelNode{" + id + ", " + target + "}";
  }
}
