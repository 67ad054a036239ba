package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.Struct;
import com.google.protobuf.UInt32Value;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.CidrRange;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.config.core.v3.TransportSocket;
import io.envoyproxy.envoy.config.listener.v3.Filter;
import io.envoyproxy.envoy.config.listener.v3.FilterChain;
import io.envoyproxy.envoy.config.listener.v3.FilterChainMatch;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.NonForwardingAction;
import io.envoyproxy.envoy.config.route.v3.Route;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.config.route.v3.RouteMatch;
import io.envoyproxy.envoy.config.route.v3.VirtualHost;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** Validation of server-side Listeners (A36): what is kept, and each NACK naming its field. */
class ServerListenerValidationTest {
  private static final HttpConnectionManager HCM =
      HttpConnectionManager.newBuilder()
          .setRouteConfig(
              RouteConfiguration.newBuilder()
                  .setName("r")
                  .addVirtualHosts(
                      VirtualHost.newBuilder()
                          .setName("v")
                          .addDomains("*")
                          .addRoutes(
                              Route.newBuilder()
                                  .setMatch(RouteMatch.newBuilder().setPrefix("/"))
                                  .setNonForwardingAction(
                                      NonForwardingAction.getDefaultInstance()))))
          .addHttpFilters(Resources.router())
          .build();

  private static FilterChain.Builder chain(String name) {
    return FilterChain.newBuilder()
        .setName(name)
        .addFilters(Filter.newBuilder().setName("hcm").setTypedConfig(Any.pack(HCM)));
  }

  private static Listener.Builder listener() {
    return Listener.newBuilder()
        .setName("s")
        .setAddress(
            Address.newBuilder()
                .setSocketAddress(
                    SocketAddress.newBuilder().setAddress("0.0.0.0").setPortValue(8080)));
  }

  private static CidrRange range(String prefix, int length) {
    return CidrRange.newBuilder()
        .setAddressPrefix(prefix)
        .setPrefixLen(UInt32Value.of(length))
        .build();
  }

  private static void assertNack(Listener listener, String message) {
    assertThatThrownBy(() -> XdsResourceType.LISTENER.validate(listener))
        .isInstanceOf(XdsResourceException.class)
        .hasMessageContaining(message);
  }

  private static Listener withChain(UnaryOperator<FilterChain.Builder> edit) {
    return listener().addFilterChains(edit.apply(chain("c"))).build();
  }

  @Test
  void validServerListener_keepsItsChainsMatchesAndRoutes() throws Exception {
    Listener listener =
        listener()
            .addFilterChains(
                chain("a")
                    .setFilterChainMatch(
                        FilterChainMatch.newBuilder()
                            .addPrefixRanges(range("10.1.2.3", 16))
                            .setSourceType(FilterChainMatch.ConnectionSourceType.EXTERNAL)
                            .addSourcePorts(443)))
            .addFilterChains(
                chain("sni").setFilterChainMatch(FilterChainMatch.newBuilder().addServerNames("x")))
            .setDefaultFilterChain(chain("default"))
            .build();

    XdsServerListener server = XdsResourceType.LISTENER.validate(listener).server();

    assertThat(server.host()).isEqualTo("0.0.0.0");
    assertThat(server.port()).isEqualTo(8080);
    XdsServerListener.FilterChainMatch a = server.filterChains().get(0).match();
    assertThat(a.prefixRanges()).extracting(Object::toString).containsExactly("10.1.0.0/16");
    assertThat(a.sourceType()).isEqualTo(XdsServerListener.SourceType.EXTERNAL);
    assertThat(a.sourcePorts()).containsExactly(443);
    assertThat(a.neverMatches()).isFalse();
    assertThat(server.filterChains().get(1).match().neverMatches()).isTrue(); // server_names
    assertThat(server.defaultFilterChain().name()).isEqualTo("default");
    XdsRouteConfig.Route route =
        server
            .defaultFilterChain()
            .connectionManager()
            .inlineRoutes()
            .virtualHosts()
            .get(0)
            .routes()
            .get(0);
    assertThat(route.nonForwarding()).isTrue();
  }

  @Test
  void overlappingChains_nameBoth() {
    FilterChainMatch match = FilterChainMatch.newBuilder().addSourcePorts(1234).build();
    assertNack(
        listener()
            .addFilterChains(chain("x").setFilterChainMatch(match))
            .addFilterChains(chain("y").setFilterChainMatch(match))
            .build(),
        "filter_chains[0] \"x\" and filter_chains[1] \"y\" overlap");
  }

