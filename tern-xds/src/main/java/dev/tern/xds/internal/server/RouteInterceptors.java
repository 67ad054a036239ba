package dev.tern.xds.internal.server;

import dev.tern.Metadata;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.xds.XdsListener;
import dev.tern.xds.XdsRouteConfig;
import dev.tern.xds.internal.filter.FilterConfig;
import dev.tern.xds.internal.filter.FilterTypes;
import dev.tern.xds.internal.filter.ServerFilter;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The HTTP filters' interceptors of each route of a filter chain (A39 on servers), built once per
 * Listener or RouteConfiguration update: for each of the chain's filters but the router, in order,
 * its config overridden by the most specific {@code typed_per_filter_config} (route, then virtual
 * host). Routes whose filters do nothing are left out, so their calls pay nothing. Immutable;
 * thread-safe.
 */
final class RouteInterceptors {
  static final RouteInterceptors NONE = new RouteInterceptors(Map.of());

  /** By route instance: equal routes of different virtual hosts may have different overrides. */
  private final Map<XdsRouteConfig.Route, ServerInterceptor> byRoute;

  private RouteInterceptors(Map<XdsRouteConfig.Route, ServerInterceptor> byRoute) {
    this.byRoute = byRoute;
  }

  static RouteInterceptors build(List<XdsListener.HttpFilter> filters, XdsRouteConfig routes) {
    Map<XdsRouteConfig.Route, ServerInterceptor> byRoute = new IdentityHashMap<>();
    for (XdsRouteConfig.VirtualHost host : routes.virtualHosts()) {
      for (XdsRouteConfig.Route route : host.routes()) {
        ServerInterceptor interceptor = forRoute(filters, host, route);
        if (interceptor != null) {
          byRoute.put(route, interceptor);
        }
      }
    }
    return byRoute.isEmpty() ? NONE : new RouteInterceptors(byRoute);
  }

  /** The interceptor of the calls of {@code route} (an instance of these routes), or null. */
  ServerInterceptor forRoute(XdsRouteConfig.Route route) {
    return byRoute.isEmpty() ? null : byRoute.get(route);
  }

  private static ServerInterceptor forRoute(
      List<XdsListener.HttpFilter> filters,
      XdsRouteConfig.VirtualHost host,
      XdsRouteConfig.Route route) {
    List<ServerInterceptor> chain = new ArrayList<>();
    for (XdsListener.HttpFilter filter : filters) {
      if (!(FilterTypes.find(filter.typeUrl()) instanceof ServerFilter known)
          || known.isTerminal()
          || !(filter.config() instanceof FilterConfig config)) {
        continue;
      }
      Object override = route.filterOverrides().get(filter.name());
      if (override == null) {
        override = host.filterOverrides().get(filter.name());
      }
      ServerInterceptor interceptor =
          known.serverInterceptor(config, override instanceof FilterConfig o ? o : null);
      if (interceptor != null) {
        chain.add(interceptor);
      }
    }
    return switch (chain.size()) {
      case 0 -> null;
      case 1 -> chain.get(0);
      default -> new Chain(List.copyOf(chain));
    };
  }

  /** Interceptors in the Listener's order: the first filter sees the call first. */
  private record Chain(List<ServerInterceptor> interceptors) implements ServerInterceptor {
    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      return link(0, next).startCall(call, headers);
    }

    private <ReqT, RespT> ServerCallHandler<ReqT, RespT> link(
        int index, ServerCallHandler<ReqT, RespT> next) {
      if (index == interceptors.size()) {
        return next;
      }
      return (call, headers) ->
          interceptors.get(index).interceptCall(call, headers, link(index + 1, next));
    }
  }
}
