package dev.tern.xds.internal.lb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.ClientStreamTracer;
import dev.tern.ConnectivityState;
import dev.tern.InsecureChannelCredentials;
import dev.tern.LoadBalancer;
import dev.tern.Metadata;
import dev.tern.NameResolver.ConfigOrError;
import dev.tern.PerAddressChannelCredentials;
import dev.tern.Status;
import dev.tern.TlsChannelCredentials;
import dev.tern.internal.config.JsonParser;
import dev.tern.testtools.TestPems;
import dev.tern.xds.Bootstrap;
import dev.tern.xds.XdsClient;
import dev.tern.xds.XdsCluster;
import dev.tern.xds.XdsTlsContext;
import dev.tern.xds.client.XdsChannelCredentials;
import dev.tern.xds.internal.XdsAttributes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ClusterImplBalancerTest {
  /** A server certificate with the SAN spiffe://tern.test/server, its own root. */
  private static TestPems server;

  private final RecordingHelper helper = new RecordingHelper();
  private final AtomicLong counter = new AtomicLong();
  // Steps through [0, 1000000) by 1000: 1000 draws cover it evenly.
  private final ClusterImplBalancer balancer =
      new ClusterImplBalancer(helper, bound -> (counter.getAndIncrement() * 1000) % bound);

  @BeforeAll
  static void generateCertificate() throws Exception {
    server = TestPems.generate("server", "uri:spiffe://tern.test/server");
  }

  @AfterEach
  void shutdown() {
    helper.run(balancer::shutdown);
  }

  private void accept(String json) {
    accept(helper, balancer, json);
  }

  private static void accept(RecordingHelper helper, ClusterImplBalancer balancer, String json) {
    ConfigOrError parsed =
        new ClusterImplProvider().parseLoadBalancingPolicyConfig(JsonParser.parseObject(json));
    assertThat(parsed.getError()).isNull();
    helper.run(
        () ->
            balancer.acceptResolvedAddresses(
                LoadBalancer.ResolvedAddresses.newBuilder()
                    .setAddresses(List.of(RecordingHelper.endpoint(1000)))
                    .setLoadBalancingPolicyConfig(parsed.getConfig())
                    .build()));
    helper.run(() -> helper.subchannel(1000).setState(ConnectivityState.READY));
  }

  @Test
  void dropsEachCategoryAtItsRate() {
    accept(
        "{\"cluster\": \"c1\", \"childPolicy\": [{\"round_robin\": {}}], \"dropCategories\": ["
            + "{\"category\": \"lb\", \"requestsPerMillion\": 250000}]}");
    int dropped = 0;
    for (int i = 0; i < 1000; i++) {
      LoadBalancer.PickResult result = helper.pick();
      if (result.isDrop()) {
        dropped++;
        assertThat(result.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(result.getStatus().getDescription()).isEqualTo("dropped by load balancer: lb");
      } else {
        assertThat(result.getSubchannel()).isSameAs(helper.subchannel(1000));
      }
    }
    assertThat(dropped).isEqualTo(250);
  }

  @Test
  void refusesCallsBeyondMaxRequestsAndReusesFreedSlots() {
    accept(
        "{\"cluster\": \"c1\", \"maxConcurrentRequests\": 2,"
            + " \"childPolicy\": [{\"round_robin\": {}}]}");
    List<ClientStreamTracer> open = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      open.add(startStream(helper.pick()));
    }
    LoadBalancer.PickResult third = helper.pick();
    assertThat(third.isDrop()).isTrue();
    assertThat(third.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(third.getStatus().getDescription())
        .isEqualTo("cluster c1: circuit breaker open, max_requests 2 calls in flight");

    open.get(0).streamClosed(Status.OK);
    open.get(0).streamClosed(Status.OK); // a second close must not free a second slot
    ClientStreamTracer reused = startStream(helper.pick());
    assertThat(helper.pick().isDrop()).isTrue();
    reused.streamClosed(Status.CANCELLED);
    open.get(1).streamClosed(Status.OK);
    assertThat(helper.pick().isDrop()).isFalse();
  }

  @Test
  void inFlightCountSurvivesANewPicker() {
    accept(
        "{\"cluster\": \"c1\", \"maxConcurrentRequests\": 1,"
            + " \"childPolicy\": [{\"round_robin\": {}}]}");
    startStream(helper.pick());
    accept(
        "{\"cluster\": \"c1\", \"maxConcurrentRequests\": 1,"
            + " \"childPolicy\": [{\"round_robin\": {}}]}");
    assertThat(helper.pick().isDrop()).isTrue();
  }

  @Test
  void balancersOfOneClusterShareTheLimitAcrossChannels() {
    String config =
        "{\"cluster\": \"shared\", \"edsServiceName\": \"e1\", \"maxConcurrentRequests\": 2,"
            + " \"childPolicy\": [{\"round_robin\": {}}]}";
    RecordingHelper otherHelper = new RecordingHelper();
    ClusterImplBalancer other = new ClusterImplBalancer(otherHelper, bound -> 0);
    accept(config);
    accept(otherHelper, other, config);
    ClientStreamTracer first = startStream(helper.pick());
    startStream(otherHelper.pick());
    // Two calls in flight across both balancers: the third is refused in either.
    assertThat(helper.pick().getStatus().getDescription())
        .isEqualTo("cluster shared: circuit breaker open, max_requests 2 calls in flight");
    assertThat(otherHelper.pick().isDrop()).isTrue();

    first.streamClosed(Status.OK);
    startStream(otherHelper.pick()); // the slot freed in one balancer is used by the other
    assertThat(helper.pick().isDrop()).isTrue();

    otherHelper.run(other::shutdown);
    assertThat(ClusterCallCounters.isTracked("shared", "e1")).isTrue();
    helper.run(balancer::shutdown);
    assertThat(ClusterCallCounters.isTracked("shared", "e1")).isFalse();
  }

  @Test
  void anotherEdsServiceNameOrClusterCountsApart() {
    String json =
        "{\"cluster\": \"%s\", \"edsServiceName\": \"%s\", \"maxConcurrentRequests\": 1,"
            + " \"childPolicy\": [{\"round_robin\": {}}]}";
    accept(String.format(json, "apart", "e1"));
    startStream(helper.pick());
    assertThat(helper.pick().isDrop()).isTrue();
    for (String[] key : new String[][] {{"apart", "e2"}, {"apart2", "e1"}}) {
      RecordingHelper otherHelper = new RecordingHelper();
      ClusterImplBalancer other = new ClusterImplBalancer(otherHelper, bound -> 0);
      accept(otherHelper, other, String.format(json, key[0], key[1]));
      assertThat(otherHelper.pick().isDrop()).isFalse();
      otherHelper.run(other::shutdown);
      assertThat(ClusterCallCounters.isTracked(key[0], key[1])).isFalse();
    }
  }

  @Test
  void aBalancerMovedToAnotherClusterReleasesTheOldCounter() {
    accept(
        "{\"cluster\": \"before\", \"maxConcurrentRequests\": 1,"
            + " \"childPolicy\": [{\"round_robin\": {}}]}");
    startStream(helper.pick());
    accept(
        "{\"cluster\": \"after\", \"maxConcurrentRequests\": 1,"
            + " \"childPolicy\": [{\"round_robin\": {}}]}");
    assertThat(ClusterCallCounters.isTracked("before", null)).isFalse();
    assertThat(helper.pick().isDrop()).isFalse();
  }

  @Test
  void badConfigsAreRejectedNamingTheField() {
    ClusterImplProvider provider = new ClusterImplProvider();
    assertThat(
            provider
                .parseLoadBalancingPolicyConfig(
                    JsonParser.parseObject(
                        "{\"cluster\": \"c\", \"childPolicy\": [{\"round_robin\": {}}],"
                            + " \"dropCategories\": [{\"category\": \"x\","
                            + " \"requestsPerMillion\": 1000001}]}"))
                .getError()
                .getDescription())
        .isEqualTo(
            "cluster_impl_experimental config: dropCategories[0].requestsPerMillion: must be at"
                + " most 1000000, was 1000001");
    assertThat(
            provider
                .parseLoadBalancingPolicyConfig(Map.of("childPolicy", List.of()))
                .getError()
                .getDescription())
        .isEqualTo("cluster_impl_experimental config: cluster: missing");
  }

  /**
   * The cluster's TLS changes under each endpoint policy an xDS cluster can have: the policy keeps
   * its subchannel (its address did not change), and what that subchannel's next connection attempt
   * reads from its address group is the new TLS.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "round_robin",
        "least_request",
        RingHashProvider.NAME,
        WeightedRoundRobinProvider.NAME
      })
  void changedTls_reachesTheNextConnectionOfTheKeptSubchannel_andResetsTheBackoff(
      String endpointPolicy, @TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("roots.pem"), server.certificatePem);
    XdsClient client =
        XdsClient.create(
            Bootstrap.parse(
                "{\"xds_servers\": [{\"server_uri\": \"127.0.0.1:9\", \"channel_creds\":"
                    + " [{\"type\": \"insecure\"}]}], \"node\": {\"id\": \"n1\"},"
                    + " \"certificate_providers\": {\"roots\": {\"plugin_name\":"
                    + " \"file_watcher\", \"config\": {\"ca_certificate_file\": \""
                    + dir.resolve("roots.pem")
                    + "\"}}}}",
                "test"));
    try {
      ChildPolicy child = ChildPolicy.of(endpointPolicy, Map.of());
      acceptTls(client, child, sanTls("spiffe://tern.test/other"));
      RecordingHelper.FakeSubchannel subchannel = helper.subchannel(1000);
      helper.run(subchannel::fail);
      X509Certificate[] chain = {server.certificate};
      assertThatThrownBy(() -> trustOf(subchannel).checkServerTrusted(chain, "UNKNOWN"))
          .isInstanceOf(CertificateException.class)
          .hasMessageContaining("xDS SAN check failed");
      assertThat(helper.backoffResets).isZero();

      acceptTls(client, child, sanTls("spiffe://tern.test/server"));

      assertThat(helper.subchannels).containsExactly(subchannel);
      assertThat(subchannel.shutdown).isFalse();
      trustOf(subchannel).checkServerTrusted(chain, "UNKNOWN"); // the server is trusted now
      assertThat(helper.backoffResets).isEqualTo(1); // the failing endpoint retries at once

      acceptTls(client, child, sanTls("spiffe://tern.test/server")); // same TLS: nothing to redo
      assertThat(helper.backoffResets).isEqualTo(1);

      acceptTls(client, child, null); // the cluster drops TLS: the channel's fallback
      assertThat(credentialsOf(subchannel)).isNull();
      assertThat(helper.subchannels).containsExactly(subchannel);
      assertThat(helper.backoffResets).isEqualTo(2);
    } finally {
      client.close();
    }
  }

  private static XdsTlsContext sanTls(String san) {
    return new XdsTlsContext(
        null,
        "roots",
        false,
        List.of(new XdsTlsContext.SanMatcher(XdsTlsContext.Kind.EXACT, san, null, false)));
  }

  private void acceptTls(XdsClient client, ChildPolicy child, XdsTlsContext tls) {
    ClusterImplConfig config =
        new ClusterImplConfig(
            "tls-cluster", null, XdsCluster.DEFAULT_MAX_REQUESTS, List.of(), child, tls, false);
    Status[] status = new Status[1];
    helper.run(
        () ->
            status[0] =
                balancer.acceptResolvedAddresses(
                    LoadBalancer.ResolvedAddresses.newBuilder()
                        .setAddresses(List.of(RecordingHelper.endpoint(1000)))
                        .setAttributes(
                            Attributes.newBuilder().set(XdsAttributes.XDS_CLIENT, client).build())
                        .setLoadBalancingPolicyConfig(config)
                        .build()));
    assertThat(status[0].isOk()).as("%s", status[0]).isTrue();
  }

  /** The TLS credentials a new connection of {@code subchannel} gets (null: the fallback's). */
  private static TlsChannelCredentials credentialsOf(RecordingHelper.FakeSubchannel subchannel) {
    PerAddressChannelCredentials credentials =
        (PerAddressChannelCredentials)
            XdsChannelCredentials.create(InsecureChannelCredentials.create());
    return credentials.credentialsFor(subchannel.getAllAddresses().get(0).getAttributes());
  }

  private static X509TrustManager trustOf(RecordingHelper.FakeSubchannel subchannel) {
    return (X509TrustManager) credentialsOf(subchannel).getTrustManagers().get(0);
  }

  private static ClientStreamTracer startStream(LoadBalancer.PickResult result) {
    assertThat(result.getSubchannel()).isNotNull();
    return result
        .getStreamTracerFactory()
        .newClientStreamTracer(
            new ClientStreamTracer.StreamInfo(CallOptions.DEFAULT), new Metadata());
  }
}
