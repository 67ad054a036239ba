package dev.tern.xds.internal.server;

import dev.tern.ServerTransportFilter;
import dev.tern.TlsServerCredentials;
import dev.tern.xds.XdsRouteConfig;
import dev.tern.xds.XdsServerListener.FilterChain;
import java.util.HashSet;
import java.util.Set;

/**
 * One filter chain as the server serves it: the chain, its routes now (an RDS update replaces them
 * for the chain's connections' next calls), and its open connections, which are drained when the
 * chain goes away. Thread-safety: {@code routing} is volatile (read per call); {@code connections}
 * is guarded by the {@link ServingState}'s lock.
 */
final class ChainConfig {
  final FilterChain chain;

  /** The chain's TLS (A29), or null: its connections use the fallback credentials. */
  final TlsServerCredentials tls;

  private volatile Routing routing;
  final Set<ServerTransportFilter.Connection> connections = new HashSet<>();

  /** The routes and their filters' interceptors, replaced together. */
  record Routing(XdsRouteConfig routes, RouteInterceptors interceptors) {}

  ChainConfig(FilterChain chain, XdsRouteConfig routes, TlsServerCredentials tls) {
    this.chain = chain;
    this.tls = tls;
    setRoutes(routes);
  }

  Routing routing() {
    return routing;
  }

  /** Takes new routes; their filters' interceptors are built here, not per call. */
  void setRoutes(XdsRouteConfig routes) {
    this.routing =
        new Routing(
            routes, RouteInterceptors.build(chain.connectionManager().httpFilters(), routes));
  }

  /** The chain's name in messages: its own, or "the default filter chain" / its index. */
  String describe() {
    return chain.name().isEmpty() ? "(unnamed filter chain)" : "\"" + chain.name() + "\"";
  }
}
