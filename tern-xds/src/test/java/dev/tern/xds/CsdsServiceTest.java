package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.TypeRegistry;
import com.google.protobuf.util.JsonFormat;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.services.AdminServices;
import dev.tern.testing.LogCapture;
import dev.tern.testtools.ExternalTool;
import io.envoyproxy.envoy.admin.v3.ClientResourceStatus;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.cluster.v3.ClusterProto;
import io.envoyproxy.envoy.config.endpoint.v3.EndpointProto;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.listener.v3.ListenerProto;
import io.envoyproxy.envoy.config.route.v3.RouteProto;
import io.envoyproxy.envoy.extensions.filters.http.router.v3.Router;
import io.envoyproxy.envoy.extensions.filters.http.router.v3.RouterProto;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManagerProto;
import io.envoyproxy.envoy.service.status.v3.ClientConfig.GenericXdsConfig;
import io.envoyproxy.envoy.service.status.v3.ClientStatusDiscoveryServiceTern;
import io.envoyproxy.envoy.service.status.v3.ClientStatusRequest;
import io.envoyproxy.envoy.service.status.v3.ClientStatusResponse;
import io.envoyproxy.envoy.service.status.v3.CsdsProto;
import io.envoyproxy.envoy.type.matcher.v3.NodeMatcher;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CSDS (gRFC A40) reports what an XdsClient holds, fed by a real control plane: ACKED resources
 * with their version and content, a NACKED one with the rejected version and the reason while the
 * last good version stays, and one that does not exist. Read through Tern's stub and through
 * grpcurl, a real CSDS client, from an admin server.
 */
class CsdsServiceTest {
  private static final String NODE = "csds-node";
  private static final String LDS = XdsResourceType.LISTENER.typeUrl();
  private static final String CDS = XdsResourceType.CLUSTER.typeUrl();
  private static final TypeRegistry TYPES =
      TypeRegistry.newBuilder()
          .add(Listener.getDescriptor())
          .add(HttpConnectionManager.getDescriptor())
          .add(Router.getDescriptor())
          .add(Cluster.getDescriptor())
          .build();

  @TempDir Path temp;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private <T extends AutoCloseable> T closeLater(T closeable) {
    closeables.add(closeable);
    return closeable;
  }

  @Test
  void adminServicesIncludeCsds() {
    assertThat(AdminServices.getStandardServices())
        .extracting(d -> d.getServiceDescriptor().getName())
        .contains(
            "grpc.channelz.v1.Channelz", "envoy.service.status.v3.ClientStatusDiscoveryService");
  }

  /** A control plane serving l1 -> r1 -> c1 -> e1 at version 1 and a client watching them all. */
  private XdsClient clientHoldingVersionOne(ControlPlaneProcess cp) throws Exception {
    cp.setSnapshot(
        NODE,
        "1",
        List.of(
            Resources.listener("l1", "r1"),
            Resources.routes("r1", "c1"),
            Resources.edsCluster("c1", "e1").build(),
            Resources.endpoints("e1", 8080)));
    String json = cp.bootstrapJson(NODE);
    XdsClient client =
        closeLater(
            XdsClient.create(
                Bootstrap.parse(json, "test bootstrap"),
                XdsClient.Options.defaults().withDoesNotExistTimeout(Duration.ofMillis(300))));
    RecordingWatcher<XdsCluster> cluster = new RecordingWatcher<>();
    client.watch(XdsResourceType.CLUSTER, "c1", cluster);
    cluster.awaitChanged();
    RecordingWatcher<XdsListener> listener = new RecordingWatcher<>();
    client.watch(XdsResourceType.LISTENER, "l1", listener);
    listener.awaitChanged();
    RecordingWatcher<XdsListener> missing = new RecordingWatcher<>();
    client.watch(XdsResourceType.LISTENER, "nowhere", missing);
    assertThat(missing.awaitDoesNotExist()).isEqualTo("nowhere");

    // Version 2 breaks c1 (a cluster type Tern does not support): NACKed, version 1 stays.
    try (LogCapture logs = new LogCapture(XdsClient.class)) {
      cp.setSnapshot(
          NODE,
          "2",
          List.of(
              Resources.listener("l1", "r1"),
              Resources.routes("r1", "c1"),
              Resources.edsCluster("c1", "e1").setType(Cluster.DiscoveryType.STATIC).build(),
              Resources.endpoints("e1", 8080)));
      cluster.awaitError();
      cp.awaitRequest(
          r -> r.node().equals(NODE) && r.typeUrl().equals(LDS) && r.versionInfo().equals("2"),
          "the ACK of listener version 2");
      assertThat(logs.records()).isNotEmpty(); // the NACK's warning, kept out of the build log
    }
    return client;
  }

