package dev.tern;

import java.util.Objects;

/**
 * Chooses the configuration of each call a channel makes, as the call starts: its method config
 * (timeout, wait-for-ready, message limits, retry or hedging policy), an interceptor of its own
 * (for instance one that injects faults), or an error that fails it. A name resolver supplies one
 * by putting it in its result's attributes under {@link #KEY}; without one, the channel chooses
 * from its service config (the {@code methodConfig} entry that names the call's method or service).
 *
 * <p>The channel asks the selector of its latest resolution for every call that starts from then
 * on; calls already started keep the configuration they got. Calls that start before the first
 * resolution wait for it. The service config's other parts (load-balancing policy, retry
 * throttling, health checking) apply whether or not a selector is supplied.
 *
 * <p>Implementations must be thread-safe: {@link #select} is called on the application threads that
 * start calls, concurrently, and must neither block nor call back into the channel.
 */
public abstract class ConfigSelector {
  /**
   * Where a name resolver puts its selector: {@code ResolutionResult.getAttributes()}. A result
   * without it makes the channel choose from its service config again.
   */
  public static final Attributes.Key<ConfigSelector> KEY =
      Attributes.Key.create("dev.tern.ConfigSelector");

  /** For subclasses. */
  protected ConfigSelector() {}

  /**
   * The configuration of one call that is starting.
   *
   * @param call the call's method, options and request headers (read-only; valid during this call
   *     only)
   * @return never null; a selector that throws or returns null fails the call with INTERNAL
   */
  public abstract Result select(LoadBalancer.PickSubchannelArgs call);

  /**
   * What {@link #select} chose for a call. Immutable; thread-safe. Build a result once (per route,
   * say) and return it for every call it applies to: the method config is parsed when the result is
   * built, not per call.
   */
  public static final class Result {
    private static final Result NO_CONFIG = new Result(null, null, null);

    private final Status error;
    private final Object methodConfig;
    private final ClientInterceptor interceptor;

    private Result(Status error, Object methodConfig, ClientInterceptor interceptor) {
      this.error = error;
      this.methodConfig = methodConfig;
      this.interceptor = interceptor;
    }

    /** The call fails with {@code error} (not OK) before it is sent. */
    public static Result forError(Status error) {
      Objects.requireNonNull(error, "error");
      if (error.isOk()) {
        throw new IllegalArgumentException("error must not be OK");
      }
      return new Result(error, null, null);
    }

    /** The call runs with the channel's defaults: no method config, no interceptor. */
    public static Result noConfig() {
      return NO_CONFIG;
    }

    /**
     * The call runs with {@code methodConfig} and, if not null, through {@code interceptor}.
     *
     * @param methodConfig a method config parsed by the channel's {@link
     *     NameResolver.ServiceConfigParser#parseMethodConfig} (the resolver has the parser in its
     *     {@link NameResolver.Args}), or null for none; a call given anything else fails with
     *     INTERNAL
     * @param interceptor runs between the channel's own interceptors and the call, or null
     */
    public static Result forConfig(Object methodConfig, ClientInterceptor interceptor) {
      if (methodConfig == null && interceptor == null) {
        return NO_CONFIG;
      }
      return new Result(null, methodConfig, interceptor);
    }

    /** The error that fails the call, or null. */
    public Status getError() {
      return error;
    }

    /** The parsed method config, or null for none. */
    public Object getMethodConfig() {
      return methodConfig;
    }

    /** The call's own interceptor, or null. */
    public ClientInterceptor getInterceptor() {
      return interceptor;
    }

    @Override
    public String toString() {
      return error != null
          ? "Result{error=" + error + "}"
          : "Result{methodConfig=" + methodConfig + ", interceptor=" + interceptor + "}";
    }
  }
}
