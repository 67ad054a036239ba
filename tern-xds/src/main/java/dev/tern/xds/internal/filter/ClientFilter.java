package dev.tern.xds.internal.filter;

import dev.tern.ClientInterceptor;

/**
 * An xDS HTTP filter as a client runs it (A39): it makes the interceptor the calls of a route go
 * through, once per route update. Implementations are stateless and thread-safe.
 */
public interface ClientFilter extends FilterType {
  @Override
  default boolean runsOnClients() {
    return true;
  }

  /**
   * The interceptor of the calls of one route, or null when the filter does nothing there (then the
   * calls pay nothing for it).
   *
   * @param config the top-level config
   * @param override the most specific override for the route, or null
   */
  ClientInterceptor interceptor(FilterConfig config, FilterConfig override, FilterContext context);
}
