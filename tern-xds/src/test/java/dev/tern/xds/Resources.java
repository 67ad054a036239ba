package dev.tern.xds;

import com.google.protobuf.Any;
import com.google.protobuf.UInt32Value;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.AggregatedConfigSource;
import io.envoyproxy.envoy.config.core.v3.ConfigSource;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.Endpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import io.envoyproxy.envoy.config.listener.v3.ApiListener;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.Route;
import io.envoyproxy.envoy.config.route.v3.RouteAction;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.config.route.v3.RouteMatch;
import io.envoyproxy.envoy.config.route.v3.VirtualHost;
import io.envoyproxy.envoy.extensions.filters.http.router.v3.Router;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.Rds;

/** Valid resources of each type for tests to start from and break. */
final class Resources {
  static final ConfigSource ADS =
      ConfigSource.newBuilder().setAds(AggregatedConfigSource.getDefaultInstance()).build();

  private Resources() {}

  static HttpFilter router() {
    return HttpFilter.newBuilder()
        .setName("router")
        .setTypedConfig(Any.pack(Router.getDefaultInstance()))
        .build();
  }

  static HttpConnectionManager.Builder hcm(String rdsName) {
    return HttpConnectionManager.newBuilder()
        .setRds(Rds.newBuilder().setRouteConfigName(rdsName).setConfigSource(ADS))
        .addHttpFilters(router());
  }

  static Listener listener(String name, HttpConnectionManager hcm) {
    return Listener.newBuilder()
        .setName(name)
        .setApiListener(ApiListener.newBuilder().setApiListener(Any.pack(hcm)))
        .build();
  }

  static Listener listener(String name, String rdsName) {
    return listener(name, hcm(rdsName).build());
  }

  static Route.Builder route(String prefix, String cluster) {
    return Route.newBuilder()
        .setMatch(RouteMatch.newBuilder().setPrefix(prefix))
        .setRoute(RouteAction.newBuilder().setCluster(cluster));
  }

  static RouteConfiguration routes(String name, Route... routes) {
    VirtualHost.Builder host = VirtualHost.newBuilder().setName("vh").addDomains("*");
    for (Route r : routes) {
      host.addRoutes(r);
    }
    return RouteConfiguration.newBuilder().setName(name).addVirtualHosts(host).build();
  }

  static RouteConfiguration routes(String name, String cluster) {
    return routes(name, route("", cluster).build());
  }

  static Cluster.Builder edsCluster(String name, String serviceName) {
    return Cluster.newBuilder()
        .setName(name)
        .setType(Cluster.DiscoveryType.EDS)
        .setEdsClusterConfig(
            Cluster.EdsClusterConfig.newBuilder().setEdsConfig(ADS).setServiceName(serviceName));
  }

  static LbEndpoint.Builder endpoint(String host, int port) {
    return LbEndpoint.newBuilder()
        .setEndpoint(
            Endpoint.newBuilder()
                .setAddress(
                    Address.newBuilder()
                        .setSocketAddress(
                            SocketAddress.newBuilder().setAddress(host).setPortValue(port))));
  }

  static LocalityLbEndpoints.Builder locality(String zone, int weight, int priority) {
    return LocalityLbEndpoints.newBuilder()
        .setLocality(io.envoyproxy.envoy.config.core.v3.Locality.newBuilder().setZone(zone))
        .setLoadBalancingWeight(UInt32Value.of(weight))
        .setPriority(priority);
  }

  static ClusterLoadAssignment endpoints(String name, int... ports) {
    LocalityLbEndpoints.Builder locality = locality("z", 1, 0);
    for (int port : ports) {
      locality.addLbEndpoints(endpoint("127.0.0.1", port));
    }
    return ClusterLoadAssignment.newBuilder().setClusterName(name).addEndpoints(locality).build();
  }
}
