package dev.tern.internal.server;

import dev.tern.Deadline;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The server's adaptive limits on calls in progress ({@link AdaptiveConcurrencyLimit}). Unary calls
 * meet one limit for the whole server, or, with {@code adaptiveConcurrencyLimitPerMethod}, one per
 * method, so a cheap method's limit and recent latency are learned from its own calls, not from a
 * mix with an expensive one. Server-streaming calls that carry a deadline always meet a limit of
 * their method's own: a stream's length (ten answers or ten thousand) is its method's, so one limit
 * learned from a mix of methods, or of streams and unary calls, would learn nothing. A server's
 * methods are few; methods beyond {@link #MAX_METHODS} (a fallback registry that answers any name)
 * share one limit, so names sent by clients cannot grow the map without bound.
 *
 * <p>Thread-safe: the map is concurrent, and each limit is thread-safe.
 */
final class AdaptiveLimits {
  /** The most methods with a limit of their own; the rest share {@link #sharedBeyond}. */
  static final int MAX_METHODS = 1_000;

  private final Deadline.Ticker ticker;

  /** The server's one limit on unary calls; unused with {@link #unaryPerMethod}. */
  private final AdaptiveConcurrencyLimit server;

  /** The one limit the methods beyond {@link #MAX_METHODS} share. */
  private final AdaptiveConcurrencyLimit sharedBeyond;

  /** Whether each unary method has a limit of its own. */
  private final boolean unaryPerMethod;

  /** One limit per full method name (a method has one type, so unary and streaming never mix). */
  private final ConcurrentHashMap<String, AdaptiveConcurrencyLimit> perMethod =
      new ConcurrentHashMap<>();

  AdaptiveLimits(Deadline.Ticker ticker, boolean unaryPerMethod) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.server = new AdaptiveConcurrencyLimit(ticker);
    this.sharedBeyond = new AdaptiveConcurrencyLimit(ticker);
    this.unaryPerMethod = unaryPerMethod;
  }

  /** Whether each unary method has a limit of its own. */
  boolean perMethod() {
    return unaryPerMethod;
  }

  /** The limit a unary call of {@code fullMethodName} meets. */
  AdaptiveConcurrencyLimit forMethod(String fullMethodName) {
    return unaryPerMethod ? ownLimit(fullMethodName) : server;
  }

  /** The limit a server-streaming call of {@code fullMethodName} with a deadline meets. */
  AdaptiveConcurrencyLimit forServerStream(String fullMethodName) {
    return ownLimit(fullMethodName);
  }

  private AdaptiveConcurrencyLimit ownLimit(String fullMethodName) {
    AdaptiveConcurrencyLimit limit = perMethod.get(fullMethodName);
    if (limit != null) {
      return limit;
    }
    if (perMethod.size() >= MAX_METHODS) {
      return sharedBeyond;
    }
    return perMethod.computeIfAbsent(fullMethodName, name -> new AdaptiveConcurrencyLimit(ticker));
  }
}
