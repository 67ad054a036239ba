package dev.tern.http3.internal.server;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Hears a client cancel a call after sending its whole request, which Netty's QUIC codec (4.2.18)
 * does not report by itself: the client's RESET_STREAM then comes after the request's FIN, which
 * QUIC lets a receiver ignore (RFC 9000 section 3.2) and quiche does once the FIN was read, and its
 * STOP_SENDING (section 3.5) shows only as a stream whose capacity is an error, which the codec
 * keeps to itself unless a write is queued or made. So while such calls wait for their handlers,
 * once per {@link #INTERVAL_MILLIS} each one that wrote nothing since the last round writes a
 * reserved HTTP/3 frame of two bytes (RFC 9114 section 7.2.8, which every receiver ignores); how
 * that write fares tells whether the client stopped the stream ({@link Http3RequestStream#probe}),
 * and then the call ends CANCELLED.
 *
 * <p>Cost: one timer per connection, running only while some call's request is complete and its
 * handler has not finished (none per call, none while every call's request is still arriving); a
 * call answered within a round is never probed, and a call writing its response is not probed while
 * it writes. A cancel is heard at the first round that probes the call after it: at most two rounds
 * after the request ended, or one round after a later cancel.
 *
 * <p>Event loop only: the connection's, which its request streams share.
 */
final class StopSendingProbe {
  /** How often a quiet call is probed: what a cancel after the whole request may wait. */
  static final long INTERVAL_MILLIS = 1000;

  private final EventLoop eventLoop;
  private final Set<Http3RequestStream> waiting = new LinkedHashSet<>();
  private ScheduledFuture<?> round;

  StopSendingProbe(EventLoop eventLoop) {
    this.eventLoop = eventLoop;
  }

  /** The call's request is complete; its handler has not finished. */
  void add(Http3RequestStream stream) {
    waiting.add(stream);
    if (round == null) {
      round = eventLoop.schedule(this::run, INTERVAL_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  /** The call ended. */
  void remove(Http3RequestStream stream) {
    waiting.remove(stream);
  }

  /** The connection closed. */
  void stop() {
    waiting.clear();
    if (round != null) {
      round.cancel(false);
      round = null;
    }
  }

  private void run() {
    round = null;
    if (waiting.isEmpty()) {
      return;
    }
    // A probe may end its call at once, which removes it from the set.
    for (Http3RequestStream stream : new ArrayList<>(waiting)) {
      stream.probe();
    }
    if (!waiting.isEmpty()) {
      round = eventLoop.schedule(this::run, INTERVAL_MILLIS, TimeUnit.MILLISECONDS);
    }
  }
}