  private Server adminServer(XdsClient client) throws Exception {
    ServerServiceDefinition csds = CsdsService.forClients(() -> List.of(client)).bindService();
    Server server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(csds)
            .build()
            .start();
    closeLater(() -> server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS));
    return server;
  }

  private static Map<String, GenericXdsConfig> byName(ClientStatusResponse response) {
    assertThat(response.getConfigCount()).isEqualTo(1);
    assertThat(response.getConfig(0).getNode().getId()).isEqualTo(NODE);
    Map<String, GenericXdsConfig> out = new LinkedHashMap<>();
    for (GenericXdsConfig config : response.getConfig(0).getGenericXdsConfigsList()) {
      out.put(config.getTypeUrl() + " " + config.getName(), config);
    }
    return out;
  }

  private static void assertReportsVersionOneAndTheNack(ClientStatusResponse response)
      throws Exception {
    Map<String, GenericXdsConfig> configs = byName(response);
    assertThat(configs).containsOnlyKeys(LDS + " l1", LDS + " nowhere", CDS + " c1");

    GenericXdsConfig l1 = configs.get(LDS + " l1");
    assertThat(l1.getClientStatus()).isEqualTo(ClientResourceStatus.ACKED);
    assertThat(l1.getVersionInfo()).isEqualTo("2");
    assertThat(l1.getXdsConfig().unpack(Listener.class).getName()).isEqualTo("l1");
    assertThat(l1.hasLastUpdated()).isTrue();

    GenericXdsConfig nowhere = configs.get(LDS + " nowhere");
    assertThat(nowhere.getClientStatus()).isEqualTo(ClientResourceStatus.DOES_NOT_EXIST);
    assertThat(nowhere.hasXdsConfig()).isFalse();

    GenericXdsConfig c1 = configs.get(CDS + " c1");
    assertThat(c1.getClientStatus()).isEqualTo(ClientResourceStatus.NACKED);
    assertThat(c1.getVersionInfo()).isEqualTo("1");
    assertThat(c1.getXdsConfig().unpack(Cluster.class).getType())
        .isEqualTo(Cluster.DiscoveryType.EDS);
    assertThat(c1.getErrorState().getVersionInfo()).isEqualTo("2");
    assertThat(c1.getErrorState().getDetails()).contains("Cluster \"c1\"", "STATIC");
    assertThat(c1.getErrorState().getFailedConfiguration().unpack(Cluster.class).getType())
        .isEqualTo(Cluster.DiscoveryType.STATIC);
  }

  @Test
  void fetchClientStatusReportsAckedNackedAndMissingResources() throws Exception {
    ControlPlaneProcess cp = closeLater(ControlPlaneProcess.start());
    XdsClient client = clientHoldingVersionOne(cp);
    Server admin = adminServer(client);
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", admin.getPort()).usePlaintext().build();
    closeLater(() -> channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS));
    var stub = ClientStatusDiscoveryServiceTern.newBlockingStub(channel);

    assertReportsVersionOneAndTheNack(
        stub.fetchClientStatus(ClientStatusRequest.getDefaultInstance()));

    // The streaming method answers each request the same way.
    var streaming =
        ClientStatusDiscoveryServiceTern.newBlockingV2Stub(channel).streamClientStatus();
    streaming.write(ClientStatusRequest.getDefaultInstance());
    assertReportsVersionOneAndTheNack(streaming.read());
    streaming.write(ClientStatusRequest.getDefaultInstance());
    assertReportsVersionOneAndTheNack(streaming.read());
    streaming.halfClose();

    assertThatThrownBy(
            () ->
                stub.fetchClientStatus(
                    ClientStatusRequest.newBuilder()
                        .addNodeMatchers(NodeMatcher.getDefaultInstance())
                        .build()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription()).contains("node_matchers");
            });
  }

  @Test
  void grpcurlReadsTheClientStatus() throws Exception {
    Path grpcurl = ExternalTool.require("grpcurl");
    ControlPlaneProcess cp = closeLater(ControlPlaneProcess.start());
    XdsClient client = clientHoldingVersionOne(cp);
    Server admin = adminServer(client);

    // grpcurl learns CSDS and the resource types inside its Anys from a descriptor set.
    Path protoset = temp.resolve("csds.protoset");
    Files.write(
        protoset,
        descriptorSet(
                CsdsProto.getDescriptor(),
                ListenerProto.getDescriptor(),
                HttpConnectionManagerProto.getDescriptor(),
                RouterProto.getDescriptor(),
                RouteProto.getDescriptor(),
                ClusterProto.getDescriptor(),
                EndpointProto.getDescriptor())
            .toByteArray());
    Path out = temp.resolve("out.json");
    Path err = temp.resolve("err.txt");
    Process process =
        new ProcessBuilder(
                grpcurl.toString(),
                "-plaintext",
                "-max-time",
                "20",
                "-protoset",
                protoset.toString(),
                "-d",
                "{}",
                "127.0.0.1:" + admin.getPort(),
                "envoy.service.status.v3.ClientStatusDiscoveryService/FetchClientStatus")
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    try {
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("grpcurl finished").isTrue();
      assertThat(process.exitValue())
          .as("grpcurl failed: %s", Files.readString(err, StandardCharsets.UTF_8))
          .isZero();
    } finally {
      process.destroyForcibly();
    }
    ClientStatusResponse.Builder response = ClientStatusResponse.newBuilder();
    JsonFormat.parser()
        .usingTypeRegistry(TYPES)
        .merge(Files.readString(out, StandardCharsets.UTF_8), response);
    assertReportsVersionOneAndTheNack(response.build());
  }

  /** The files and everything they import, imports first. */
  private static FileDescriptorSet descriptorSet(FileDescriptor... files) {
    Map<String, FileDescriptor> ordered = new LinkedHashMap<>();
    for (FileDescriptor file : files) {
      addWithDependencies(file, ordered);
    }
    FileDescriptorSet.Builder set = FileDescriptorSet.newBuilder();
    ordered.values().forEach(f -> set.addFile(f.toProto()));
    return set.build();
  }

  private static void addWithDependencies(FileDescriptor file, Map<String, FileDescriptor> out) {
    for (FileDescriptor dependency : file.getDependencies()) {
      addWithDependencies(dependency, out);
    }
    out.putIfAbsent(file.getName(), file);
  }
}
