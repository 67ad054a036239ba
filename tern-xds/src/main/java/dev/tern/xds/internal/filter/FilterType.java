package dev.tern.xds.internal.filter;

import com.google.protobuf.Any;
import java.util.Set;

/**
 * An xDS HTTP filter (A39): it parses its top-level config and its per-route overrides when the
 * resources arrive, and says where it runs. What it does per call is {@link ClientFilter}'s (on a
 * channel) or {@link ServerFilter}'s (on an xDS server); a filter may be both (the router). A
 * Listener that names a filter where it does not run is NACKed unless the filter is optional.
 * Implementations are stateless and thread-safe.
 */
public interface FilterType {
  /** The type URLs of the config messages this filter takes (top-level and overrides). */
  Set<String> typeUrls();

  /** Whether this is the terminal filter (the router), which must be the last one. */
  default boolean isTerminal() {
    return false;
  }

  /** Whether channels run this filter. */
  default boolean runsOnClients() {
    return false;
  }

  /** Whether xDS servers run this filter. */
  default boolean runsOnServers() {
    return false;
  }

  /** Parses the filter's config of a Listener's {@code http_filters} entry. */
  FilterConfig parse(Any config) throws FilterConfigException;

  /** Parses a {@code typed_per_filter_config} override of a virtual host, route or cluster. */
  FilterConfig parseOverride(Any config) throws FilterConfigException;
}
