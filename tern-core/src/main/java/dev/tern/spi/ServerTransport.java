package dev.tern.spi;

import dev.tern.Status;
import dev.tern.channelz.Instrumented;
import dev.tern.channelz.SocketStats;
import java.util.concurrent.ScheduledExecutorService;

/** One accepted server connection. Thread-safe. */
public interface ServerTransport {
  /**
   * Refuses new streams; streams in flight finish (HTTP/2: the double GOAWAY). The listener's
   * {@code transportTerminated} follows when the last stream is gone.
   */
  void shutdown();

  /** Cancels every stream with {@code reason} and closes the connection. */
  void shutdownNow(Status reason);

  /** A scheduler for server-side deadlines. */
  ScheduledExecutorService getScheduledExecutorService();

  /**
   * The connection as channelz describes it, or null if this transport does not report one. The
   * transport registers it with {@link dev.tern.channelz.Channelz#global()} while it lives; its
   * server lists it.
   */
  default Instrumented<SocketStats> channelzSocket() {
    return null;
  }
}
