package dev.tern.spi;

import dev.tern.Attributes;
import java.net.SocketAddress;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Creates client transports for a channel and holds what they share (event loops, a timer).
 * Thread-safe. Owned by one channel, which closes it on termination.
 */
public interface ClientTransportFactory extends AutoCloseable {
  /**
   * A new, not yet started transport to {@code address}.
   *
   * @param authority the {@code :authority} for requests
   * @param userAgent the full {@code user-agent} value
   */
  ManagedClientTransport newClientTransport(
      SocketAddress address, String authority, String userAgent);

  /**
   * As {@link #newClientTransport(SocketAddress, String, String)}, knowing the attributes of the
   * address's {@link dev.tern.EquivalentAddressGroup} (for credentials chosen per address, see
   * {@link dev.tern.PerAddressChannelCredentials}). The channel calls this one; by default it
   * ignores the attributes.
   */
  default ManagedClientTransport newClientTransport(
      SocketAddress address, String authority, String userAgent, Attributes addressAttributes) {
    return newClientTransport(address, authority, userAgent);
  }

  /**
   * Whether its streams hand a {@code request} made off the transport's thread over to that thread
   * (see {@link Stream#requestsCrossThreads()}); the channel then keeps a few response messages of
   * streaming calls read ahead. Default false.
   */
  default boolean requestsCrossThreads() {
    return false;
  }

  /** A scheduler for deadlines and timers; owned by the factory. */
  ScheduledExecutorService getScheduledExecutorService();

  /** Releases what the factory owns. Transports already created keep working until shut down. */
  @Override
  void close();
}
