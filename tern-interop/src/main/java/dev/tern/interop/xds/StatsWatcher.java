package dev.tern.interop.xds;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.interop.testing.LoadBalancerStatsResponse;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * One {@code GetClientStats} request's view of the client's RPCs: it claims the next {@code
 * num_rpcs} RPCs the client starts ({@link #claim}), counts how each completes ({@link #record}),
 * and yields its response once all have completed or when {@link #finish} cuts it short.
 *
 * <p>Thread-safety: thread-safe. The future is completed outside the lock, so its callbacks may
 * take other locks.
 */
final class StatsWatcher {
  private final CompletableFuture<LoadBalancerStatsResponse> result = new CompletableFuture<>();

  @GuardedBy("this")
  private int toClaim;

  @GuardedBy("this")
  private int toComplete;

  @GuardedBy("this")
  private int failures;

  @GuardedBy("this")
  private final Map<String, Integer> byPeer = new TreeMap<>();

  @GuardedBy("this")
  private final Map<String, Map<String, Integer>> byMethod = new HashMap<>();

  StatsWatcher(int numRpcs) {
    this.toClaim = numRpcs;
    this.toComplete = numRpcs;
    if (numRpcs == 0) {
      result.complete(LoadBalancerStatsResponse.getDefaultInstance());
    }
  }

  /** The response: complete once every claimed RPC completed, or after {@link #finish}. */
  CompletableFuture<LoadBalancerStatsResponse> result() {
    return result;
  }

  /** Takes the RPC being started if this watcher still wants one; returns whether it did. */
  synchronized boolean claim() {
    if (toClaim == 0) {
      return false;
    }
    toClaim--;
    return true;
  }

  /**
   * Counts a claimed RPC of {@code method} that completed: by its {@code peer} when it succeeded
   * and named one, else as a failure ({@code peer} null).
   */
  void record(String method, String peer) {
    LoadBalancerStatsResponse done = null;
    synchronized (this) {
      if (peer == null) {
        failures++;
      } else {
        byPeer.merge(peer, 1, Integer::sum);
        byMethod.computeIfAbsent(method, m -> new TreeMap<>()).merge(peer, 1, Integer::sum);
      }
      if (--toComplete == 0) {
        done = snapshot();
      }
    }
    if (done != null) {
      result.complete(done);
    }
  }

  /** Completes {@link #result()} with what was counted so far, if it is not complete yet. */
  void finish() {
    LoadBalancerStatsResponse partial;
    synchronized (this) {
      partial = snapshot();
    }
    result.complete(partial);
  }

  @GuardedBy("this")
  private LoadBalancerStatsResponse snapshot() {
    LoadBalancerStatsResponse.Builder response =
        LoadBalancerStatsResponse.newBuilder().putAllRpcsByPeer(byPeer).setNumFailures(failures);
    byMethod.forEach(
        (method, peers) ->
            response.putRpcsByMethod(
                method,
                LoadBalancerStatsResponse.RpcsByPeer.newBuilder().putAllRpcsByPeer(peers).build()));
    return response.build();
  }
}
