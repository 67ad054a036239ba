package dev.tern.netty.internal.io;

import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Keepalive of either end of a connection: when nothing has been read for the keepalive time, sends
 * a PING (the client only while calls are open, unless configured otherwise; the server always); if
 * neither its ack nor anything else arrives within the timeout, the connection is declared dead so
 * calls fail fast instead of hanging on a silently dropped connection.
 *
 * <p>Event loop only: created, ticked and stopped on the connection's event loop.
 */
public final class KeepAlivePinger implements Runnable {
  /** Payload of keepalive PINGs, told apart from the transport's measured pings by it. */
  public static final long PAYLOAD = 0x7465726e6b61L; // "ternka"

  /**
   * What the pinger asks of its connection: one object per connection (its handler or lifecycle)
   * instead of a closure per question, since every idle connection holds its pinger. Called on the
   * event loop.
   */
  public interface Connection {
    /** Writes a PING of {@link #PAYLOAD}, which the channel's next flush sends. */
    void writeKeepAlivePing();

    /** Whether calls are open; asked only of a pinger that pings only while they are. */
    boolean hasOpenCalls();

    /** A keepalive PING left (channelz counts them). */
    void keepAlivePingSent();

    /**
     * Neither the PING's ack nor anything else arrived within the timeout: the connection is likely
     * gone. The pinger has stopped.
     */
    void keepAliveTimedOut();
  }

  private final ChannelHandlerContext ctx;
  private final Connection connection;
  private final long timeNanos;
  private final long timeoutNanos;
  private final boolean withoutCalls;

  private long lastReadNanos;
  private boolean pingOutstanding;
  private long pingSentNanos;
  private ScheduledFuture<?> timer;
  private boolean stopped;

  /**
   * @param withoutCalls ping while no calls are open too (else only while {@link
   *     Connection#hasOpenCalls})
   */
  public KeepAlivePinger(
      ChannelHandlerContext ctx,
      Connection connection,
      long timeNanos,
      long timeoutNanos,
      boolean withoutCalls) {
    this.ctx = ctx;
    this.connection = connection;
    this.timeNanos = timeNanos;
    this.timeoutNanos = timeoutNanos;
    this.withoutCalls = withoutCalls;
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
    timer = ctx.executor().schedule(this, Math.max(delayNanos, 1), TimeUnit.NANOSECONDS);
  }

  /** The timer's task (the pinger is its own, so a connection holds no closure for it). */
  @Override
  public void run() {
    if (stopped) {
      return;
    }
    long now = System.nanoTime();
    if (pingOutstanding) {
      long waited = now - pingSentNanos;
      if (waited >= timeoutNanos) {
        stop();
        connection.keepAliveTimedOut();
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
    if (withoutCalls || connection.hasOpenCalls()) {
      pingOutstanding = true;
      pingSentNanos = now;
      connection.writeKeepAlivePing();
      connection.keepAlivePingSent();
      ctx.channel().flush();
      schedule(timeoutNanos);
    } else {
      schedule(timeNanos);
    }
  }
}
