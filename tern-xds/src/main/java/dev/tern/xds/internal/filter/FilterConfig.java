package dev.tern.xds.internal.filter;

/**
 * A filter's parsed config, top-level (a Listener's {@code http_filters} entry) or an override
 * ({@code typed_per_filter_config}). Implementations are immutable.
 */
public interface FilterConfig {
  /** The type URL of the config message it was parsed from. */
  String typeUrl();
}
