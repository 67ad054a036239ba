package dev.tern.xds.internal.server;

import dev.tern.Metadata;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.Status;
import dev.tern.xds.XdsRouteConfig;
import dev.tern.xds.XdsRouteConfig.Route;
import dev.tern.xds.XdsRouteConfig.VirtualHost;
import dev.tern.xds.internal.resolver.RouteMatcher;
import dev.tern.xds.internal.resolver.VirtualHosts;
import dev.tern.xds.internal.resolver.XdsRandom;

/**
 * Routes each call by its connection's filter chain (A36): the virtual host for the call's
 * authority, then the first route that matches; a server route must be a non-forwarding one. A call
 * with no virtual host, no route, or a route of another action fails UNAVAILABLE, naming which. A
 * routed call then goes through the route's HTTP filters (A39: RBAC, ...), if any do something
 * there. Stateless; thread-safe.
 */
final class RoutingInterceptor implements ServerInterceptor {
  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    ChainConfig chain = call.getAttributes().get(ChainTransportFilter.CHAIN);
    if (chain == null) {
      return fail(call, "xDS server: the call's connection has no filter chain");
    }
    ChainConfig.Routing routing = chain.routing();
    XdsRouteConfig routes = routing.routes();
    String authority = call.getAuthority() == null ? "" : call.getAuthority();
    VirtualHost host = VirtualHosts.select(routes.virtualHosts(), authority);
    if (host == null) {
      return fail(
          call,
          "xDS server: no virtual host of filter chain "
              + chain.describe()
              + " matches authority \""
              + authority
              + "\"");
    }
    String path = "/" + call.getMethodDescriptor().getFullMethodName();
    for (Route route : host.routes()) {
      if (RouteMatcher.matches(route.match(), path, headers, XdsRandom.DEFAULT)) {
        if (!route.nonForwarding()) {
          return fail(
              call,
              "xDS server: the route for "
                  + path
                  + " in virtual host \""
                  + host.name()
                  + "\" is not a non_forwarding_action route");
        }
        ServerInterceptor filters = routing.interceptors().forRoute(route);
        return filters == null
            ? next.startCall(call, headers)
            : filters.interceptCall(call, headers, next);
      }
    }
    return fail(
        call, "xDS server: no route of virtual host \"" + host.name() + "\" matches " + path);
  }

  private static <ReqT> ServerCall.Listener<ReqT> fail(ServerCall<ReqT, ?> call, String why) {
    call.close(Status.UNAVAILABLE.withDescription(why), new Metadata());
    return new ServerCall.Listener<>() {};
  }
}
