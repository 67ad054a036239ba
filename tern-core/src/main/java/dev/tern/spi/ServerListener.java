package dev.tern.spi;

import java.net.SocketAddress;

/** The runtime's side of a listening {@link TransportServer}. Thread-safe. */
public interface ServerListener {
  /**
   * A connection was just accepted from {@code remote} to {@code local}, before the transport has
   * read or written anything on it: whether to serve it. False: the transport closes it at once,
   * writing nothing, and reports no transport for it. Transports that can ask this call it on their
   * own thread, before {@link #transportCreated}; by default every connection is served.
   */
  default boolean acceptConnection(SocketAddress local, SocketAddress remote) {
    return true;
  }

  /** A connection was accepted; returns the listener for its events. */
  ServerTransportListener transportCreated(ServerTransport transport);

  /** The transport server stopped listening and released its resources. Called once. */
  void serverShutdown();
}