  @Test
  void chainsThatDifferInOneRangeOrNeverMatch_doNotOverlap() throws Exception {
    FilterChainMatch sni = FilterChainMatch.newBuilder().addServerNames("a").build();
    Listener listener =
        listener()
            .addFilterChains(
                chain("x")
                    .setFilterChainMatch(
                        FilterChainMatch.newBuilder().addPrefixRanges(range("10.0.0.0", 8))))
            .addFilterChains(
                chain("y")
                    .setFilterChainMatch(
                        FilterChainMatch.newBuilder().addPrefixRanges(range("10.0.0.0", 9))))
            .addFilterChains(chain("z").setFilterChainMatch(sni))
            .addFilterChains(chain("w").setFilterChainMatch(sni))
            .build();
    assertThat(XdsResourceType.LISTENER.validate(listener).server().filterChains()).hasSize(4);
  }

  @Test
  void badInput_isNackedNamingTheField() {
    assertNack(
        listener().setAddress(Address.getDefaultInstance()).build(),
        "Listener \"s\": address.socket_address: missing");
    assertNack(
        listener()
            .setAddress(
                Address.newBuilder()
                    .setSocketAddress(SocketAddress.newBuilder().setAddress("example.com")))
            .build(),
        "address.socket_address.port_value: missing");
    assertNack(
        withChain(c -> c.setTransportSocket(TransportSocket.newBuilder().setName("tls"))),
        "filter_chains[0].transport_socket.typed_config: missing");
    assertNack(
        withChain(
            c ->
                c.setTransportSocket(
                    TransportSocket.newBuilder()
                        .setName("tls")
                        .setTypedConfig(Any.pack(Struct.getDefaultInstance())))),
        "filter_chains[0].transport_socket.typed_config: type.googleapis.com/google.protobuf.Struct"
            + " is not supported");
    assertNack(withChain(c -> c.addFilters(c.getFilters(0))), "exactly one");
    assertNack(
        withChain(
            c ->
                c.setFilters(
                    0,
                    Filter.newBuilder()
                        .setName("tcp")
                        .setTypedConfig(Any.pack(Struct.getDefaultInstance())))),
        "filter_chains[0].filters[0] \"tcp\": filter type");
    assertNack(
        withChain(
            c ->
                c.setFilterChainMatch(
                    FilterChainMatch.newBuilder().addPrefixRanges(range("somehost", 8)))),
        "filter_chains[0].filter_chain_match.prefix_ranges[0].address_prefix: \"somehost\" is not an IP address");
    assertNack(
        withChain(
            c ->
                c.setFilterChainMatch(
                    FilterChainMatch.newBuilder().addSourcePrefixRanges(range("10.0.0.0", 33)))),
        "source_prefix_ranges[0].prefix_len: 33 is more than 32");
    assertNack(
        withChain(c -> c.setFilterChainMatch(FilterChainMatch.newBuilder().addSourcePorts(70000))),
        "source_ports[0]: 70000 is not a port");
    assertNack(
        withChain(
            c ->
                c.setFilters(
                    0,
                    Filter.newBuilder()
                        .setName("hcm")
                        .setTypedConfig(Any.pack(HCM.toBuilder().clearHttpFilters().build())))),
        "filter_chains[0].filters[0].http_filters: empty");
  }

  @Test
  void clientOnlyHttpFilter_isNackedUnlessOptional() throws Exception {
    io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter fault =
        io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter
            .newBuilder()
            .setName("fault")
            .setTypedConfig(
                Any.pack(
                    io.envoyproxy.envoy.extensions.filters.http.fault.v3.HTTPFault
                        .getDefaultInstance()))
            .build();
    HttpConnectionManager withFault =
        HCM.toBuilder()
            .clearHttpFilters()
            .addHttpFilters(fault)
            .addHttpFilters(Resources.router())
            .build();
    assertNack(
        withChain(
            c ->
                c.setFilters(
                    0, Filter.newBuilder().setName("hcm").setTypedConfig(Any.pack(withFault)))),
        "filter_chains[0].filters[0].http_filters \"fault\": filter type"
            + " type.googleapis.com/envoy.extensions.filters.http.fault.v3.HTTPFault is not"
            + " supported on servers");

    HttpConnectionManager withOptionalFault =
        HCM.toBuilder()
            .clearHttpFilters()
            .addHttpFilters(fault.toBuilder().setIsOptional(true))
            .addHttpFilters(Resources.router())
            .build();
    XdsListener kept =
        XdsResourceType.LISTENER.validate(
            withChain(
                c ->
                    c.setFilters(
                        0,
                        Filter.newBuilder()
                            .setName("hcm")
                            .setTypedConfig(Any.pack(withOptionalFault)))));
    assertThat(kept.server().filterChains().get(0).connectionManager().httpFilters())
        .extracting(XdsListener.HttpFilter::name)
        .containsExactly(Resources.router().getName());
  }
}
