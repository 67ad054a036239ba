package dev.tern.spi;

import dev.tern.Status;
import dev.tern.channelz.Instrumented;
import dev.tern.channelz.SocketStats;

/** A client transport with a lifecycle, owned by a channel. Thread-safe. */
public interface ManagedClientTransport extends ClientTransport {
  /**
   * Starts connecting. Returns a task the caller runs after releasing its locks (or null): it lets
   * a transport with no thread of its own (in-process) report {@code transportReady} without
   * re-entering the caller under a lock.
   */
  Runnable start(Listener listener);

  /**
   * Refuses new streams (they fail UNAVAILABLE with {@code reason}); streams in flight continue.
   * The listener's {@code transportShutdown} and, once the last stream is gone, {@code
   * transportTerminated} follow. Idempotent.
   */
  void shutdown(Status reason);

  /** Shuts down and cancels every stream in flight with {@code reason}. */
  void shutdownNow(Status reason);

  /** Events of the transport's life, called without the transport's locks held. */
  interface Listener {
    /** The connection is established; streams go out at once. */
    void transportReady();

    /** No new streams will be accepted (shutdown, GOAWAY, connection failure). Once. */
    void transportShutdown(Status status);

    /** Every stream is gone and resources are released. Once, last. */
    void transportTerminated();

    /** The transport went from no streams to some ({@code true}) or back ({@code false}). */
    void transportInUse(boolean inUse);
  }

  /**
   * The connection as channelz describes it, or null if this transport does not report one (the
   * in-process transport). The transport registers it with {@link
   * dev.tern.channelz.Channelz#global()} while it lives; its subchannel lists it and sums its
   * streams as the subchannel's calls.
   */
  default Instrumented<SocketStats> channelzSocket() {
    return null;
  }
}
