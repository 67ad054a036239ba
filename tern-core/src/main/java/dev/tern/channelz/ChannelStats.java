package dev.tern.channelz;

import dev.tern.ConnectivityState;
import java.util.List;
import java.util.Objects;

/**
 * A snapshot of a channel or subchannel.
 *
 * @param target the channel's target, or for a subchannel its addresses
 * @param state its connectivity state
 * @param calls its call counts (for a subchannel: the streams started on its connections)
 * @param trace its recent events
 * @param subchannels a channel's subchannels (empty for a subchannel)
 * @param sockets a subchannel's connections (empty for a channel)
 */
public record ChannelStats(
    String target,
    ConnectivityState state,
    CallStats calls,
    ChannelTrace trace,
    List<Ref> subchannels,
    List<Ref> sockets) {
  /** Checks the arguments and copies the lists. */
  public ChannelStats {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(calls, "calls");
    Objects.requireNonNull(trace, "trace");
    subchannels = List.copyOf(subchannels);
    sockets = List.copyOf(sockets);
  }
}
