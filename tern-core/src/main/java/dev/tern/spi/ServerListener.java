package dev.tern.spi;

/** The runtime's side of a listening {@link TransportServer}. Thread-safe. */
public interface ServerListener {
  /** A connection was accepted; returns the listener for its events. */
  ServerTransportListener transportCreated(ServerTransport transport);

  /** The transport server stopped listening and released its resources. Called once. */
  void serverShutdown();
}
