package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.BoolValue;
import io.envoyproxy.envoy.config.route.v3.FilterConfig;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.config.route.v3.VirtualHost;
import io.envoyproxy.envoy.config.route.v3.WeightedCluster;
import io.envoyproxy.envoy.extensions.filters.http.fault.v3.FaultAbort;
import io.envoyproxy.envoy.extensions.filters.http.fault.v3.HTTPFault;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter;
import io.envoyproxy.envoy.type.v3.FractionalPercent;
import org.junit.jupiter.api.Test;

/** A39's validation of a Listener's http_filters and of typed_per_filter_config overrides. */
class HttpFilterValidationTest {
  private static final Any UNKNOWN = Any.pack(BoolValue.of(true));

  private static HTTPFault abort(int grpcStatus) {
    return HTTPFault.newBuilder()
        .setAbort(
            FaultAbort.newBuilder()
                .setGrpcStatus(grpcStatus)
                .setPercentage(FractionalPercent.newBuilder().setNumerator(100)))
        .build();
  }

  private static HttpFilter filter(String name, Any config, boolean optional) {
    return HttpFilter.newBuilder()
        .setName(name)
        .setTypedConfig(config)
        .setIsOptional(optional)
        .build();
  }

  private static XdsListener listener(HttpFilter... before) throws XdsResourceException {
    var hcm = Resources.hcm("r1");
    for (int i = 0; i < before.length; i++) {
      hcm.addHttpFilters(i, before[i]);
    }
    return XdsResourceType.LISTENER.validate(Resources.listener("l1", hcm.build()));
  }

  @Test
  void faultFilterIsKeptWithItsConfigBeforeTheRouter() throws Exception {
    XdsListener l = listener(filter("fault", Any.pack(abort(14)), false));
    assertThat(l.httpFilters())
        .extracting(XdsListener.HttpFilter::name)
        .containsExactly("fault", "router");
    assertThat(l.httpFilters().get(0).config()).isNotNull();
  }

  @Test
  void unknownOptionalFilterIsSkipped() throws Exception {
    XdsListener l = listener(filter("opt", UNKNOWN, true));
    assertThat(l.httpFilters()).extracting(XdsListener.HttpFilter::name).containsExactly("router");
  }

  @Test
  void unknownRequiredFilterIsNackedNamingFilterAndType() {
    assertThatThrownBy(() -> listener(filter("magic", UNKNOWN, false)))
        .isInstanceOf(XdsResourceException.class)
        .hasMessage(
            "Listener \"l1\": http_filters[0] \"magic\": filter type"
                + " type.googleapis.com/google.protobuf.BoolValue is not supported");
  }

  @Test
  void routerBeforeAnotherFilterIsNackedNamingIt() {
    var hcm = Resources.hcm("r1").addHttpFilters(filter("fault", Any.pack(abort(14)), false));
    assertThatThrownBy(
            () -> XdsResourceType.LISTENER.validate(Resources.listener("l1", hcm.build())))
        .hasMessage(
            "Listener \"l1\": http_filters[0] \"router\": the router filter must be last, but"
                + " \"fault\" follows it");
  }

  @Test
  void badFaultConfigIsNackedNamingTheField() {
    HTTPFault bad =
        HTTPFault.newBuilder().setAbort(FaultAbort.newBuilder().setHttpStatus(700)).build();
    assertThatThrownBy(() -> listener(filter("fault", Any.pack(bad), false)))
        .hasMessage(
            "Listener \"l1\": http_filters[0] \"fault\".typed_config: abort.http_status: 700 is"
                + " not in [200, 600)");
    HTTPFault noDelayKind =
        HTTPFault.newBuilder()
            .setDelay(
                io.envoyproxy.envoy.extensions.filters.common.fault.v3.FaultDelay.newBuilder())
            .build();
    assertThatThrownBy(() -> listener(filter("fault", Any.pack(noDelayKind), false)))
        .hasMessageEndingWith("delay: neither fixed_delay nor header_delay is set");
  }

  private static XdsRouteConfig routes(VirtualHost.Builder host) throws XdsResourceException {
    return XdsResourceType.ROUTE_CONFIGURATION.validate(
        RouteConfiguration.newBuilder().setName("r1").addVirtualHosts(host).build());
  }

  private static VirtualHost.Builder host() {
    return VirtualHost.newBuilder().setName("vh").addDomains("*");
  }

  @Test
  void overridesAreParsedOnVirtualHostRouteAndWeightedCluster() throws Exception {
    var route =
        Resources.route("/", "c1")
            .putTypedPerFilterConfig("fault", Any.pack(abort(3)))
            .setRoute(
                io.envoyproxy.envoy.config.route.v3.RouteAction.newBuilder()
                    .setWeightedClusters(
                        WeightedCluster.newBuilder()
                            .addClusters(
                                WeightedCluster.ClusterWeight.newBuilder()
                                    .setName("c1")
                                    .setWeight(com.google.protobuf.UInt32Value.of(1))
                                    .putTypedPerFilterConfig("fault", Any.pack(abort(4))))));
    XdsRouteConfig config =
        routes(host().putTypedPerFilterConfig("fault", Any.pack(abort(5))).addRoutes(route));
    XdsRouteConfig.VirtualHost vh = config.virtualHosts().get(0);
    assertThat(vh.filterOverrides()).containsOnlyKeys("fault");
    XdsRouteConfig.Route r = vh.routes().get(0);
    assertThat(r.filterOverrides()).containsOnlyKeys("fault");
    assertThat(r.action().weightedClusters().get(0).filterOverrides()).containsOnlyKeys("fault");
    assertThat(r.filterOverrides().get("fault")).isNotEqualTo(vh.filterOverrides().get("fault"));
  }

  @Test
  void unknownOverrideIsNackedNamingFilterAndPlaceUnlessOptional() throws Exception {
    assertThatThrownBy(
            () ->
                routes(
                    host()
                        .addRoutes(
                            Resources.route("/", "c1").putTypedPerFilterConfig("magic", UNKNOWN))))
        .hasMessage(
            "RouteConfiguration \"r1\": virtual_hosts[0].routes[0]"
                + ".typed_per_filter_config[\"magic\"]: filter type"
                + " type.googleapis.com/google.protobuf.BoolValue is not supported");
    assertThatThrownBy(() -> routes(host().putTypedPerFilterConfig("magic", UNKNOWN)))
        .hasMessageContaining("virtual_hosts[0].typed_per_filter_config[\"magic\"]");
    Any optional =
        Any.pack(FilterConfig.newBuilder().setConfig(UNKNOWN).setIsOptional(true).build());
    XdsRouteConfig config = routes(host().putTypedPerFilterConfig("magic", optional));
    assertThat(config.virtualHosts().get(0).filterOverrides()).isEmpty();
    Any wrapped = Any.pack(FilterConfig.newBuilder().setConfig(Any.pack(abort(2))).build());
    assertThat(
            routes(host().putTypedPerFilterConfig("fault", wrapped))
                .virtualHosts()
                .get(0)
                .filterOverrides())
        .containsOnlyKeys("fault");
  }
}
