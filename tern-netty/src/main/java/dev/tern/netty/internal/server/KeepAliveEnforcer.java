package dev.tern.netty.internal.server;

import java.util.concurrent.TimeUnit;

/**
 * Server side of keepalive: decides whether a client's PING comes too often. A ping is too early if
 * it follows the last accepted one by less than the permitted time (or, with no calls open and
 * pings without calls not permitted, by less than two hours). More than {@value #MAX_STRIKES} early
 * pings since the server last sent headers or data make the server close the connection with
 * GOAWAY(ENHANCE_YOUR_CALM, "too_many_pings"), as gRPC prescribes.
 *
 * <p>Event loop only.
 */
final class KeepAliveEnforcer {
  /** Early pings tolerated (clocks and timers are not exact). */
  static final int MAX_STRIKES = 2;

  /** Without calls, pings are tolerated this rarely unless permitted outright. */
  private static final long IMPLICIT_PERMIT_NANOS = TimeUnit.HOURS.toNanos(2);

  private final long minTimeNanos;
  private final boolean permitWithoutCalls;
  private boolean pingSeen;
  private long lastValidPingNanos;
  private int strikes;

  KeepAliveEnforcer(long minTimeNanos, boolean permitWithoutCalls) {
    this.minTimeNanos = minTimeNanos;
    this.permitWithoutCalls = permitWithoutCalls;
  }

  /** Records a ping; returns false once the client has pinged too often. */
  boolean pingAcceptable(boolean hasCalls) {
    long now = System.nanoTime();
    long min = hasCalls || permitWithoutCalls ? minTimeNanos : IMPLICIT_PERMIT_NANOS;
    if (!pingSeen || now - lastValidPingNanos >= min) {
      pingSeen = true;
      lastValidPingNanos = now;
      return true;
    }
    return ++strikes <= MAX_STRIKES;
  }

  /**
   * The server wrote a HEADERS or DATA frame: pings are expected again (keepalive restarts on
   * activity). Called per frame, so each window of a large message counts.
   */
  void onDataSent() {
    pingSeen = false;
    strikes = 0;
  }
}
