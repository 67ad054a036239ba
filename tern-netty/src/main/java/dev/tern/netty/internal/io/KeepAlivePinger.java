package dev.tern.netty.internal.io;

import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Keepalive of either end of a connection: when nothing has been read for the keepalive time, sends
 * a PING (the client only while calls are open, unless configured otherwise; the server always); if
 * neither its ack nor anything else arrives within the timeout, the connection is declared dead so
 * calls fail fast instead of hanging on a silently dropped connection.
 *
 * <p>Event loop only: created, ticked and stopped on the connection's event loop.
 */
public final class KeepAlivePinger {
  /** Payload of keepalive PINGs, told apart from the transport's measured pings by it. */
  public static final long PAYLOAD = 0x7465726e6b61L; // "ternka"

  private final ChannelHandlerContext ctx;
  private final Runnable writePing;
  private final long timeNanos;
  private final long timeoutNanos;
  private final boolean withoutCalls;
  private final BooleanSupplier hasCalls;
  private final Runnable onPingSent;
  private final Runnable onDead;

  private long lastReadNanos;
  private boolean pingOutstanding;
  private long pingSentNanos;
  private ScheduledFuture<?> timer;
  private boolean stopped;

  /**
   * @param writePing writes a PING of {@link #PAYLOAD}, which the channel's next flush sends
   */
  public KeepAlivePinger(
      ChannelHandlerContext ctx,
      Runnable writePing,
      long timeNanos,
      long timeoutNanos,
      boolean withoutCalls,
      BooleanSupplier hasCalls,
      Runnable onPingSent,
      Runnable onDead) {
    this.ctx = ctx;
    this.writePing = writePing;
    this.timeNanos = timeNanos;
    this.timeoutNanos = timeoutNanos;
    this.withoutCalls = withoutCalls;
    this.hasCalls = hasCalls;
    this.onPingSent = onPingSent;
    this.onDead = onDead;
  }

  public void start() {
    lastReadNanos = System.nanoTime();
    schedule(timeNanos);
  }

  /** Anything read proves the peer alive. */
  public void onRead() {
    lastReadNanos = System.nanoTime();
    if (pingOutstanding && !stopped) {
      // The timer waits for the timeout; restart it for the next keepalive period instead.
      pingOutstanding = false;
      timer.cancel(false);
      schedule(timeNanos);
    }
  }

  public void stop() {
    stopped = true;
    if (timer != null) {
      timer.cancel(false);
    }
  }

  private void schedule(long delayNanos) {
    timer = ctx.executor().schedule(this::tick, Math.max(delayNanos, 1), TimeUnit.NANOSECONDS);
  }

  private void tick() {
    if (stopped) {
      return;
    }
    long now = System.nanoTime();
    if (pingOutstanding) {
      long waited = now - pingSentNanos;
      if (waited >= timeoutNanos) {
        stop();
        onDead.run();
      } else {
        schedule(timeoutNanos - waited);
      }
      return;
    }
    long idle = now - lastReadNanos;
    if (idle < timeNanos) {
      schedule(timeNanos - idle);
      return;
    }
    if (withoutCalls || hasCalls.getAsBoolean()) {
      pingOutstanding = true;
      pingSentNanos = now;
      writePing.run();
      onPingSent.run();
      ctx.channel().flush();
      schedule(timeoutNanos);
    } else {
      schedule(timeNanos);
    }
  }
}
