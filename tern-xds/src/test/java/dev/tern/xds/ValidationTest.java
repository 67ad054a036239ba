package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.BoolValue;
import com.google.protobuf.Duration;
import com.google.protobuf.Message;
import com.google.protobuf.UInt32Value;
import dev.tern.Status;
import io.envoyproxy.envoy.config.cluster.v3.CircuitBreakers;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.cluster.v3.OutlierDetection;
import io.envoyproxy.envoy.config.core.v3.HealthStatus;
import io.envoyproxy.envoy.config.core.v3.HttpProtocolOptions;
import io.envoyproxy.envoy.config.core.v3.Pipe;
import io.envoyproxy.envoy.config.core.v3.RoutingPriority;
import io.envoyproxy.envoy.config.core.v3.RuntimeFractionalPercent;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.DirectResponseAction;
import io.envoyproxy.envoy.config.route.v3.HeaderMatcher;
import io.envoyproxy.envoy.config.route.v3.QueryParameterMatcher;
import io.envoyproxy.envoy.config.route.v3.RetryPolicy;
import io.envoyproxy.envoy.config.route.v3.Route;
import io.envoyproxy.envoy.config.route.v3.RouteAction;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.config.route.v3.RouteMatch;
import io.envoyproxy.envoy.config.route.v3.WeightedCluster;
import io.envoyproxy.envoy.extensions.clusters.aggregate.v3.ClusterConfig;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter;
import io.envoyproxy.envoy.type.matcher.v3.RegexMatcher;
import io.envoyproxy.envoy.type.matcher.v3.StringMatcher;
import io.envoyproxy.envoy.type.v3.FractionalPercent;
import io.envoyproxy.envoy.type.v3.Int64Range;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ValidationTest {
  private static Arguments nack(XdsResourceType<?> type, Message resource, String message) {
    return Arguments.of(type, resource, message);
  }

  private static Any pack(Message m) {
    return Any.pack(m);
  }

  /** A route configuration "r1" whose one route has {@code action}. */
  private static RouteConfiguration withAction(RouteAction.Builder action) {
    return Resources.routes("r1", Resources.route("", "c").setRoute(action).build());
  }

  /** A route configuration "r1" whose one route matches {@code match} and goes to "c". */
  private static RouteConfiguration withMatch(RouteMatch.Builder match) {
    return Resources.routes("r1", Resources.route("", "c").setMatch(match).build());
  }

  /** A route configuration "r1" whose one route has the header matcher {@code header}. */
  private static RouteConfiguration withHeader(HeaderMatcher.Builder header) {
    return withMatch(RouteMatch.newBuilder().setPrefix("").addHeaders(header));
  }

  static Stream<Arguments> invalid() {
    XdsResourceType<?> lds = XdsResourceType.LISTENER;
    XdsResourceType<?> rds = XdsResourceType.ROUTE_CONFIGURATION;
    XdsResourceType<?> cds = XdsResourceType.CLUSTER;
    XdsResourceType<?> eds = XdsResourceType.ENDPOINTS;
    HttpFilter fault =
        HttpFilter.newBuilder().setName("fault").setTypedConfig(pack(BoolValue.of(true))).build();
    return Stream.of(
        // A27: load reports go to the control plane that sent the cluster only.
        nack(
            cds,
            Resources.edsCluster("c1", "e1")
                .setLrsServer(
                    io.envoyproxy.envoy.config.core.v3.ConfigSource.newBuilder()
                        .setAds(
                            io.envoyproxy.envoy.config.core.v3.AggregatedConfigSource
                                .getDefaultInstance()))
                .build(),
            "Cluster \"c1\": lrs_server: must be self"),
        // Listener
        nack(
            lds,
            Listener.newBuilder().setName("l1").build(),
            "Listener \"l1\": api_listener: missing"),
        nack(
            lds,
            Resources.listener("l1", Resources.hcm("r1").clearHttpFilters().build()),
            "Listener \"l1\": http_filters: empty (the router filter is required)"),
        nack(
            lds,
            Resources.listener(
                "l1",
                Resources.hcm("r1")
                    .clearHttpFilters()
                    .addHttpFilters(fault.toBuilder().setIsOptional(true))
                    .build()),
            "Listener \"l1\": http_filters: the router filter is missing"),
        nack(
            lds,
            Resources.listener(
                "l1",
                Resources.hcm("r1").addHttpFilters(fault.toBuilder().setIsOptional(true)).build()),
            "Listener \"l1\": http_filters[0] \"router\": the router filter must be last, but"
                + " \"fault\" follows it"),
        nack(
            lds,
            Resources.listener("l1", Resources.hcm("r1").addHttpFilters(0, fault).build()),
            "Listener \"l1\": http_filters[0] \"fault\": filter type"
                + " type.googleapis.com/google.protobuf.BoolValue is not supported"),
        nack(
            lds,
            Resources.listener(
                "l1",
                Resources.hcm("r1")
                    .addHttpFilters(0, fault.toBuilder().setIsOptional(true))
                    .addHttpFilters(0, fault.toBuilder().setIsOptional(true))
                    .build()),
            "Listener \"l1\": http_filters[1]: duplicate name \"fault\""),
        nack(
            lds,
            Resources.listener(
                "l1",
                Resources.hcm("r1")
                    .setRds(
                        Resources.hcm("r1").getRds().toBuilder()
                            .setConfigSource(
                                io.envoyproxy.envoy.config.core.v3.ConfigSource
                                    .getDefaultInstance()))
                    .build()),
            "Listener \"l1\": rds.config_source: must be ads or self"),
        nack(
            lds,
            Resources.listener("l1", Resources.hcm("").build()),
            "Listener \"l1\": rds.route_config_name: empty"),
        nack(
            lds,
            Resources.listener("l1", Resources.hcm("r1").clearRds().build()),
            "Listener \"l1\": neither rds nor route_config is set"),
        nack(
            lds,
            Listener.newBuilder()
                .setName("l1")
                .setApiListener(
                    io.envoyproxy.envoy.config.listener.v3.ApiListener.newBuilder()
                        .setApiListener(pack(BoolValue.of(true))))
                .build(),
            "Listener \"l1\": api_listener.api_listener: type"
                + " type.googleapis.com/google.protobuf.BoolValue is not supported"),
        nack(
            lds,
            Resources.listener(
                "l1",
                Resources.hcm("r1")
                    .setCommonHttpProtocolOptions(
                        HttpProtocolOptions.newBuilder()
                            .setMaxStreamDuration(Duration.newBuilder().setSeconds(-1)))
                    .build()),
            "Listener \"l1\": common_http_protocol_options.max_stream_duration: must be a"
                + " non-negative duration"),
        nack(
            lds,
            Resources.listener(
                "l1",
                Resources.hcm("r1")
                    .clearRds()
                    .setRouteConfig(Resources.routes("inline", Resources.route("", "").build()))
                    .build()),
            "Listener \"l1\": route_config.virtual_hosts[0].routes[0].route.cluster: empty"),
        // RouteConfiguration
        nack(
            rds,
            Resources.routes("r1", Resources.route("", "").build()),
            "RouteConfiguration \"r1\": virtual_hosts[0].routes[0].route.cluster: empty"),
        nack(
            rds,
            withMatch(
                RouteMatch.newBuilder().setSafeRegex(RegexMatcher.newBuilder().setRegex("a["))),
            "RouteConfiguration \"r1\": virtual_hosts[0].routes[0].match.safe_regex: invalid regex"
                + " \"a[\""),
        nack(
            rds,
            withAction(
                RouteAction.newBuilder()
                    .setCluster("c")
                    .addHashPolicy(
                        RouteAction.HashPolicy.newBuilder()
                            .setHeader(
                                RouteAction.HashPolicy.Header.newBuilder()
                                    .setHeaderName("user")
                                    .setRegexRewrite(
                                        io.envoyproxy.envoy.type.matcher.v3.RegexMatchAndSubstitute
                                            .newBuilder()
                                            .setPattern(RegexMatcher.newBuilder().setRegex("(a"))
                                            .setSubstitution("x"))))),
            "RouteConfiguration \"r1\": virtual_hosts[0].routes[0].route.hash_policy[0].header"
                + ".regex_rewrite.pattern: invalid regex \"(a\""),
        nack(
            rds,
            withAction(
                RouteAction.newBuilder()
                    .setCluster("c")
                    .addHashPolicy(
                        RouteAction.HashPolicy.newBuilder()
                            .setHeader(RouteAction.HashPolicy.Header.newBuilder()))),
            "RouteConfiguration \"r1\": virtual_hosts[0].routes[0].route.hash_policy[0].header"
                + ".header_name: empty"),
        nack(
            rds,
            withMatch(RouteMatch.newBuilder()),
            "RouteConfiguration \"r1\": virtual_hosts[0].routes[0].match: no path specifier"),
        nack(
            rds,
            withAction(
                RouteAction.newBuilder()
                    .setWeightedClusters(
                        WeightedCluster.newBuilder()
                            .addClusters(
                                WeightedCluster.ClusterWeight.newBuilder()
                                    .setName("a")
                                    .setWeight(UInt32Value.of(0))))),
            "RouteConfiguration \"r1\": virtual_hosts[0].routes[0].route.weighted_clusters: the"
                + " weights sum to 0"),
        nack(
            rds,
            withAction(RouteAction.newBuilder()),
            "RouteConfiguration \"r1\": virtual_hosts[0].routes[0].route: no cluster specifier"),
        nack(
            rds,
            withAction(RouteAction.newBuilder().setClusterSpecifierPlugin("p")),
            "RouteConfiguration \"r1\": virtual_hosts[0].routes[0].route: cluster specifier"
                + " cluster_specifier_plugin is not supported"),
        nack(
            rds,
            withHeader(
                HeaderMatcher.newBuilder()
                    .setName("h")
                    .setRangeMatch(Int64Range.newBuilder().setStart(5).setEnd(1))),
            "RouteConfiguration \"r1\": virtual_hosts[0].routes[0].match.headers[0].range_match:"
                + " start 5 > end 1"),
        nack(
            rds,
            withHeader(HeaderMatcher.newBuilder().setName("h")),
            "RouteConfiguration \"r1\": virtual_hosts[0].routes[0].match.headers[0]: no header"
                + " match specifier"),
        nack(
            rds,
            withAction(
                RouteAction.newBuilder()
                    .setCluster("c")
                    .setRetryPolicy(
                        RetryPolicy.newBuilder()
                            .setRetryBackOff(
                                RetryPolicy.RetryBackOff.newBuilder()
                                    .setBaseInterval(Duration.newBuilder().setSeconds(2))
                                    .setMaxInterval(Duration.newBuilder().setSeconds(1))))),
            "RouteConfiguration \"r1\": virtual_hosts[0].routes[0].route.retry_policy"
                + ".retry_back_off.max_interval: less than base_interval"),
        nack(
            rds,
            withAction(
                RouteAction.newBuilder()
                    .setCluster("c")
                    .setMaxStreamDuration(
                        RouteAction.MaxStreamDuration.newBuilder()
                            .setGrpcTimeoutHeaderMax(Duration.newBuilder().setNanos(-5)))),
            "RouteConfiguration \"r1\": virtual_hosts[0].routes[0].route.max_stream_duration"
                + ".grpc_timeout_header_max: must be a non-negative duration"),
        // Cluster
        nack(
            cds,
            Resources.edsCluster("c1", "").setLbPolicy(Cluster.LbPolicy.MAGLEV).build(),
            "Cluster \"c1\": lb_policy MAGLEV is not supported"),
        nack(
            cds,
            Resources.edsCluster("c1", "").setType(Cluster.DiscoveryType.STATIC).build(),
            "Cluster \"c1\": type STATIC is not supported"),
        nack(
            cds,
            Cluster.newBuilder()
                .setName("c1")
                .setClusterType(
                    Cluster.CustomClusterType.newBuilder().setName("envoy.clusters.redis"))
                .build(),
            "Cluster \"c1\": cluster_type envoy.clusters.redis is not supported"),
        nack(
            cds,
            Cluster.newBuilder()
                .setName("c1")
                .setClusterType(
                    Cluster.CustomClusterType.newBuilder()
                        .setName("envoy.clusters.aggregate")
                        .setTypedConfig(pack(ClusterConfig.getDefaultInstance())))
                .build(),
            "Cluster \"c1\": cluster_type.typed_config.clusters: empty"),
        nack(
            cds,
            Resources.edsCluster("c1", "")
                .setEdsClusterConfig(Cluster.EdsClusterConfig.getDefaultInstance())
                .build(),
            "Cluster \"c1\": eds_cluster_config.eds_config: must be ads or self"),
        nack(
            cds,
            Resources.edsCluster("c1", "")
                .setType(Cluster.DiscoveryType.LOGICAL_DNS)
                .setLoadAssignment(Resources.endpoints("c1", 1, 2))
                .build(),
            "Cluster \"c1\": load_assignment: a LOGICAL_DNS cluster needs exactly one locality"
                + " with one endpoint"),
        nack(
            cds,
            Resources.edsCluster("c1", "")
                .setLbPolicy(Cluster.LbPolicy.RING_HASH)
                .setRingHashLbConfig(
                    Cluster.RingHashLbConfig.newBuilder()
                        .setMinimumRingSize(com.google.protobuf.UInt64Value.of(100))
                        .setMaximumRingSize(com.google.protobuf.UInt64Value.of(10)))
                .build(),
            "Cluster \"c1\": ring_hash_lb_config.minimum_ring_size: 100 is not in"
                + " 1..maximum_ring_size (10)"),
        nack(
            cds,
            Resources.edsCluster("c1", "")
                .setLbPolicy(Cluster.LbPolicy.RING_HASH)
                .setRingHashLbConfig(
                    Cluster.RingHashLbConfig.newBuilder()
                        .setMinimumRingSize(com.google.protobuf.UInt64Value.of(0)))
                .build(),
            "Cluster \"c1\": ring_hash_lb_config.minimum_ring_size: 0 is not in"),
        nack(
            cds,
            Resources.edsCluster("c1", "")
                .setLbPolicy(Cluster.LbPolicy.RING_HASH)
                .setRingHashLbConfig(
                    Cluster.RingHashLbConfig.newBuilder()
                        .setMaximumRingSize(
                            com.google.protobuf.UInt64Value.of(8 * 1024 * 1024 + 1)))
                .build(),
            "Cluster \"c1\": ring_hash_lb_config.maximum_ring_size: 8388609 is over 8388608"),
        nack(
            cds,
            Resources.edsCluster("c1", "")
                .setLbPolicy(Cluster.LbPolicy.RING_HASH)
                .setRingHashLbConfig(
                    Cluster.RingHashLbConfig.newBuilder()
                        .setHashFunction(Cluster.RingHashLbConfig.HashFunction.MURMUR_HASH_2))
                .build(),
            "Cluster \"c1\": ring_hash_lb_config.hash_function MURMUR_HASH_2 is not supported"),
        nack(
            cds,
            Resources.edsCluster("c1", "")
                .setLbPolicy(Cluster.LbPolicy.LEAST_REQUEST)
                .setLeastRequestLbConfig(
                    Cluster.LeastRequestLbConfig.newBuilder().setChoiceCount(UInt32Value.of(1)))
                .build(),
            "Cluster \"c1\": least_request_lb_config.choice_count: must be at least 2, was 1"),
        nack(
            cds,
            Resources.edsCluster("c1", "")
                .setOutlierDetection(
                    OutlierDetection.newBuilder().setMaxEjectionPercent(UInt32Value.of(101)))
                .build(),
            "Cluster \"c1\": outlier_detection.max_ejection_percent: must be at most 100, was 101"),
        nack(
            cds,
            Resources.edsCluster("c1", "")
                .setOutlierDetection(
                    OutlierDetection.newBuilder().setInterval(Duration.newBuilder().setSeconds(-3)))
                .build(),
            "Cluster \"c1\": outlier_detection.interval: must be a non-negative duration"),
        nack(
            cds,
            Resources.edsCluster("c1", "")
                .setOutlierDetection(
                    OutlierDetection.newBuilder()
                        .setEnforcingFailurePercentage(UInt32Value.of(200)))
                .build(),
            "Cluster \"c1\": outlier_detection.enforcing_failure_percentage: must be at most 100"),
        nack(
            cds,
            Resources.edsCluster("c1", "")
                .setOutlierDetection(
                    OutlierDetection.newBuilder().setInterval(Duration.newBuilder().setSeconds(0)))
                .build(),
            "Cluster \"c1\": outlier_detection.interval: must be positive"),
        nack(
            cds,
            Resources.edsCluster("c1", "")
                .setOutlierDetection(
                    OutlierDetection.newBuilder()
                        .setBaseEjectionTime(Duration.newBuilder().setNanos(-1)))
                .build(),
            "Cluster \"c1\": outlier_detection.base_ejection_time: must be a non-negative duration"),
        nack(
            cds,
            Resources.edsCluster("c1", "")
                .setOutlierDetection(
                    OutlierDetection.newBuilder()
                        .setFailurePercentageThreshold(UInt32Value.of(101)))
                .build(),
            "Cluster \"c1\": outlier_detection.failure_percentage_threshold: must be at most 100"),
        nack(
            cds,
            Resources.edsCluster("c1", "")
                .setOutlierDetection(
                    OutlierDetection.newBuilder().setEnforcingSuccessRate(UInt32Value.of(101)))
                .build(),
            "Cluster \"c1\": outlier_detection.enforcing_success_rate: must be at most 100"),
        nack(
            cds,
            Cluster.newBuilder().setName("c1").build(),
            "Cluster \"c1\": neither type nor cluster_type is set"),
        // ClusterLoadAssignment
        nack(
            eds,
            ClusterLoadAssignment.newBuilder()
                .setClusterName("e1")
                .addEndpoints(
                    Resources.locality("a", 1, 0).addLbEndpoints(Resources.endpoint("h", 1)))
                .addEndpoints(
                    Resources.locality("b", 1, 2).addLbEndpoints(Resources.endpoint("h", 2)))
                .build(),
            "ClusterLoadAssignment \"e1\": endpoints: priorities [0, 2] skip priority 1"),
        nack(
            eds,
            ClusterLoadAssignment.newBuilder()
                .setClusterName("e1")
                .addEndpoints(Resources.locality("a", 1, 0))
                .addEndpoints(Resources.locality("a", 2, 0))
                .build(),
            "ClusterLoadAssignment \"e1\": endpoints[1].locality: duplicate locality {, a, } in"
                + " priority 0"),
        nack(
            eds,
            ClusterLoadAssignment.newBuilder()
                .setClusterName("e1")
                .addEndpoints(
                    Resources.locality("a", 1, 0)
                        .addLbEndpoints(
                            Resources.endpoint("h", 1)
                                .setEndpoint(
                                    io.envoyproxy.envoy.config.endpoint.v3.Endpoint.newBuilder()
                                        .setAddress(
                                            io.envoyproxy.envoy.config.core.v3.Address.newBuilder()
                                                .setPipe(Pipe.newBuilder().setPath("/p"))))))
                .build(),
            "ClusterLoadAssignment \"e1\": endpoints[0].lb_endpoints[0].endpoint.address: not a"
                + " socket_address"),
        nack(
            eds,
            ClusterLoadAssignment.newBuilder()
                .setClusterName("e1")
                .addEndpoints(
                    Resources.locality("a", 1, 0)
                        .addLbEndpoints(
                            Resources.endpoint("h", 1).setLoadBalancingWeight(UInt32Value.of(0))))
                .build(),
            "ClusterLoadAssignment \"e1\": endpoints[0].lb_endpoints[0].load_balancing_weight:"
                + " must be positive"),
        nack(
            eds,
            ClusterLoadAssignment.newBuilder()
                .setClusterName("e1")
                .addEndpoints(
                    Resources.locality("a", 1, 0).addLbEndpoints(Resources.endpoint("", 1)))
                .build(),
            "ClusterLoadAssignment \"e1\": endpoints[0].lb_endpoints[0].endpoint.address"
                + ".socket_address.address: empty"));
  }

  @ParameterizedTest
  @MethodSource("invalid")
  void invalidResourceIsRejectedNamingTheField(
      XdsResourceType<?> type, Message resource, String message) {
    assertThatThrownBy(() -> type.validate(resource))
        .isInstanceOf(XdsResourceException.class)
        .hasMessageStartingWith(message);
  }

  @Test
  void listenerWithRds() throws Exception {
    XdsListener l =
        XdsResourceType.LISTENER.validate(
            Resources.listener(
                "l1",
                Resources.hcm("r1")
                    .addHttpFilters(
                        0,
                        HttpFilter.newBuilder()
                            .setName("opt")
                            .setIsOptional(true)
                            .setTypedConfig(pack(BoolValue.of(true))))
                    .setCommonHttpProtocolOptions(
                        HttpProtocolOptions.newBuilder()
                            .setMaxStreamDuration(Duration.newBuilder().setSeconds(3)))
                    .build()));
    assertThat(l.name()).isEqualTo("l1");
    assertThat(l.rdsName()).isEqualTo("r1");
    assertThat(l.inlineRoutes()).isNull();
    assertThat(l.httpFilters()).hasSize(1);
    assertThat(l.httpFilters().get(0).name()).isEqualTo("router");
    assertThat(l.httpFilters().get(0).typeUrl()).isEqualTo(ListenerValidator.ROUTER_TYPE_URL);
    assertThat(l.maxStreamDuration()).isEqualTo(java.time.Duration.ofSeconds(3));
  }

  @Test
  void listenerWithInlineRoutes() throws Exception {
    HttpConnectionManager hcm =
        Resources.hcm("x").clearRds().setRouteConfig(Resources.routes("inline", "c1")).build();
    XdsListener l = XdsResourceType.LISTENER.validate(Resources.listener("l1", hcm));
    assertThat(l.rdsName()).isNull();
    assertThat(l.inlineRoutes().name()).isEqualTo("inline");
    assertThat(l.inlineRoutes().virtualHosts().get(0).routes().get(0).action().cluster())
        .isEqualTo("c1");
  }

  @Test
  @SuppressWarnings("deprecation")
  void routeConfiguration() throws Exception {
    Route full =
        Route.newBuilder()
            .setMatch(
                RouteMatch.newBuilder()
                    .setPath("/svc/Method")
                    .setCaseSensitive(BoolValue.of(false))
                    .setRuntimeFraction(
                        RuntimeFractionalPercent.newBuilder()
                            .setDefaultValue(
                                FractionalPercent.newBuilder()
                                    .setNumerator(25)
                                    .setDenominator(FractionalPercent.DenominatorType.HUNDRED)))
                    .addHeaders(HeaderMatcher.newBuilder().setName("a").setExactMatch("x"))
                    .addHeaders(
                        HeaderMatcher.newBuilder()
                            .setName("b")
                            .setInvertMatch(true)
                            .setStringMatch(
                                StringMatcher.newBuilder().setPrefix("p").setIgnoreCase(true)))
                    .addHeaders(HeaderMatcher.newBuilder().setName("c").setPresentMatch(true))
                    .addHeaders(
                        HeaderMatcher.newBuilder()
                            .setName("d")
                            .setSafeRegexMatch(RegexMatcher.newBuilder().setRegex("v[0-9]+")))
                    .addHeaders(
                        HeaderMatcher.newBuilder()
                            .setName("e")
                            .setRangeMatch(Int64Range.newBuilder().setStart(1).setEnd(9))))
            .setRoute(
                RouteAction.newBuilder()
                    .setWeightedClusters(
                        WeightedCluster.newBuilder()
                            .addClusters(
                                WeightedCluster.ClusterWeight.newBuilder()
                                    .setName("a")
                                    .setWeight(UInt32Value.of(3)))
                            .addClusters(
                                WeightedCluster.ClusterWeight.newBuilder()
                                    .setName("b")
                                    .setWeight(UInt32Value.of(0)))
                            .addClusters(
                                WeightedCluster.ClusterWeight.newBuilder()
                                    .setName("c")
                                    .setWeight(UInt32Value.of(7))))
                    .setMaxStreamDuration(
                        RouteAction.MaxStreamDuration.newBuilder()
                            .setMaxStreamDuration(Duration.newBuilder().setSeconds(9))
                            .setGrpcTimeoutHeaderMax(Duration.newBuilder().setSeconds(4)))
                    .setRetryPolicy(
                        RetryPolicy.newBuilder()
                            .setRetryOn("unavailable, cancelled,5xx,resource-exhausted")
                            .setNumRetries(UInt32Value.of(3))))
            .build();
    Route regex =
        Route.newBuilder()
            .setMatch(
                RouteMatch.newBuilder().setSafeRegex(RegexMatcher.newBuilder().setRegex("/s.*")))
            .setRoute(RouteAction.newBuilder().setClusterHeader("x-cluster"))
            .build();
    Route skipped =
        Resources.route("/q", "c")
            .setMatch(
                RouteMatch.newBuilder()
                    .setPrefix("/q")
                    .addQueryParameters(QueryParameterMatcher.newBuilder().setName("q")))
            .build();
    Route nonForwarding =
        Route.newBuilder()
            .setMatch(RouteMatch.newBuilder().setPrefix("/d"))
            .setDirectResponse(DirectResponseAction.newBuilder().setStatus(503))
            .build();
    XdsRouteConfig config =
        XdsResourceType.ROUTE_CONFIGURATION.validate(
            Resources.routes("r1", full, regex, skipped, nonForwarding));
    List<XdsRouteConfig.Route> routes = config.virtualHosts().get(0).routes();
    assertThat(config.virtualHosts().get(0).domains()).containsExactly("*");
    assertThat(routes).hasSize(3);

    XdsRouteConfig.Route first = routes.get(0);
    assertThat(first.match().path().kind()).isEqualTo(XdsRouteConfig.PathMatcher.Kind.PATH);
    assertThat(first.match().path().value()).isEqualTo("/svc/Method");
    assertThat(first.match().path().caseSensitive()).isFalse();
    assertThat(first.match().fractionPerMillion()).isEqualTo(250_000);
    assertThat(first.match().headers())
        .extracting(XdsRouteConfig.HeaderMatcher::kind)
        .containsExactly(
            XdsRouteConfig.HeaderMatcher.Kind.EXACT,
            XdsRouteConfig.HeaderMatcher.Kind.PREFIX,
            XdsRouteConfig.HeaderMatcher.Kind.PRESENT,
            XdsRouteConfig.HeaderMatcher.Kind.SAFE_REGEX,
            XdsRouteConfig.HeaderMatcher.Kind.RANGE);
    XdsRouteConfig.HeaderMatcher b = first.match().headers().get(1);
    assertThat(b.invert()).isTrue();
    assertThat(b.ignoreCase()).isTrue();
    assertThat(first.match().headers().get(3).regex().matcher("v12").matches()).isTrue();
    assertThat(first.match().headers().get(4).rangeEnd()).isEqualTo(9);
    assertThat(first.action().weightedClusters())
        .containsExactly(
            new XdsRouteConfig.ClusterWeight("a", 3), new XdsRouteConfig.ClusterWeight("c", 7));
    assertThat(first.action().timeout()).isEqualTo(java.time.Duration.ofSeconds(4));
    assertThat(first.action().retryPolicy())
        .isEqualTo(
            new XdsRouteConfig.RetryPolicy(
                Set.of(
                    Status.Code.UNAVAILABLE, Status.Code.CANCELLED, Status.Code.RESOURCE_EXHAUSTED),
                4,
                java.time.Duration.ofMillis(25),
                java.time.Duration.ofMillis(250)));

    assertThat(routes.get(1).match().path().regex().matcher("/svc/M").matches()).isTrue();
    assertThat(routes.get(1).action().clusterHeader()).isEqualTo("x-cluster");
    assertThat(routes.get(2).action()).isNull();
  }

  @Test
  void edsCluster() throws Exception {
    XdsCluster c =
        XdsResourceType.CLUSTER.validate(
            Resources.edsCluster("c1", "")
                .setCircuitBreakers(
                    CircuitBreakers.newBuilder()
                        .addThresholds(
                            CircuitBreakers.Thresholds.newBuilder()
                                .setPriority(RoutingPriority.HIGH)
                                .setMaxRequests(UInt32Value.of(1)))
                        .addThresholds(
                            CircuitBreakers.Thresholds.newBuilder()
                                .setMaxRequests(UInt32Value.of(77))))
                .setOutlierDetection(
                    OutlierDetection.newBuilder()
                        .setEnforcingFailurePercentage(UInt32Value.of(50))
                        .setEnforcingSuccessRate(UInt32Value.of(0)))
                .build());
    assertThat(c.type()).isEqualTo(XdsCluster.Type.EDS);
    assertThat(c.edsServiceName()).isEqualTo("c1");
    assertThat(c.lbPolicy()).isEqualTo(XdsCluster.LbPolicy.ROUND_ROBIN);
    assertThat(c.maxConcurrentRequests()).isEqualTo(77);
    assertThat(c.outlierDetection().interval()).isEqualTo(java.time.Duration.ofSeconds(10));
    assertThat(c.outlierDetection().maxEjectionPercent()).isEqualTo(10);
    assertThat(c.outlierDetection().successRate()).isNull();
    assertThat(c.outlierDetection().failurePercentage())
        .isEqualTo(new XdsCluster.FailurePercentageEjection(85, 50, 5, 50));
  }

  @Test
  void clusterPoliciesAndKinds() throws Exception {
    XdsCluster ring =
        XdsResourceType.CLUSTER.validate(
            Resources.edsCluster("c1", "svc").setLbPolicy(Cluster.LbPolicy.RING_HASH).build());
    assertThat(ring.edsServiceName()).isEqualTo("svc");
    assertThat(ring.lbPolicy())
        .isEqualTo(new XdsCluster.LbPolicy(XdsCluster.LbPolicy.Kind.RING_HASH, 1024, 8 << 20, 0));
    assertThat(ring.maxConcurrentRequests()).isEqualTo(1024);
    assertThat(ring.outlierDetection()).isNull();

    assertThat(ring.reportLoad()).isFalse();
    assertThat(
            XdsResourceType.CLUSTER
                .validate(
                    Resources.edsCluster("c1", "svc")
                        .setLrsServer(
                            io.envoyproxy.envoy.config.core.v3.ConfigSource.newBuilder()
                                .setSelf(
                                    io.envoyproxy.envoy.config.core.v3.SelfConfigSource
                                        .getDefaultInstance()))
                        .build())
                .reportLoad())
        .isTrue();

    XdsCluster least =
        XdsResourceType.CLUSTER.validate(
            Resources.edsCluster("c1", "").setLbPolicy(Cluster.LbPolicy.LEAST_REQUEST).build());
    assertThat(least.lbPolicy().choiceCount()).isEqualTo(2);

    XdsCluster dns =
        XdsResourceType.CLUSTER.validate(
            Cluster.newBuilder()
                .setName("d")
                .setType(Cluster.DiscoveryType.LOGICAL_DNS)
                .setLoadAssignment(Resources.endpoints("d", 8080))
                .build());
    assertThat(dns.type()).isEqualTo(XdsCluster.Type.LOGICAL_DNS);
    assertThat(dns.dnsHostPort()).isEqualTo("127.0.0.1:8080");

    XdsCluster aggregate =
        XdsResourceType.CLUSTER.validate(
            Cluster.newBuilder()
                .setName("agg")
                .setClusterType(
                    Cluster.CustomClusterType.newBuilder()
                        .setName("envoy.clusters.aggregate")
                        .setTypedConfig(
                            pack(
                                ClusterConfig.newBuilder()
                                    .addClusters("a")
                                    .addClusters("b")
                                    .build())))
                .build());
    assertThat(aggregate.type()).isEqualTo(XdsCluster.Type.AGGREGATE);
    assertThat(aggregate.aggregateClusters()).containsExactly("a", "b");
  }

  @Test
  void endpoints() throws Exception {
    ClusterLoadAssignment cla =
        ClusterLoadAssignment.newBuilder()
            .setClusterName("e1")
            .addEndpoints(
                Resources.locality("a", 3, 1)
                    .addLbEndpoints(
                        Resources.endpoint("10.0.0.1", 80)
                            .setHealthStatus(HealthStatus.DRAINING)
                            .setLoadBalancingWeight(UInt32Value.of(5))))
            .addEndpoints(
                Resources.locality("b", 1, 0)
                    .addLbEndpoints(
                        Resources.endpoint("10.0.0.2", 81)
                            .setEndpoint(
                                Resources.endpoint("10.0.0.2", 81).getEndpoint().toBuilder()
                                    .setHostname("b-1.mesh.test"))))
            .addEndpoints(
                Resources.locality("ignored", 0, 7)
                    .addLbEndpoints(Resources.endpoint("10.0.0.3", 82)))
            .setPolicy(
                ClusterLoadAssignment.Policy.newBuilder()
                    .addDropOverloads(
                        ClusterLoadAssignment.Policy.DropOverload.newBuilder()
                            .setCategory("throttle")
                            .setDropPercentage(
                                FractionalPercent.newBuilder()
                                    .setNumerator(5)
                                    .setDenominator(
                                        FractionalPercent.DenominatorType.TEN_THOUSAND))))
            .build();
    XdsEndpoints e = XdsResourceType.ENDPOINTS.validate(cla);
    assertThat(e.localities()).hasSize(2);
    XdsEndpoints.LocalityEndpoints a = e.localities().get(0);
    assertThat(a.zone()).isEqualTo("a");
    assertThat(a.weight()).isEqualTo(3);
    assertThat(a.priority()).isEqualTo(1);
    assertThat(a.endpoints())
        .containsExactly(
            new XdsEndpoints.Endpoint("10.0.0.1", 80, XdsEndpoints.HealthStatus.DRAINING, 5));
    assertThat(a.endpoints().get(0).health().usable()).isFalse();
    assertThat(e.localities().get(1).endpoints().get(0).weight()).isEqualTo(1);
    assertThat(a.endpoints().get(0).hostname()).isEmpty();
    assertThat(e.localities().get(1).endpoints().get(0).hostname()).isEqualTo("b-1.mesh.test");
    assertThat(e.dropOverloads()).containsExactly(new XdsEndpoints.DropOverload("throttle", 500));
  }

  @Test
  void unpackChecksTheTypeUrl() {
    assertThatThrownBy(() -> XdsResourceType.CLUSTER.unpack(pack(Resources.routes("r", "c"))))
        .isInstanceOf(XdsResourceException.class)
        .hasMessage(
            "Cluster: a resource of type"
                + " type.googleapis.com/envoy.config.route.v3.RouteConfiguration in a Cluster"
                + " response");
  }
}
