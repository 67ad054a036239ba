package dev.tern.xds.internal.lb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Attributes;
import dev.tern.ConnectivityState;
import dev.tern.EquivalentAddressGroup;
import dev.tern.LoadBalancer;
import dev.tern.NameResolver;
import dev.tern.NameResolverProvider;
import dev.tern.NameResolverRegistry;
import dev.tern.Status;
import dev.tern.internal.config.JsonParser;
import dev.tern.xds.Bootstrap;
import dev.tern.xds.XdsClient;
import dev.tern.xds.XdsEndpoints;
import dev.tern.xds.internal.XdsAttributes;
import java.net.SocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ClusterResolverBalancerTest {
  private final RecordingHelper helper = new RecordingHelper();
  private final List<URI> resolved = new ArrayList<>();
  private NameResolver.Listener dnsListener;
  private int dnsRefreshes;
  // Never connects: these tests use only LOGICAL_DNS, which does not go through the XdsClient.
  private final XdsClient client =
      XdsClient.create(
          Bootstrap.parse(
              "{\"xds_servers\": [{\"server_uri\": \"127.0.0.1:9\", \"channel_creds\": [{\"type\":"
                  + " \"insecure\"}]}], \"node\": {\"id\": \"n1\"}}",
              "test"));

  @AfterEach
  void close() {
    client.close();
  }

  private NameResolverRegistry dnsRegistry() {
    NameResolverRegistry registry = new NameResolverRegistry();
    registry.register(
        new NameResolverProvider() {
          @Override
          public boolean isAvailable() {
            return true;
          }

          @Override
          public int priority() {
            return 5;
          }

          @Override
          public String getScheme() {
            return "dns";
          }

          @Override
          public Collection<Class<? extends SocketAddress>> getProducedSocketAddressTypes() {
            return List.of();
          }

          @Override
          public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
            resolved.add(targetUri);
            return new NameResolver() {
              @Override
              public String getServiceAuthority() {
                return targetUri.getPath().substring(1);
              }

              @Override
              public void start(Listener listener) {
                dnsListener = listener;
              }

              @Override
              public void refresh() {
                dnsRefreshes++;
              }

              @Override
              public void shutdown() {}
            };
          }
        });
    return registry;
  }

  private Status accept(LoadBalancer balancer, String json, Attributes attributes) {
    Object config =
        new ClusterResolverProvider()
            .parseLoadBalancingPolicyConfig(JsonParser.parseObject(json))
            .getConfig();
    Status[] status = new Status[1];
    helper.run(
        () ->
            status[0] =
                balancer.acceptResolvedAddresses(
                    LoadBalancer.ResolvedAddresses.newBuilder()
                        .setAttributes(attributes)
                        .setLoadBalancingPolicyConfig(config)
                        .build()));
    return status[0];
  }

  @Test
  void logicalDnsClusterResolvesThroughTheDnsResolverIntoOneEndpoint() {
    ClusterResolverBalancer balancer = new ClusterResolverBalancer(helper, dnsRegistry());
    accept(
        balancer,
        "{\"discoveryMechanisms\": [{\"cluster\": \"dns-c\", \"type\": \"LOGICAL_DNS\","
            + " \"dnsHostname\": \"backend.example:8443\"}], \"xdsLbPolicy\": [{\"round_robin\":"
            + " {}}]}",
        Attributes.newBuilder().set(XdsAttributes.XDS_CLIENT, client).build());
    assertThat(resolved).containsExactly(URI.create("dns:///backend.example:8443"));
    assertThat(helper.subchannels).isEmpty();

    helper.run(
        () ->
            dnsListener.onResult(
                NameResolver.ResolutionResult.newBuilder()
                    .setAddresses(
                        List.of(
                            new EquivalentAddressGroup(RecordingHelper.address(1001)),
                            new EquivalentAddressGroup(RecordingHelper.address(1002))))
                    .build()));
    assertThat(helper.subchannels).hasSize(1);
    assertThat(helper.subchannels.get(0).getAllAddresses().get(0).getAddresses())
        .containsExactly(RecordingHelper.address(1001), RecordingHelper.address(1002));
    // auto_host_sni's name for it (A101): the DNS name.
    assertThat(
            helper
                .subchannels
                .get(0)
                .getAllAddresses()
                .get(0)
                .getAttributes()
                .get(XdsAttributes.ENDPOINT_HOSTNAME))
        .isEqualTo("backend.example");
    helper.run(() -> helper.subchannels.get(0).setState(ConnectivityState.READY));
    assertThat(helper.state).isEqualTo(ConnectivityState.READY);
    assertThat(helper.pick().getSubchannel()).isSameAs(helper.subchannels.get(0));

    // The endpoint's connection breaks: round_robin asks to re-resolve, which reaches DNS too.
    helper.run(() -> helper.subchannels.get(0).setState(ConnectivityState.IDLE));
    assertThat(dnsRefreshes).isEqualTo(1);
    assertThat(helper.refreshes).isEqualTo(1);
    helper.run(balancer::shutdown);
    assertThat(helper.subchannels.get(0).shutdown).isTrue();
  }

  @Test
  void dnsFailureWithNothingResolvedFailsTheChannelNamingTheHost() {
    ClusterResolverBalancer balancer = new ClusterResolverBalancer(helper, dnsRegistry());
    accept(
        balancer,
        "{\"discoveryMechanisms\": [{\"cluster\": \"dns-c\", \"type\": \"LOGICAL_DNS\","
            + " \"dnsHostname\": \"nowhere.example:80\"}], \"xdsLbPolicy\": [{\"round_robin\":"
            + " {}}]}",
        Attributes.newBuilder().set(XdsAttributes.XDS_CLIENT, client).build());
    helper.run(() -> dnsListener.onError(Status.UNAVAILABLE.withDescription("no such host")));
    assertThat(helper.state).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    assertThat(helper.pick().getStatus().getDescription())
        .isEqualTo(
            "no endpoints for clusters [dns-c]: [LOGICAL_DNS nowhere.example:80: no such host]");
    helper.run(balancer::shutdown);
  }

  @Test
  void withoutAnXdsClientTheChannelFails() {
    ClusterResolverBalancer balancer = new ClusterResolverBalancer(helper, dnsRegistry());
    Status status =
        accept(
            balancer,
            "{\"discoveryMechanisms\": [{\"cluster\": \"c1\", \"type\": \"EDS\"}],"
                + " \"xdsLbPolicy\": [{\"round_robin\": {}}]}",
            Attributes.EMPTY);
    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(helper.state).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    assertThat(helper.pick().getStatus().getDescription())
        .isEqualTo("cluster_resolver_experimental: no XdsClient in the resolver's attributes");
  }

  @Test
  void edsEndpointsBecomeLocalitiesByPriorityWithoutUnhealthyOnes() {
    XdsEndpoints endpoints =
        new XdsEndpoints(
            "c1",
            List.of(
                new XdsEndpoints.LocalityEndpoints(
                    "r",
                    "z1",
                    "",
                    3,
                    0,
                    List.of(
                        new XdsEndpoints.Endpoint(
                            "127.0.0.1", 1001, XdsEndpoints.HealthStatus.HEALTHY, 7, "b-1.test"),
                        new XdsEndpoints.Endpoint(
                            "127.0.0.1", 1002, XdsEndpoints.HealthStatus.UNHEALTHY, 1),
                        new XdsEndpoints.Endpoint(
                            "127.0.0.1", 1003, XdsEndpoints.HealthStatus.DRAINING, 1))),
                new XdsEndpoints.LocalityEndpoints(
                    "r",
                    "z2",
                    "",
                    1,
                    1,
                    List.of(
                        new XdsEndpoints.Endpoint(
                            "127.0.0.1", 1004, XdsEndpoints.HealthStatus.UNKNOWN, 0)))),
            List.of(new XdsEndpoints.DropOverload("lb", 100)));
    Resolution resolution = EdsWatch.toResolution(endpoints);
    assertThat(resolution.priorities()).hasSize(2);
    Resolution.Locality z1 = resolution.priorities().get(0).get(0);
    assertThat(z1.name()).isEqualTo("r/z1/");
    assertThat(z1.weight()).isEqualTo(3);
    assertThat(z1.endpoints()).hasSize(1);
    assertThat(z1.endpoints().get(0).getAddresses()).containsExactly(RecordingHelper.address(1001));
    assertThat(z1.endpoints().get(0).getAttributes().get(AddressPath.ENDPOINT_WEIGHT)).isEqualTo(7);
    assertThat(z1.endpoints().get(0).getAttributes().get(XdsAttributes.ENDPOINT_HOSTNAME))
        .isEqualTo("b-1.test");
    assertThat(resolution.priorities().get(1).get(0).endpoints()).hasSize(1);
    assertThat(
            resolution
                .priorities()
                .get(1)
                .get(0)
                .endpoints()
                .get(0)
                .getAttributes()
                .get(XdsAttributes.ENDPOINT_HOSTNAME))
        .isNull();
    assertThat(resolution.drops()).containsExactly(new XdsEndpoints.DropOverload("lb", 100));

    PriorityTree tree =
        PriorityTree.build(
            List.of(
                new PriorityTree.Found(
                    new ClusterResolverConfig.DiscoveryMechanism(
                        "c1", dev.tern.xds.XdsCluster.Type.EDS, null, null, 10, null, null, false),
                    resolution)),
            ChildPolicy.of("round_robin", java.util.Map.of()));
    assertThat(tree.config().priorities()).containsExactly("c1[child0]", "c1[child1]");
    assertThat(tree.addresses().get(0).getAttributes().get(AddressPath.PATH))
        .containsExactly("c1[child0]", "r/z1/");
  }
}
