package dev.tern.netty.internal.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * How one server connection ends, as a state machine:
 *
 * <ol>
 *   <li><b>serving</b>, until the runtime asks for shutdown ({@link #request}, any thread): from
 *       then on new requests are refused (RST_STREAM REFUSED_STREAM, safe to retry) even before the
 *       GOAWAY is written;
 *   <li><b>first GOAWAY</b> ({@link #start}): GOAWAY naming stream 2^31-1 and a PING; the client
 *       stops opening streams, and its PING ack shows it has read the GOAWAY;
 *   <li><b>final GOAWAY</b>, on that ack or when the grace period expires: GOAWAY naming the last
 *       request taken; the streams in flight finish;
 *   <li><b>closed</b>, once no stream is left.
 * </ol>
 *
 * {@link #now} (shutdownNow) goes straight to the final state. The GOAWAYs are written with the
 * handler's frame writer and flushed with the handler's flush, which also writes flow-controlled
 * frames.
 *
 * <p>Event loop only, except {@link #request}, which sets a volatile flag.
 */
final class ServerShutdown {
  /** Payload of the PING that follows the first GOAWAY. */
  static final long PING_PAYLOAD = 0x97ACEF001L;

  private final ServerHandler handler;
  private final long gracePeriodNanos;

  /** Set on the caller's thread before the GOAWAY is written on the event loop. */
  private volatile boolean requested;

  private boolean firstGoAwaySent;
  private boolean finalGoAwaySent;
  private ScheduledFuture<?> pingTimeout;

  ServerShutdown(ServerHandler handler, long gracePeriodNanos) {
    this.handler = handler;
    this.gracePeriodNanos = gracePeriodNanos;
  }

  /** The runtime asked for shutdown; any thread. */
  void request() {
    requested = true;
  }

  /** Whether a new request must be refused. */
  boolean refusesNewStreams() {
    return requested || firstGoAwaySent || finalGoAwaySent;
  }

  /** Whether no GOAWAY has been sent yet. */
  boolean notStarted() {
    return !firstGoAwaySent && !finalGoAwaySent;
  }

  /** Sends the first GOAWAY and its PING, and starts the grace period. */
  void start() {
    ChannelHandlerContext ctx = handler.ctx();
    if (firstGoAwaySent || !ctx.channel().isActive()) {
      if (!ctx.channel().isActive()) {
        ctx.close();
      }
      return;
    }
    firstGoAwaySent = true;
    handler.goAway(
        ctx,
        Integer.MAX_VALUE,
        Http2Error.NO_ERROR.code(),
        Unpooled.EMPTY_BUFFER,
        ctx.newPromise());
    handler.encoder().writePing(ctx, false, PING_PAYLOAD, ctx.newPromise());
    // Timers (idle, age) call this outside the write queue's drain, which would flush.
    handler.flush(ctx);
    pingTimeout =
        ctx.executor().schedule(this::sendFinalGoAway, gracePeriodNanos, TimeUnit.NANOSECONDS);
  }

  /** A PING ack arrived. */
  void onPingAck(long data) {
    if (data == PING_PAYLOAD && firstGoAwaySent) {
      sendFinalGoAway();
    }
  }

  private void sendFinalGoAway() {
    if (finalGoAwaySent) {
      return;
    }
    finalGoAwaySent = true;
    cancelTimer();
    ChannelHandlerContext ctx = handler.ctx();
    // Written directly, not through Netty's goAway(): Netty would then refuse to create later
    // streams, and a DATA frame on such a never-created stream is a connection error that would
    // kill the calls still in flight. Netty keeps believing the peer knows 2^31-1, so a late stream
    // is created and refused (RST_STREAM REFUSED_STREAM), and its DATA is ignored.
    handler
        .encoder()
        .frameWriter()
        .writeGoAway(
            ctx,
            handler.lastRequestStreamId(),
            Http2Error.NO_ERROR.code(),
            Unpooled.EMPTY_BUFFER,
            ctx.newPromise());
    handler.flush(ctx);
    closeIfIdle();
  }

  /**
   * shutdownNow: the final GOAWAY, naming the last stream Netty created, then the close. The caller
   * has failed the calls.
   */
  void now() {
    finalGoAwaySent = true;
    cancelTimer();
    ChannelHandlerContext ctx = handler.ctx();
    handler.goAway(
        ctx,
        handler.connection().remote().lastStreamCreated(),
        Http2Error.NO_ERROR.code(),
        Unpooled.EMPTY_BUFFER,
        ctx.newPromise());
    handler.flush(ctx);
    ctx.close();
  }

  /** A stream closed: after the final GOAWAY, the last one closes the connection. */
  void onStreamClosed() {
    if (finalGoAwaySent) {
      // Closing from inside Netty's stream-close bookkeeping is unsafe; do it right after.
      handler.ctx().executor().execute(this::closeIfIdle);
    }
  }

  /** The connection is gone: stops the grace-period timer. */
  void cancelTimer() {
    if (pingTimeout != null) {
      pingTimeout.cancel(false);
    }
  }

  private void closeIfIdle() {
    if (finalGoAwaySent && handler.connection().numActiveStreams() == 0) {
      handler.ctx().close();
    }
  }
}
