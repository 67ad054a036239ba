package dev.tern.netty.internal.client;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ManagedClientTransport;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One connection to a server that advertised HTTP/3, made by racing QUIC against TCP (happy
 * eyeballs, RFC 8305's shape): the QUIC transport starts at once, the TCP one (HTTP/2) after a head
 * start or as soon as QUIC fails, whichever comes first. The first to be ready wins and carries
 * every call; the other is shut down at once. QUIC's failure, or its loss to TCP, is reported to
 * {@link Http3Alternatives#broken} so that later connections do not wait for it; the listener never
 * hears of it. The listener hears a failure only if both fail (the status of the last to fail), and
 * {@code transportTerminated} once both transports have terminated.
 *
 * <p>Thread-safe: the lock guards the race's state; the two transports' events arrive on their own
 * threads. Nothing is called out (listener, transports) while the lock is held.
 */
public final class RacingClientTransport implements ManagedClientTransport {
  private final ManagedClientTransport quic;
  private final ManagedClientTransport tcp;
  private final long headStartNanos;
  private final ScheduledExecutorService timer;
  private final Runnable quicBroken;
  private final Runnable quicWorked;
  private final Object lock = new Object();

  @GuardedBy("lock")
  private Listener listener;

  /** The transport carrying calls, once one is ready. */
  private volatile ManagedClientTransport winner;

  @GuardedBy("lock")
  private boolean tcpStarted;

  @GuardedBy("lock")
  private boolean quicDown;

  @GuardedBy("lock")
  private boolean tcpDown;

  @GuardedBy("lock")
  private boolean shutdownReported;

  @GuardedBy("lock")
  private int running;

  @GuardedBy("lock")
  private Status shutdownRequested;

  @GuardedBy("lock")
  private Future<?> tcpTimer;

  /** Whether QUIC was reported broken or working (once per race). */
  @GuardedBy("lock")
  private boolean quicJudged;

  /**
   * A race between {@code quic} and {@code tcp}, neither started.
   *
   * @param quicBroken run once if QUIC fails or loses
   * @param quicWorked run once if QUIC wins
   */
  public RacingClientTransport(
      ManagedClientTransport quic,
      ManagedClientTransport tcp,
      long headStartNanos,
      ScheduledExecutorService timer,
      Runnable quicBroken,
      Runnable quicWorked) {
    this.quic = Objects.requireNonNull(quic, "quic");
    this.tcp = Objects.requireNonNull(tcp, "tcp");
    this.headStartNanos = headStartNanos;
    this.timer = Objects.requireNonNull(timer, "timer");
    this.quicBroken = Objects.requireNonNull(quicBroken, "quicBroken");
    this.quicWorked = Objects.requireNonNull(quicWorked, "quicWorked");
  }

  @Override
  public Runnable start(Listener listener) {
    Objects.requireNonNull(listener, "listener");
    synchronized (lock) {
      if (this.listener != null) {
        throw new IllegalStateException("already started");
      }
      this.listener = listener;
      running = 1;
      tcpTimer = timer.schedule(this::startTcp, headStartNanos, TimeUnit.NANOSECONDS);
    }
    return quic.start(new Racer(true));
  }

  /** Reports QUIC's outcome to the channel's memory of alternatives, once. */
  private void judgeQuic(boolean worked) {
    synchronized (lock) {
      if (quicJudged) {
        return;
      }
      quicJudged = true;
    }
    (worked ? quicWorked : quicBroken).run();
  }

  /** Starts TCP (after the head start, or when QUIC failed), unless it started or all is over. */
  private void startTcp() {
    synchronized (lock) {
      if (tcpStarted || winner != null || shutdownRequested != null) {
        return;
      }
      tcpStarted = true;
      running++;
    }
    Runnable task = tcp.start(new Racer(false));
    if (task != null) {
      task.run();
    }
  }

  /** One contender's events. */
  private final class Racer implements Listener {
    private final boolean isQuic;

    Racer(boolean isQuic) {
      this.isQuic = isQuic;
    }

    private ManagedClientTransport self() {
      return isQuic ? quic : tcp;
    }

    @Override
    public void transportReady() {
      Listener target;
      boolean stopTcp;
      synchronized (lock) {
        if (winner != null || shutdownRequested != null) {
          target = null;
          stopTcp = false;
        } else {
          winner = self();
          target = listener;
          stopTcp = isQuic && tcpStarted;
          if (tcpTimer != null) {
            tcpTimer.cancel(false);
          }
        }
      }
      if (target == null) {
        self()
            .shutdownNow(Status.UNAVAILABLE.withDescription("lost the race to another transport"));
        return;
      }
      Status lost = Status.UNAVAILABLE.withDescription("the other transport was ready first");
      if (isQuic) {
        judgeQuic(true);
        if (stopTcp) {
          tcp.shutdownNow(lost);
        }
      } else {
        judgeQuic(false); // slower than TCP: not worth racing again for a while
        quic.shutdownNow(lost);
      }
      target.transportReady();
    }

    @Override
    public void transportShutdown(Status status) {
      Listener target = null;
      boolean tcpNow = false;
      boolean broken = false;
      synchronized (lock) {
        if (isQuic) {
          quicDown = true;
        } else {
          tcpDown = true;
        }
        if (winner == self()) {
          target = listener;
        } else if (winner == null) {
          broken = isQuic && shutdownRequested == null;
          tcpNow = isQuic && !tcpStarted && shutdownRequested == null;
          boolean tcpOver = tcpDown || (!tcpStarted && !tcpNow);
          if (quicDown && tcpOver) {
            target = listener; // both failed, or shut down before either was ready
          }
        }
        if (target != null) {
          if (shutdownReported) {
            target = null;
          } else {
            shutdownReported = true;
          }
        }
      }
      if (broken) {
        judgeQuic(false);
      }
      if (tcpNow) {
        startTcp();
      }
      if (target != null) {
        target.transportShutdown(status);
      }
    }

    @Override
    public void transportTerminated() {
      Listener target = null;
      Status unreported = null;
      synchronized (lock) {
        running--;
        if (running == 0) {
          target = listener;
          if (!shutdownReported) {
            shutdownReported = true;
            unreported = Status.UNAVAILABLE.withDescription("transport terminated");
          }
        }
      }
      if (target != null) {
        if (unreported != null) {
          target.transportShutdown(unreported);
        }
        target.transportTerminated();
      }
    }

    @Override
    public void transportInUse(boolean inUse) {
      Listener target;
      synchronized (lock) {
        target = winner == self() ? listener : null;
      }
      if (target != null) {
        target.transportInUse(inUse);
      }
    }
  }

  /** The winner, or before there is one the QUIC transport (whose streams fail when started). */
  private ManagedClientTransport current() {
    ManagedClientTransport w = winner;
    return w != null ? w : quic;
  }

  @Override
  public ClientStream newStream(
      MethodDescriptor<?, ?> method, Metadata headers, CallOptions callOptions) {
    return current().newStream(method, headers, callOptions);
  }

  @Override
  public void ping(PingCallback callback, Executor executor) {
    current().ping(callback, executor);
  }

  @Override
  public Attributes getAttributes() {
    return current().getAttributes();
  }

  @Override
  public void shutdown(Status reason) {
    stop(reason, false);
  }

  @Override
  public void shutdownNow(Status reason) {
    stop(reason, true);
  }

  private void stop(Status reason, boolean now) {
    Objects.requireNonNull(reason, "reason");
    ManagedClientTransport w;
    boolean stopTcp;
    synchronized (lock) {
      w = winner;
      if (shutdownRequested == null) {
        shutdownRequested = reason;
      }
      if (tcpTimer != null) {
        tcpTimer.cancel(false);
      }
      stopTcp = tcpStarted;
    }
    if (w != null) {
      if (now) {
        w.shutdownNow(reason);
      } else {
        w.shutdown(reason);
      }
      return;
    }
    // Nothing is ready, so there is no call to finish: stop both.
    quic.shutdownNow(reason);
    if (stopTcp) {
      tcp.shutdownNow(reason);
    }
  }

  @Override
  public String toString() {
    return "RacingClientTransport{quic=" + quic + ", tcp=" + tcp + "}";
  }
}
