package dev.tern.http3;

import dev.tern.ServerTransportFilter;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A server transport filter that counts the connections the server accepts (for HTTP/3, each one
 * whose first validated Initial arrived) and accepts them all. Thread-safe.
 */
public final class ConnectionCounter extends ServerTransportFilter {
  private final AtomicInteger accepted = new AtomicInteger();

  @Override
  public boolean acceptConnection(SocketAddress local, SocketAddress remote) {
    accepted.incrementAndGet();
    return true;
  }

  /** The connections accepted so far. */
  public int accepted() {
    return accepted.get();
  }
}
