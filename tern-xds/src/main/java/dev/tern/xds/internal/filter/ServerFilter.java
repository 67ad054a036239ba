package dev.tern.xds.internal.filter;

import dev.tern.ServerInterceptor;

/**
 * An xDS HTTP filter as an xDS server runs it (A39, A36): it makes the interceptor the calls of a
 * route go through, once per Listener or RouteConfiguration update. Implementations are stateless
 * and thread-safe.
 */
public interface ServerFilter extends FilterType {
  @Override
  default boolean runsOnServers() {
    return true;
  }

  /**
   * The interceptor of the calls of one route, or null when the filter does nothing there (then the
   * calls pay nothing for it).
   *
   * @param config the top-level config
   * @param override the most specific override for the route, or null
   */
  ServerInterceptor serverInterceptor(FilterConfig config, FilterConfig override);
}
