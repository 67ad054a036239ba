package dev.tern.xds.internal.filter;

import com.google.protobuf.Any;
import dev.tern.ClientInterceptor;
import java.util.Set;

/**
 * An xDS HTTP filter as a client runs it (A39): it parses its top-level config and its per-route
 * overrides when the resources arrive, and makes the interceptor the calls of a route go through,
 * once per route update. Implementations are stateless and thread-safe.
 */
public interface ClientFilter {
  /** The type URLs of the config messages this filter takes. */
  Set<String> typeUrls();

  /** Whether this is the terminal filter (the router), which must be the last one. */
  default boolean isTerminal() {
    return false;
  }

  /** Parses the filter's config of a Listener's {@code http_filters} entry. */
  FilterConfig parse(Any config) throws FilterConfigException;

  /** Parses a {@code typed_per_filter_config} override of a virtual host, route or cluster. */
  FilterConfig parseOverride(Any config) throws FilterConfigException;

  /**
   * The interceptor of the calls of one route, or null when the filter does nothing there (then the
   * calls pay nothing for it).
   *
   * @param config the top-level config
   * @param override the most specific override for the route, or null
   */
  ClientInterceptor interceptor(FilterConfig config, FilterConfig override, FilterContext context);
}
