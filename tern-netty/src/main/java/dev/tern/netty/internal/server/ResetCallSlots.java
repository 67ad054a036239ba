package dev.tern.netty.internal.server;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The part of the rapid-reset defence that bounds by concurrency rather than by counting frames (as
 * grpc-go bounds running handlers by its stream limit). A client that resets a call after it opened
 * later ones is cancelling work queued behind its other calls: its deadline passing on a server too
 * busy to have read the request in time (so the server cannot tell it from an early reset by the
 * time alone). Such a reset is not counted toward {@code maxRstFramesPerWindow}; instead the call
 * keeps a slot here until the application is done with it ({@code onCancel} returned, {@link
 * NettyServerStream#cancelledCallFinished}), and while every slot is taken the client's resets
 * count again. So a client that resets to get around the stream limit still has at most {@link
 * #max} abandoned calls running beside the ones it has open, and one that resets each call at once
 * (the newest stream, as a flood does) is counted as before.
 *
 * <p>Thread-safety: {@link #hold} runs on the connection's event loop only (the only increment, so
 * its check cannot be overtaken); {@link #release} on the thread where the application finished the
 * call, at once rather than through the event loop, which is behind when this matters.
 */
final class ResetCallSlots {
  /** Slots when the connection's stream limit is unbounded: the default of that limit. */
  static final int UNBOUNDED_LIMIT_SLOTS = 1_000;

  private final int max;
  private final AtomicInteger taken = new AtomicInteger();

  /**
   * @param maxConcurrentCallsPerConnection the connection's stream limit, whose size the slots take
   */
  ResetCallSlots(int maxConcurrentCallsPerConnection) {
    this.max =
        maxConcurrentCallsPerConnection == Integer.MAX_VALUE
            ? UNBOUNDED_LIMIT_SLOTS
            : maxConcurrentCallsPerConnection;
  }

  /**
   * The client reset the call of {@code state}, stream {@code streamId}, which got no answer early
   * in its time; {@code lastRequestStreamId} is the newest stream the client opened. True if the
   * reset is exempt from counting: a later stream was opened and a slot was free, which the call
   * now holds until {@link #release}. Event loop only.
   */
  boolean hold(ServerStreamState state, int streamId, int lastRequestStreamId) {
    if (streamId >= lastRequestStreamId || taken.get() >= max || !state.hasListener()) {
      return false;
    }
    taken.incrementAndGet();
    state.stream().holdSlotUntilFinished(this);
    return true;
  }

  /**
   * The application is done with a call that held a slot; any thread. (A call whose last task the
   * executor rejected never comes here: its slot stays taken, so that connection's resets count
   * sooner.)
   */
  void release() {
    taken.decrementAndGet();
  }
}
