package dev.tern.xds.internal.resolver;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import dev.tern.ClientInterceptor;
import dev.tern.testing.FakeClock;
import dev.tern.xds.XdsListener;
import dev.tern.xds.XdsRouteConfig;
import dev.tern.xds.internal.filter.ClientFilter;
import dev.tern.xds.internal.filter.ClientFilters;
import dev.tern.xds.internal.filter.FilterConfig;
import dev.tern.xds.internal.filter.FilterContext;
import io.envoyproxy.envoy.extensions.filters.http.fault.v3.FaultAbort;
import io.envoyproxy.envoy.extensions.filters.http.fault.v3.HTTPFault;
import io.envoyproxy.envoy.extensions.filters.http.router.v3.Router;
import io.envoyproxy.envoy.type.v3.FractionalPercent;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which filter config a route's calls get: weighted cluster over route over virtual host. */
class RouteFiltersTest {
  private static final FilterContext CONTEXT = new FilterContext(new FakeClock(), bound -> 0);

  private static FilterConfig fault(int grpcStatus, int percent) throws Exception {
    HTTPFault fault =
        HTTPFault.newBuilder()
            .setAbort(
                FaultAbort.newBuilder()
                    .setGrpcStatus(grpcStatus)
                    .setPercentage(FractionalPercent.newBuilder().setNumerator(percent)))
            .build();
    Any any = Any.pack(fault);
    return ClientFilters.find(any.getTypeUrl()).parse(any);
  }

  private static List<XdsListener.HttpFilter> filters(FilterConfig top) throws Exception {
    Any router = Any.pack(Router.getDefaultInstance());
    ClientFilter routerFilter = ClientFilters.find(router.getTypeUrl());
    return List.of(
        new XdsListener.HttpFilter("fault", top.typeUrl(), false, top),
        new XdsListener.HttpFilter(
            "router", router.getTypeUrl(), false, routerFilter.parse(router)));
  }

  private static XdsRouteConfig.Route route(Map<String, Object> overrides, Map<String, Object> c2) {
    XdsRouteConfig.RouteMatch match =
        new XdsRouteConfig.RouteMatch(
            new XdsRouteConfig.PathMatcher(XdsRouteConfig.PathMatcher.Kind.PREFIX, "", null, true),
            List.of(),
            null);
    XdsRouteConfig.RouteAction action =
        new XdsRouteConfig.RouteAction(
            null,
            List.of(
                new XdsRouteConfig.ClusterWeight("c1", 1),
                new XdsRouteConfig.ClusterWeight("c2", 1, c2)),
            null,
            null,
            null);
    return new XdsRouteConfig.Route(match, action, overrides);
  }

  private static String status(ClientInterceptor interceptor) {
    return interceptor == null
        ? "none"
        : interceptor.toString().replaceAll(".*abortStatus=Status\\{code=(\\w+).*", "$1");
  }

  @Test
  void mostSpecificOverrideWins() throws Exception {
    List<XdsListener.HttpFilter> filters = filters(fault(14, 100));
    XdsRouteConfig.Route plain = route(Map.of(), Map.of("fault", fault(5, 100)));
    XdsRouteConfig.VirtualHost bare = new XdsRouteConfig.VirtualHost("vh", List.of("*"), List.of());
    XdsRouteConfig.VirtualHost host =
        new XdsRouteConfig.VirtualHost(
            "vh", List.of("*"), List.of(), Map.of("fault", fault(3, 100)));

    assertThat(status(RouteFilters.forRoute(filters, bare, plain, CONTEXT)))
        .isEqualTo("UNAVAILABLE");
    assertThat(status(RouteFilters.forRoute(filters, host, plain, CONTEXT)))
        .isEqualTo("INVALID_ARGUMENT");
    XdsRouteConfig.Route overridden =
        route(Map.of("fault", fault(7, 100)), Map.of("fault", fault(5, 100)));
    assertThat(status(RouteFilters.forRoute(filters, host, overridden, CONTEXT)))
        .isEqualTo("PERMISSION_DENIED");
    Map<String, ClientInterceptor> byCluster =
        RouteFilters.forClusters(filters, host, overridden, CONTEXT);
    assertThat(byCluster).containsOnlyKeys("c2");
    assertThat(status(byCluster.get("c2"))).isEqualTo("NOT_FOUND");
  }

  @Test
  void anOverrideThatInjectsNothingLeavesTheRouteWithoutInterceptor() throws Exception {
    List<XdsListener.HttpFilter> filters = filters(fault(14, 100));
    XdsRouteConfig.VirtualHost bare = new XdsRouteConfig.VirtualHost("vh", List.of("*"), List.of());
    XdsRouteConfig.Route off = route(Map.of("fault", fault(14, 0)), Map.of());
    assertThat(RouteFilters.forRoute(filters, bare, off, CONTEXT)).isNull();
  }
}
