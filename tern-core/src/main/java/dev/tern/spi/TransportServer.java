package dev.tern.spi;

import dev.tern.channelz.Instrumented;
import dev.tern.channelz.SocketStats;
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

  /**
   * The listening sockets as channelz describes them (empty if this transport does not report
   * them); registered with {@link dev.tern.channelz.Channelz#global()} by the transport while they
   * are open.
   */
  default List<Instrumented<SocketStats>> channelzListenSockets() {
    return List.of();
  }
}
