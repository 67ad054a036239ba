package dev.tern.channelz;

/**
 * A connection as channelz sees it that can also report its stream counts alone: what a subchannel
 * adds to its totals when the connection closes, without a whole {@link SocketStats} snapshot (its
 * addresses, options, TLS session and flow-control windows). A transport's {@code channelzSocket()}
 * may return one; plain {@link Instrumented Instrumented&lt;SocketStats&gt;} works too, and costs a
 * snapshot per closed connection.
 *
 * <p>Implementations are thread-safe, as {@link Instrumented} is.
 */
public interface InstrumentedSocket extends Instrumented<SocketStats> {
  /**
   * The streams counted so far, as a subchannel counts its calls: started, ended OK, ended
   * otherwise, and when this side last started one. The same counts as {@link #channelzStats()}'s
   * {@link SocketStats#streamsStarted()}, {@link SocketStats#streamsSucceeded()}, {@link
   * SocketStats#streamsFailed()} and {@link SocketStats#lastLocalStreamCreated()}.
   */
  CallStats streamCounts();
}
