package dev.tern.xds;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A validated Listener. Of the client side (A27): its API listener's HttpConnectionManager, which
 * names its routes by RDS or holds them inline. Of the server side (A36, a Listener without an API
 * listener): {@code server} holds its filter chains, and the other components are empty. Immutable.
 *
 * @param name the resource name
 * @param rdsName the RouteConfiguration to fetch by RDS, or null when {@code inlineRoutes} is set
 * @param inlineRoutes the {@code route_config} held inline, or null when {@code rdsName} is set
 * @param httpFilters the HTTP filters' names in order, the router last
 * @param maxStreamDuration {@code common_http_protocol_options.max_stream_duration}, or null
 * @param server the server listener, or null for a client listener
 */
public record XdsListener(
    String name,
    String rdsName,
    XdsRouteConfig inlineRoutes,
    List<HttpFilter> httpFilters,
    Duration maxStreamDuration,
    XdsServerListener server) {
  public XdsListener {
    Objects.requireNonNull(name, "name");
    if (server == null && (rdsName == null) == (inlineRoutes == null)) {
      throw new IllegalArgumentException("exactly one of rdsName and inlineRoutes");
    }
    if (server != null && (rdsName != null || inlineRoutes != null || !httpFilters.isEmpty())) {
      throw new IllegalArgumentException("a server listener has its routes in its filter chains");
    }
    httpFilters = List.copyOf(httpFilters);
  }

  /** A client listener (or a filter chain's HttpConnectionManager). */
  public XdsListener(
      String name,
      String rdsName,
      XdsRouteConfig inlineRoutes,
      List<HttpFilter> httpFilters,
      Duration maxStreamDuration) {
    this(name, rdsName, inlineRoutes, httpFilters, maxStreamDuration, null);
  }

  /** A server listener. */
  public static XdsListener server(XdsServerListener server) {
    return new XdsListener(server.name(), null, null, List.of(), null, server);
  }

  /**
   * An HTTP filter of the connection manager.
   *
   * @param name its instance name
   * @param typeUrl the type of its {@code typed_config}
   * @param optional its {@code is_optional}
   * @param config its parsed config, opaque outside tern-xds (the resolver builds the filter's
   *     per-call interceptors from it), or null
   */
  public record HttpFilter(String name, String typeUrl, boolean optional, Object config) {
    public HttpFilter {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(typeUrl, "typeUrl");
    }

    /** A filter without a parsed config. */
    public HttpFilter(String name, String typeUrl, boolean optional) {
      this(name, typeUrl, optional, null);
    }
  }
}
