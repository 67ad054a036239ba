package dev.tern.xds.internal.server;

import dev.tern.xds.XdsServerListener;
import dev.tern.xds.XdsServerListener.CidrRange;
import dev.tern.xds.XdsServerListener.FilterChain;
import dev.tern.xds.XdsServerListener.SourceType;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * Chooses the filter chain of a connection (A36): of the chains that can match, those with the most
 * specific destination prefix; of these, those with the most specific source type; then the most
 * specific source prefix; then an exact source port over none. What is left (one chain, as the
 * validator rejects overlaps) wins; if nothing is, the default chain. Stateless.
 */
final class FilterChainSelector {
  private static final int NO_MATCH = -1;

  private FilterChainSelector() {}

  /** The chain for a connection from {@code source} to {@code destination}, or null if none. */
  static FilterChain select(
      XdsServerListener listener, InetAddress destination, InetAddress source, int sourcePort) {
    List<FilterChain> left = new ArrayList<>();
    for (FilterChain chain : listener.filterChains()) {
      if (!chain.match().neverMatches()) {
        left.add(chain);
      }
    }
    boolean local = source.isLoopbackAddress() || source.equals(destination);
    left = best(left, c -> prefixScore(c.match().prefixRanges(), destination));
    left = best(left, c -> sourceTypeScore(c.match().sourceType(), local));
    left = best(left, c -> prefixScore(c.match().sourcePrefixRanges(), source));
    left =
        best(
            left,
            c -> {
              List<Integer> ports = c.match().sourcePorts();
              return ports.isEmpty() ? 0 : ports.contains(sourcePort) ? 1 : NO_MATCH;
            });
    return left.isEmpty() ? listener.defaultFilterChain() : left.get(0);
  }

  /** The chains of the highest score that is not {@link #NO_MATCH}. */
  private static List<FilterChain> best(
      List<FilterChain> chains, ToIntFunction<FilterChain> score) {
    List<FilterChain> best = new ArrayList<>();
    int bestScore = NO_MATCH;
    for (FilterChain chain : chains) {
      int s = score.applyAsInt(chain);
      if (s == NO_MATCH || s < bestScore) {
        continue;
      }
      if (s > bestScore) {
        best.clear();
        bestScore = s;
      }
      best.add(chain);
    }
    return best;
  }

  /** No ranges: 0 (matches anything); else 1 + the longest matching prefix, or no match. */
  private static int prefixScore(List<CidrRange> ranges, InetAddress ip) {
    if (ranges.isEmpty()) {
      return 0;
    }
    int best = NO_MATCH;
    for (CidrRange range : ranges) {
      if (range.contains(ip)) {
        best = Math.max(best, 1 + range.prefixLength());
      }
    }
    return best;
  }

  private static int sourceTypeScore(SourceType type, boolean local) {
    return switch (type) {
      case ANY -> 0;
      case SAME_IP_OR_LOOPBACK -> local ? 1 : NO_MATCH;
      case EXTERNAL -> local ? NO_MATCH : 1;
    };
  }
}
