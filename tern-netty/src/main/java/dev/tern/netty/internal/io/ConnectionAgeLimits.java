package dev.tern.netty.internal.io;

import dev.tern.Status;
import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The server's limits on a connection's life: after {@code maxIdle} without calls, or once it is
 * {@code maxAge} old (with ±10% jitter, so connections made together do not all end together), the
 * connection is shut down gracefully; calls still open {@code maxAgeGrace} after the age limit are
 * cancelled UNAVAILABLE. A value of {@code Long.MAX_VALUE} disables a limit.
 *
 * <p>Event loop only.
 */
public final class ConnectionAgeLimits {
  private final ChannelHandlerContext ctx;
  private final long maxIdleNanos;
  private final long maxAgeNanos;
  private final long maxAgeGraceNanos;
  private final Runnable gracefulShutdown;
  private final Consumer<Status> shutdownNow;
  private ScheduledFuture<?> idleTimer;
  private ScheduledFuture<?> ageTimer;
  private boolean stopped;

  public ConnectionAgeLimits(
      ChannelHandlerContext ctx,
      long maxIdleNanos,
      long maxAgeNanos,
      long maxAgeGraceNanos,
      Runnable gracefulShutdown,
      Consumer<Status> shutdownNow) {
    this.ctx = ctx;
    this.maxIdleNanos = maxIdleNanos;
    this.maxAgeNanos = maxAgeNanos;
    this.maxAgeGraceNanos = maxAgeGraceNanos;
    this.gracefulShutdown = gracefulShutdown;
    this.shutdownNow = shutdownNow;
  }

  /** The connection is ready: the age clock and the idle clock start. */
  public void start() {
    if (maxAgeNanos != Long.MAX_VALUE) {
      double jitter = 0.9 + 0.2 * ThreadLocalRandom.current().nextDouble();
      long age = (long) (maxAgeNanos * jitter);
      ageTimer = ctx.executor().schedule(this::ageReached, age, TimeUnit.NANOSECONDS);
    }
    onIdle();
  }

  /** The first call opened: not idle any more. */
  public void onActive() {
    if (idleTimer != null) {
      idleTimer.cancel(false);
      idleTimer = null;
    }
  }

  /** The last call ended: the idle clock starts. */
  public void onIdle() {
    if (!stopped && maxIdleNanos != Long.MAX_VALUE && idleTimer == null) {
      idleTimer =
          ctx.executor()
              .schedule(
                  () -> {
                    idleTimer = null;
                    if (!stopped) {
                      gracefulShutdown.run();
                    }
                  },
                  maxIdleNanos,
                  TimeUnit.NANOSECONDS);
    }
  }

  private void ageReached() {
    if (stopped) {
      return;
    }
    gracefulShutdown.run();
    if (maxAgeGraceNanos != Long.MAX_VALUE) {
      ageTimer =
          ctx.executor()
              .schedule(
                  () -> {
                    if (!stopped) {
                      shutdownNow.accept(
                          Status.UNAVAILABLE.withDescription(
                              "Connection reached its maximum age and grace period"));
                    }
                  },
                  maxAgeGraceNanos,
                  TimeUnit.NANOSECONDS);
    }
  }

  public void stop() {
    stopped = true;
    if (idleTimer != null) {
      idleTimer.cancel(false);
    }
    if (ageTimer != null) {
      ageTimer.cancel(false);
    }
  }
}
