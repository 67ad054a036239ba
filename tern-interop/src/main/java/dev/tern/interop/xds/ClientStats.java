package dev.tern.interop.xds;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.Status;
import dev.tern.interop.testing.ClientConfigureRequest.RpcType;
import dev.tern.interop.testing.LoadBalancerAccumulatedStatsResponse;
import dev.tern.interop.testing.LoadBalancerAccumulatedStatsResponse.MethodStats;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The xDS test client's statistics: every RPC started and how it ended, by RPC type ({@code
 * GetClientAccumulatedStats}), and the watchers of {@code GetClientStats} requests, which claim the
 * RPCs started after them.
 *
 * <p>Thread-safety: thread-safe; the lock is never held while a watcher completes.
 */
final class ClientStats {
  @GuardedBy("this")
  private final List<StatsWatcher> watchers = new ArrayList<>();

  @GuardedBy("this")
  private final Map<RpcType, Integer> started = new EnumMap<>(RpcType.class);

  @GuardedBy("this")
  private final Map<RpcType, Map<Integer, Integer>> results = new EnumMap<>(RpcType.class);

  /** A watcher of the next {@code numRpcs} RPCs started. */
  synchronized StatsWatcher watch(int numRpcs) {
    StatsWatcher watcher = new StatsWatcher(numRpcs);
    if (numRpcs > 0) {
      watchers.add(watcher);
    }
    return watcher;
  }

  /** Stops giving RPCs to {@code watcher}. */
  synchronized void unwatch(StatsWatcher watcher) {
    watchers.remove(watcher);
  }

  /** Counts an RPC of {@code type} starting; returns the watchers that claimed it. */
  synchronized List<StatsWatcher> started(RpcType type) {
    started.merge(type, 1, Integer::sum);
    List<StatsWatcher> claimed = new ArrayList<>(1);
    for (StatsWatcher watcher : watchers) {
      if (watcher.claim()) {
        claimed.add(watcher);
      }
    }
    return claimed;
  }

  /** Counts an RPC of {@code type} ending with {@code code}. */
  synchronized void completed(RpcType type, Status.Code code) {
    results.computeIfAbsent(type, t -> new TreeMap<>()).merge(code.value(), 1, Integer::sum);
  }

  /** Everything started and completed so far, by RPC type's name ({@code UNARY_CALL}). */
  synchronized LoadBalancerAccumulatedStatsResponse accumulated() {
    LoadBalancerAccumulatedStatsResponse.Builder response =
        LoadBalancerAccumulatedStatsResponse.newBuilder();
    started.forEach(
        (type, count) ->
            response.putStatsPerMethod(
                type.name(),
                MethodStats.newBuilder()
                    .setRpcsStarted(count)
                    .putAllResult(results.getOrDefault(type, Map.of()))
                    .build()));
    return response.build();
  }
}
