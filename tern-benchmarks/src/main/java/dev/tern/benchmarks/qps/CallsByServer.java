package dev.tern.benchmarks.qps;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Answered calls per server, counted on the client side by a client that balances over several
 * servers ({@code QpsClient --target=...}, {@link GrpcJavaBalancedClient}), so a run shows that
 * every server took its share. Warm-up calls count too. The server is the remote address of the
 * connection that carried the call; a call whose transport did not say counts as {@code unknown}.
 *
 * <p>Thread-safe: {@link #record} may be called from any number of threads at once.
 */
final class CallsByServer {
  private final ConcurrentHashMap<SocketAddress, LongAdder> counts = new ConcurrentHashMap<>();
  private final LongAdder unknown = new LongAdder();

  /** Counts one call answered by {@code server}; null if the transport did not say. */
  void record(SocketAddress server) {
    if (server == null) {
      unknown.increment();
      return;
    }
    LongAdder count = counts.get(server);
    if (count == null) {
      count = counts.computeIfAbsent(server, s -> new LongAdder());
    }
    count.increment();
  }

  /** The counts so far by server name ({@code host:port}), in name order. */
  Map<String, Long> snapshot() {
    Map<String, Long> byName = new TreeMap<>();
    counts.forEach((server, count) -> byName.merge(name(server), count.sum(), Long::sum));
    if (unknown.sum() > 0) {
      byName.put("unknown", unknown.sum());
    }
    return byName;
  }

  /** Prints one line per server: {@code Calls answered by HOST:PORT: N}. */
  void print(PrintStream out) {
    snapshot().forEach((server, count) -> out.printf("Calls answered by %s: %d%n", server, count));
  }

  private static String name(SocketAddress server) {
    if (server instanceof InetSocketAddress inet) {
      return inet.getHostString() + ":" + inet.getPort();
    }
    return server.toString();
  }
}
