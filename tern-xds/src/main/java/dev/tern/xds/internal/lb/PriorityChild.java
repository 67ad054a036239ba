package dev.tern.xds.internal.lb;

import dev.tern.ConnectivityState;
import dev.tern.LoadBalancer;
import dev.tern.SynchronizationContext.ScheduledHandle;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One priority's child and where it stands in failover: it has <em>failed</em> once it reports
 * TRANSIENT_FAILURE or its failover timer fires before it becomes READY or IDLE, and stays failed
 * until it does. The timer starts with the child, and again when a child that was READY or IDLE
 * starts connecting; a failed child lets the next priority be tried. A child dropped from use is
 * <em>deactivated</em>: kept for {@link #DELETION_DELAY_NANOS} in case it comes back, then shut
 * down. Used only in the channel's synchronization context; not thread-safe.
 */
final class PriorityChild {
  /** How long a new child may take to connect before the next priority starts (gRFC A56). */
  static final long FAILOVER_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

  /** How long a deactivated child is kept, so that a flapping config does not reconnect. */
  static final long DELETION_DELAY_NANOS = TimeUnit.MINUTES.toNanos(15);

  private final LoadBalancer.Helper helper;
  private final ChildBalancer balancer;
  private final Runnable onChange;
  private final Consumer<String> onDeleted;
  private ScheduledHandle failoverTimer;
  private ScheduledHandle deletionTimer;
  private boolean failed;

  PriorityChild(
      String name, LoadBalancer.Helper helper, Runnable onChange, Consumer<String> onDeleted) {
    this.helper = helper;
    this.onChange = onChange;
    this.onDeleted = onDeleted;
    this.balancer = new ChildBalancer(name, helper, c -> childUpdated());
    startFailoverTimer();
  }

  ChildBalancer balancer() {
    return balancer;
  }

  /** Whether calls may be sent to this child now, or while it still connects within its time. */
  boolean usable() {
    ConnectivityState state = balancer.state();
    return state == ConnectivityState.READY || state == ConnectivityState.IDLE || !failed;
  }

  void deactivate() {
    if (deletionTimer == null) {
      deletionTimer =
          schedule(
              () -> {
                deletionTimer = null;
                shutdown();
                onDeleted.accept(balancer.name());
              },
              DELETION_DELAY_NANOS);
    }
  }

  void reactivate() {
    if (deletionTimer != null) {
      deletionTimer.cancel();
      deletionTimer = null;
    }
  }

  void shutdown() {
    cancelFailoverTimer();
    reactivate();
    balancer.shutdown();
  }

  private void childUpdated() {
    switch (balancer.state()) {
      case READY, IDLE -> {
        failed = false;
        cancelFailoverTimer();
      }
      case TRANSIENT_FAILURE -> {
        failed = true;
        cancelFailoverTimer();
      }
      case CONNECTING -> {
        // Connecting again after READY or IDLE: bounded by the timeout like a new child (A56).
        if (!failed && failoverTimer == null) {
          startFailoverTimer();
        }
      }
      default -> {}
    }
    onChange.run();
  }

  private void startFailoverTimer() {
    failoverTimer =
        schedule(
            () -> {
              failoverTimer = null;
              if (balancer.state() != ConnectivityState.READY
                  && balancer.state() != ConnectivityState.IDLE) {
                failed = true;
              }
              onChange.run();
            },
            FAILOVER_TIMEOUT_NANOS);
  }

  private void cancelFailoverTimer() {
    if (failoverTimer != null) {
      failoverTimer.cancel();
      failoverTimer = null;
    }
  }

  private ScheduledHandle schedule(Runnable task, long delayNanos) {
    return helper
        .getSynchronizationContext()
        .schedule(task, delayNanos, TimeUnit.NANOSECONDS, helper.getScheduledExecutorService());
  }
}
