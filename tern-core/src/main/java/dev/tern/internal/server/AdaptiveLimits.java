package dev.tern.internal.server;

import dev.tern.Deadline;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The server's adaptive limits on unary calls in progress ({@link AdaptiveConcurrencyLimit}): one
 * for the whole server, or, with {@code adaptiveConcurrencyLimitPerMethod}, one per method, so a
 * cheap method's limit and recent latency are learned from its own calls, not from a mix with an
 * expensive one. A server's methods are few; methods beyond {@link #MAX_METHODS} (a fallback
 * registry that answers any name) share one limit, so names sent by clients cannot grow the map
 * without bound.
 *
 * <p>Thread-safe: the map is concurrent, and each limit is thread-safe.
 */
final class AdaptiveLimits {
  /** The most methods with a limit of their own; the rest share {@link #shared}. */
  static final int MAX_METHODS = 1_000;

  private final Deadline.Ticker ticker;

  /** The server's one limit, or the one methods beyond {@link #MAX_METHODS} share. */
  private final AdaptiveConcurrencyLimit shared;

  /** One limit per full method name; null: one limit for the server. */
  private final ConcurrentHashMap<String, AdaptiveConcurrencyLimit> perMethod;

  AdaptiveLimits(Deadline.Ticker ticker, boolean perMethod) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.shared = new AdaptiveConcurrencyLimit(ticker);
    this.perMethod = perMethod ? new ConcurrentHashMap<>() : null;
  }

  /** Whether each method has a limit of its own. */
  boolean perMethod() {
    return perMethod != null;
  }

  /** The limit a unary call of {@code fullMethodName} meets. */
  AdaptiveConcurrencyLimit forMethod(String fullMethodName) {
    if (perMethod == null) {
      return shared;
    }
    AdaptiveConcurrencyLimit limit = perMethod.get(fullMethodName);
    if (limit != null) {
      return limit;
    }
    if (perMethod.size() >= MAX_METHODS) {
      return shared;
    }
    return perMethod.computeIfAbsent(fullMethodName, name -> new AdaptiveConcurrencyLimit(ticker));
  }
}
