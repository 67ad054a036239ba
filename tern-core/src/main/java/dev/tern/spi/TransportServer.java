package dev.tern.spi;

import java.io.IOException;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;

/** The listening half of a server transport (a bound socket, or an in-process name). */
public interface TransportServer {
  /** Starts listening; accepted connections are reported to {@code listener}. */
  void start(ServerListener listener) throws IOException;

  /**
   * Stops accepting connections (existing ones are not affected). {@code serverShutdown} follows.
   */
  void shutdown();

  /** The bound addresses; valid after {@link #start}. */
  List<? extends SocketAddress> getListenSocketAddresses();

  /** A scheduler for server timers (deadlines, handshake timeouts). */
  ScheduledExecutorService getScheduledExecutorService();
}
