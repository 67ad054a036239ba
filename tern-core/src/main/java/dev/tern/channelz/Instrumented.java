package dev.tern.channelz;

/**
 * Something channelz can describe: a channel, subchannel, server or socket. Its id is unique in the
 * process and never reused; {@link #channelzStats()} takes a snapshot when a reader asks, so
 * keeping the data current costs the instrumented object only its counters.
 *
 * <p>Implementations are thread-safe: readers call these methods from any thread, while the object
 * is in use.
 *
 * @param <T> the snapshot type: {@link ChannelStats}, {@link ServerStats} or {@link SocketStats}
 */
public interface Instrumented<T> {
  /** The id, from {@link Channelz#allocateId()}; positive. */
  long channelzId();

  /** A short human-readable name (a target, an address pair), shown in references to this. */
  String channelzName();

  /** A snapshot of the current data; never null. */
  T channelzStats();

  /** A reference to this object: its id and name. */
  default Ref channelzRef() {
    return new Ref(channelzId(), channelzName());
  }
}
