package dev.tern.benchmarks.qps;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The local addresses {@link ConnectionsClient} spreads its connections over, handed out in turn.
 * Each loopback address has its own ~28,000 ephemeral ports (Linux's default range), and a socket
 * bound before it connects takes a port that no other socket on its address holds, whatever the
 * peer: so ten thousand connections, plus the TIME_WAIT remains of earlier runs, need several
 * source addresses. Linux answers on all of 127.0.0.0/8 without configuration.
 *
 * <p>Thread-safe: the list is immutable and the turn is atomic.
 */
final class SourceAddresses {
  private final List<InetSocketAddress> addresses;
  private final AtomicInteger turn = new AtomicInteger();

  private SourceAddresses(List<InetSocketAddress> addresses) {
    this.addresses = List.copyOf(addresses);
  }

  /**
   * {@code count} loopback addresses from 127.0.0.2 on (127.0.0.1 is left to the servers), port 0
   * (any); none for 0, which leaves the choice to the kernel.
   *
   * @throws IllegalArgumentException if {@code count} is not 0..250
   */
  static SourceAddresses loopback(int count) {
    if (count < 0 || count > 250) {
      throw new IllegalArgumentException("--source_addresses must be 0..250, got " + count);
    }
    List<InetSocketAddress> addresses = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      addresses.add(new InetSocketAddress("127.0.0." + (2 + i), 0));
    }
    return new SourceAddresses(addresses);
  }

  /** Whether there are none (the kernel chooses). */
  boolean isEmpty() {
    return addresses.isEmpty();
  }

  /** The next address in turn; null if there are none. */
  InetSocketAddress next() {
    if (addresses.isEmpty()) {
      return null;
    }
    return addresses.get(Math.floorMod(turn.getAndIncrement(), addresses.size()));
  }

  /** {@code 127.0.0.2..127.0.0.11}, or {@code chosen by the kernel}. */
  @Override
  public String toString() {
    if (addresses.isEmpty()) {
      return "chosen by the kernel";
    }
    String first = addresses.get(0).getHostString();
    String last = addresses.get(addresses.size() - 1).getHostString();
    return first.equals(last) ? first : first + ".." + last;
  }
}
