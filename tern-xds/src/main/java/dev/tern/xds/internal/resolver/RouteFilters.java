package dev.tern.xds.internal.resolver;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.ClientInterceptor;
import dev.tern.MethodDescriptor;
import dev.tern.xds.XdsListener;
import dev.tern.xds.XdsRouteConfig;
import dev.tern.xds.internal.filter.ClientFilter;
import dev.tern.xds.internal.filter.ClientFilters;
import dev.tern.xds.internal.filter.FilterConfig;
import dev.tern.xds.internal.filter.FilterContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The HTTP filters' interceptors of a route (A39), built once per route update: for each of the
 * Listener's filters but the router, in order, its config overridden by the most specific {@code
 * typed_per_filter_config} (weighted cluster, then route, then virtual host). A route whose filters
 * do nothing gets none, so its calls pay nothing. Stateless.
 */
final class RouteFilters {
  private RouteFilters() {}

  /**
   * The interceptor of the calls of {@code route} in {@code host} (to clusters without overrides of
   * their own), or null.
   */
  static ClientInterceptor forRoute(
      List<XdsListener.HttpFilter> filters,
      XdsRouteConfig.VirtualHost host,
      XdsRouteConfig.Route route,
      FilterContext context) {
    return build(filters, List.of(route.filterOverrides(), host.filterOverrides()), context);
  }

  /**
   * The interceptors of the route's weighted clusters that have overrides of their own, by cluster
   * name (a null value: no filter does anything for that cluster).
   */
  static Map<String, ClientInterceptor> forClusters(
      List<XdsListener.HttpFilter> filters,
      XdsRouteConfig.VirtualHost host,
      XdsRouteConfig.Route route,
      FilterContext context) {
    Map<String, ClientInterceptor> byCluster = new HashMap<>();
    for (XdsRouteConfig.ClusterWeight weight : route.action().weightedClusters()) {
      if (!weight.filterOverrides().isEmpty()) {
        byCluster.put(
            weight.name(),
            build(
                filters,
                List.of(weight.filterOverrides(), route.filterOverrides(), host.filterOverrides()),
                context));
      }
    }
    return byCluster;
  }

  private static ClientInterceptor build(
      List<XdsListener.HttpFilter> filters,
      List<Map<String, Object>> overridesMostSpecificFirst,
      FilterContext context) {
    List<ClientInterceptor> chain = new ArrayList<>();
    for (XdsListener.HttpFilter filter : filters) {
      ClientFilter known = ClientFilters.find(filter.typeUrl());
      if (known == null || known.isTerminal() || !(filter.config() instanceof FilterConfig)) {
        continue;
      }
      Object override = null;
      for (Map<String, Object> overrides : overridesMostSpecificFirst) {
        override = overrides.get(filter.name());
        if (override != null) {
          break;
        }
      }
      ClientInterceptor interceptor =
          known.interceptor(
              (FilterConfig) filter.config(),
              override instanceof FilterConfig config ? config : null,
              context);
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
  private record Chain(List<ClientInterceptor> interceptors) implements ClientInterceptor {
    @Override
    public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
        MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
      return new Link(interceptors, 0, next).newCall(method, callOptions);
    }
  }

  /** The channel that runs the interceptors from {@code index} on, then {@code next}. */
  private static final class Link extends Channel {
    private final List<ClientInterceptor> interceptors;
    private final int index;
    private final Channel next;

    Link(List<ClientInterceptor> interceptors, int index, Channel next) {
      this.interceptors = interceptors;
      this.index = index;
      this.next = next;
    }

    @Override
    public <ReqT, RespT> ClientCall<ReqT, RespT> newCall(
        MethodDescriptor<ReqT, RespT> method, CallOptions callOptions) {
      if (index == interceptors.size()) {
        return next.newCall(method, callOptions);
      }
      return interceptors
          .get(index)
          .interceptCall(method, callOptions, new Link(interceptors, index + 1, next));
    }

    @Override
    public String authority() {
      return next.authority();
    }
  }
}
