package dev.tern.internal.server;

import dev.tern.Attributes;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.ServerTransportFilter;
import dev.tern.Status;
import dev.tern.internal.FieldHandles;
import dev.tern.spi.ServerStream;
import dev.tern.spi.ServerTransport;
import dev.tern.spi.ServerTransportListener;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One accepted connection as the server runtime sees it: the {@link ServerTransportListener} that
 * runs the {@link ServerTransportFilter}s, enforces the handshake timeout, hands new streams to the
 * {@link ServerCallDispatcher}, and tells the {@link ServerImpl} when the connection is gone.
 *
 * <p>A filter that throws from {@code transportReady} fails the connection closed: the error is
 * logged, the transport is shut down with UNAVAILABLE, and any stream that still arrives on it is
 * refused with UNAVAILABLE. Skipping the filter instead would serve calls without whatever it was
 * meant to check or add (often authentication). Every filter's {@code transportTerminated} is still
 * called, with the attributes as far as they got.
 *
 * <p>It is also the filters' {@link ServerTransportFilter.Connection} handle: {@link #refuse}
 * closes the connection and fails whatever call still arrives with the filter's status; {@link
 * #drain} shuts the transport down gracefully and closes it for good after the grace period.
 *
 * <p>Thread-safety: the transport calls the listener methods one at a time; the handshake and drain
 * timers run on the scheduler; a filter may call {@link #refuse} and {@link #drain} from any
 * thread. {@code ready}, {@code refusal}, {@code attributes}, {@code handshakeTimer} and {@code
 * drainTimer} are volatile for that reason; {@code draining} is claimed atomically.
 */
final class ServerConnection implements ServerTransportListener, ServerTransportFilter.Connection {
  private static final Logger logger = Logger.getLogger(ServerConnection.class.getName());

  private static final VarHandle DRAINING =
      FieldHandles.of(MethodHandles.lookup(), "draining", boolean.class);

  private final ServerImpl server;
  private final ServerTransport transport;
  private final List<ServerTransportFilter> filters;
  private final ServerCallDispatcher dispatcher;
  private final ScheduledExecutorService scheduler;

  private volatile boolean ready;

  /** Non-null once a filter failed or refused the connection: the status its calls get. */
  private volatile Status refusal;

  /**
   * Claimed once by CAS through {@link #DRAINING}: a field rather than an object per connection.
   */
  private volatile boolean draining;

  private volatile ScheduledFuture<?> drainTimer;
  private volatile Attributes attributes = Attributes.EMPTY;
  private volatile ScheduledFuture<?> handshakeTimer;
  private volatile long handshakeTimeoutNanos;

  ServerConnection(
      ServerImpl server,
      ServerTransport transport,
      List<ServerTransportFilter> filters,
      ServerCallDispatcher dispatcher,
      ScheduledExecutorService scheduler) {
    this.server = server;
    this.transport = transport;
    this.filters = filters;
    this.dispatcher = dispatcher;
    this.scheduler = scheduler;
  }

  /** Closes the connection if it is not ready within {@code timeoutNanos}. */
  void startHandshakeTimer(long timeoutNanos) {
    this.handshakeTimeoutNanos = timeoutNanos;
    handshakeTimer =
        scheduler.schedule(this::handshakeTimedOut, timeoutNanos, TimeUnit.NANOSECONDS);
    if (ready) {
      // transportReady raced ahead of the assignment above and found no timer to cancel.
      cancelHandshakeTimer();
    }
  }

  @Override
  public Attributes transportReady(Attributes transportAttrs) {
    ready = true;
    cancelHandshakeTimer();
    Attributes current = transportAttrs != null ? transportAttrs : Attributes.EMPTY;
    for (ServerTransportFilter filter : filters) {
      try {
        Attributes next = filter.transportReady(current, this);
        if (next == null) {
          throw new NullPointerException(filter + ".transportReady returned null");
        }
        current = next;
        if (refusal != null) {
          attributes = current;
          return current; // refused by this filter: the ones after it never see the connection
        }
      } catch (RuntimeException e) {
        logger.log(
            Level.SEVERE, "Server transport filter " + filter + " failed; closing connection", e);
        attributes = current;
        refuse(Status.UNAVAILABLE.withDescription("Server transport filter failed"));
        return current;
      }
    }
    attributes = current;
    server.transportReady(transport);
    return current;
  }

  @Override
  public void streamCreated(ServerStream stream, String fullMethodName, Metadata headers) {
    Status refused = refusal;
    if (refused != null) {
      ServerCallDispatcher.reject(stream, refused, new Metadata());
      return;
    }
    dispatcher.dispatch(stream, fullMethodName, headers, scheduler, server.callContextParent());
  }

  @Override
  public MethodDescriptor<?, ?> lookupMethod(String fullMethodName, String authority) {
    return dispatcher.lookupMethod(fullMethodName, authority);
  }

  @Override
  public void transportTerminated() {
    cancelHandshakeTimer();
    ScheduledFuture<?> drainTimeout = drainTimer;
    if (drainTimeout != null) {
      drainTimeout.cancel(false);
    }
    Attributes finalAttributes = attributes;
    try {
      for (ServerTransportFilter filter : filters) {
        try {
          filter.transportTerminated(finalAttributes);
        } catch (RuntimeException e) {
          logger.log(Level.SEVERE, "Server transport filter " + filter + " failed", e);
        }
      }
    } finally {
      server.transportTerminated(transport);
    }
  }

  @Override
  public void refuse(Status reason) {
    if (reason == null || reason.isOk()) {
      throw new IllegalArgumentException("reason must be a non-OK status, not " + reason);
    }
    refusal = reason;
    transport.shutdownNow(reason);
  }

  @Override
  public void drain(long gracePeriod, TimeUnit unit) {
    if (gracePeriod < 0) {
      throw new IllegalArgumentException("gracePeriod must be at least 0, not " + gracePeriod);
    }
    if (refusal != null || !DRAINING.compareAndSet(this, false, true)) {
      return;
    }
    transport.shutdown();
    drainTimer =
        scheduler.schedule(
            () ->
                transport.shutdownNow(
                    Status.UNAVAILABLE.withDescription("Connection drained: grace period over")),
            gracePeriod,
            unit);
  }

  private void handshakeTimedOut() {
    if (!ready) {
      // A peer that connects and says nothing is an everyday sight on a public port: one FINE line.
      if (logger.isLoggable(Level.FINE)) {
        logger.log(
            Level.FINE,
            "{0} not ready within the handshake timeout ({1} ms); closing it",
            new Object[] {transport, TimeUnit.NANOSECONDS.toMillis(handshakeTimeoutNanos)});
      }
      transport.shutdownNow(Status.CANCELLED.withDescription("Handshake timeout exceeded"));
    }
  }

  /**
   * Cancels the handshake timer and lets go of it: a connection lives long after its handshake, and
   * the cancelled task would otherwise stay reachable from it all that time.
   */
  private void cancelHandshakeTimer() {
    ScheduledFuture<?> timer = handshakeTimer;
    if (timer != null) {
      timer.cancel(false);
      handshakeTimer = null;
    }
  }
}
