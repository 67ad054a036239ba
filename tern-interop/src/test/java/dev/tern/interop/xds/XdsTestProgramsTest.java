package dev.tern.interop.xds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.interop.testing.ClientConfigureRequest;
import dev.tern.interop.testing.ClientConfigureRequest.RpcType;
import dev.tern.interop.testing.Empty;
import dev.tern.interop.testing.LoadBalancerAccumulatedStatsRequest;
import dev.tern.interop.testing.LoadBalancerAccumulatedStatsResponse;
import dev.tern.interop.testing.LoadBalancerStatsRequest;
import dev.tern.interop.testing.LoadBalancerStatsResponse;
import dev.tern.interop.testing.LoadBalancerStatsServiceTern;
import dev.tern.interop.testing.SimpleRequest;
import dev.tern.interop.testing.SimpleResponse;
import dev.tern.interop.testing.TestServiceTern;
import dev.tern.interop.testing.XdsUpdateClientConfigureServiceTern;
import dev.tern.interop.testing.XdsUpdateHealthServiceTern;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.services.health.v1.HealthCheckRequest;
import dev.tern.services.health.v1.HealthCheckResponse.ServingStatus;
import dev.tern.services.health.v1.HealthTern;
import dev.tern.stub.MetadataUtils;
import dev.tern.testtools.ProgramRun;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Tern's xds-test-client against Tern's xds-test-server (both in this JVM, on 127.0.0.x ports the
 * OS picks): the peers the stats service reports, and each rpc-behavior as a client sees it.
 */
class XdsTestProgramsTest {
  private final List<AutoCloseable> closeLast = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeLast.size() - 1; i >= 0; i--) {
      closeLast.get(i).close();
    }
  }

  private XdsTestServer.Running server(String address, String hostname, Integer maintenancePort)
      throws Exception {
    XdsTestServer.Running server =
        XdsTestServer.start(
            new XdsTestServer.Config(address, 0, maintenancePort, "id-" + hostname, hostname));
    closeLast.add(server);
    return server;
  }

  private ManagedChannel channel(String address, int port, String serviceConfig) {
    NettyChannelBuilder builder = NettyChannelBuilder.forAddress(address, port).usePlaintext();
    if (serviceConfig != null) {
      builder.defaultServiceConfigJson(serviceConfig);
    }
    ManagedChannel channel = builder.build();
    closeLast.add(
        () -> {
          channel.shutdownNow();
          assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        });
    return channel;
  }

  /** Starts Tern's client sending to {@code server}; returns a channel to its stats port. */
  private ManagedChannel client(XdsTestServer.Running server, String rpcs) throws Exception {
    XdsTestClient.Settings settings =
        new XdsTestClient.Settings(
            "127.0.0.2:" + server.port(),
            0,
            50,
            1,
            new ClientConfig(ClientConfig.parseTypes(rpcs), Map.of(), 20),
            false,
            false);
    XdsTestClient.Running client =
        XdsTestClient.start(
            settings, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    closeLast.add(client);
    return channel("127.0.0.1", client.statsPort(), null);
  }

  private static LoadBalancerStatsResponse nextRpcs(ManagedChannel stats, int numRpcs) {
    return LoadBalancerStatsServiceTern.newBlockingStub(stats)
        .withDeadlineAfter(30, TimeUnit.SECONDS)
        .getClientStats(
            LoadBalancerStatsRequest.newBuilder().setNumRpcs(numRpcs).setTimeoutSec(20).build());
  }

  private static TestServiceTern.TestServiceBlockingStub withBehavior(
      ManagedChannel channel, String behavior, AtomicReference<Metadata> responseHeaders) {
    Metadata headers = new Metadata();
    headers.put(RpcBehaviorInterceptor.RPC_BEHAVIOR, behavior);
    return TestServiceTern.newBlockingStub(channel)
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .withInterceptors(
            MetadataUtils.newAttachHeadersInterceptor(headers),
            MetadataUtils.newCaptureMetadataInterceptor(responseHeaders, new AtomicReference<>()));
  }

  @Test
  void statsNameEachPeerByItsHostnamePerMethod() throws Exception {
    XdsTestServer.Running server = server("127.0.0.2", "host-a", null);
    ManagedChannel stats = client(server, "UnaryCall,EmptyCall");

    LoadBalancerStatsResponse response = nextRpcs(stats, 20);

    assertThat(response.getNumFailures()).isZero();
    assertThat(response.getRpcsByPeerMap()).isEqualTo(Map.of("host-a", 20));
    assertThat(response.getRpcsByMethodMap().get("UnaryCall").getRpcsByPeerMap())
        .isEqualTo(Map.of("host-a", 10));
    assertThat(response.getRpcsByMethodMap().get("EmptyCall").getRpcsByPeerMap())
        .isEqualTo(Map.of("host-a", 10));
  }

  @Test
  void configuredErrorsAndDeadlinesAreFailuresCountedByStatusCode() throws Exception {
    XdsTestServer.Running server = server("127.0.0.2", "host-a", null);
    ManagedChannel stats = client(server, "UnaryCall");
    ClientConfigureRequest configure =
        ClientConfigureRequest.newBuilder()
            .addTypes(RpcType.UNARY_CALL)
            .addTypes(RpcType.EMPTY_CALL)
            .addMetadata(metadata(RpcType.UNARY_CALL, "error-code-5"))
            .addMetadata(metadata(RpcType.EMPTY_CALL, "sleep-2"))
            .setTimeoutSec(1)
            .build();
    XdsUpdateClientConfigureServiceTern.newBlockingStub(stats)
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .configure(configure);

    LoadBalancerStatsResponse next = nextRpcs(stats, 10);
    LoadBalancerAccumulatedStatsResponse total =
        LoadBalancerStatsServiceTern.newBlockingStub(stats)
            .withDeadlineAfter(10, TimeUnit.SECONDS)
            .getClientAccumulatedStats(LoadBalancerAccumulatedStatsRequest.getDefaultInstance());

    assertThat(next.getNumFailures()).isEqualTo(10);
    assertThat(next.getRpcsByPeerMap()).isEmpty();
    var unary = total.getStatsPerMethodMap().get("UNARY_CALL");
    var empty = total.getStatsPerMethodMap().get("EMPTY_CALL");
    assertThat(unary.getResultMap().get(Status.Code.NOT_FOUND.value())).isGreaterThanOrEqualTo(5);
    assertThat(empty.getResultMap().get(Status.Code.DEADLINE_EXCEEDED.value()))
        .isGreaterThanOrEqualTo(5);
    assertThat(empty.getResultMap()).doesNotContainKey(Status.Code.OK.value());
    assertThat(unary.getRpcsStarted()).isGreaterThan(empty.getRpcsStarted());
  }

  private static ClientConfigureRequest.Metadata metadata(RpcType type, String behavior) {
    return ClientConfigureRequest.Metadata.newBuilder()
        .setType(type)
        .setKey("rpc-behavior")
        .setValue(behavior)
        .build();
  }

  @Test
  void keepOpenIsEndedOnlyByTheDeadlineWhateverFollows() throws Exception {
    XdsTestServer.Running server = server("127.0.0.2", "host-a", null);
    ManagedChannel channel = channel("127.0.0.2", server.port(), null);

    assertThatThrownBy(
            () ->
                withBehavior(channel, "keep-open,error-code-5", new AtomicReference<>())
                    .withDeadlineAfter(300, TimeUnit.MILLISECONDS)
                    .emptyCall(Empty.getDefaultInstance()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
  }

  @Test
  void hostnamePrefixAppliesOnlyOnTheNamedServer() throws Exception {
    XdsTestServer.Running a = server("127.0.0.2", "host-a", null);
    XdsTestServer.Running b = server("127.0.0.3", "host-b", null);
    String behavior = "hostname=host-a error-code-7";
    AtomicReference<Metadata> headers = new AtomicReference<>();

    SimpleResponse fromB =
        withBehavior(channel("127.0.0.3", b.port(), null), behavior, headers)
            .unaryCall(SimpleRequest.getDefaultInstance());

    assertThat(fromB.getHostname()).isEqualTo("host-b");
    assertThat(fromB.getServerId()).isEqualTo("id-host-b");
    assertThat(headers.get().get(RpcBehaviorInterceptor.HOSTNAME)).isEqualTo("host-b");
    AtomicReference<Metadata> failedHeaders = new AtomicReference<>();
    assertThatThrownBy(
            () ->
                withBehavior(channel("127.0.0.2", a.port(), null), behavior, failedHeaders)
                    .unaryCall(SimpleRequest.getDefaultInstance()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED));
    assertThat(failedHeaders.get()).isNull();
  }

  @Test
  void successOnRetryAttemptSucceedsOnTheAttemptItNames() throws Exception {
    XdsTestServer.Running server = server("127.0.0.2", "host-a", null);
    ManagedChannel retrying =
        channel(
            "127.0.0.2",
            server.port(),
            "{\"methodConfig\": [{\"name\": [{\"service\": \"grpc.testing.TestService\"}],"
                + " \"retryPolicy\": {\"maxAttempts\": 3, \"initialBackoff\": \"0.01s\","
                + " \"maxBackoff\": \"0.05s\", \"backoffMultiplier\": 2,"
                + " \"retryableStatusCodes\": [\"UNAVAILABLE\"]}}]}");

    SimpleResponse second =
        withBehavior(retrying, "success-on-retry-attempt-1,error-code-14", new AtomicReference<>())
            .unaryCall(SimpleRequest.getDefaultInstance());

    assertThat(second.getHostname()).isEqualTo("host-a");
    assertThatThrownBy(
            () ->
                withBehavior(
                        retrying,
                        "success-on-retry-attempt-3,error-code-14",
                        new AtomicReference<>())
                    .unaryCall(SimpleRequest.getDefaultInstance()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
  }

  @Test
  void anUnknownBehaviourFailsTheCallNamingIt() throws Exception {
    XdsTestServer.Running server = server("127.0.0.2", "host-a", null);

    assertThatThrownBy(
            () ->
                withBehavior(
                        channel("127.0.0.2", server.port(), null),
                        "explode",
                        new AtomicReference<>())
                    .emptyCall(Empty.getDefaultInstance()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription()).contains("'explode'");
            });
  }

  @Test
  void theMaintenancePortFlipsHealth() throws Exception {
    XdsTestServer.Running server = server("127.0.0.2", "host-a", 0);
    assertThat(server.maintenancePort()).isNotEqualTo(server.port());
    ManagedChannel maintenance = channel("127.0.0.2", server.maintenancePort(), null);
    var health = HealthTern.newBlockingStub(maintenance).withDeadlineAfter(10, TimeUnit.SECONDS);
    var updater =
        XdsUpdateHealthServiceTern.newBlockingStub(maintenance)
            .withDeadlineAfter(10, TimeUnit.SECONDS);
    HealthCheckRequest whole = HealthCheckRequest.getDefaultInstance();

    assertThat(health.check(whole).getStatus()).isEqualTo(ServingStatus.SERVING);
    updater.setNotServing(Empty.getDefaultInstance());
    assertThat(health.check(whole).getStatus()).isEqualTo(ServingStatus.NOT_SERVING);
    updater.setServing(Empty.getDefaultInstance());
    assertThat(health.check(whole).getStatus()).isEqualTo(ServingStatus.SERVING);
  }

  @Test
  void secureModeWithoutItsOwnMaintenancePortAndBadFlagsAreRefusedInOneLine() throws Exception {
    ProgramRun server = ProgramRun.of(XdsTestServer::run, "--secure_mode=true");
    ProgramRun metadata = ProgramRun.of(XdsTestClient::run, "--metadata=UnaryCall:novalue");
    ProgramRun rpc = ProgramRun.of(XdsTestClient::run, "--rpc=UnaryCall,StreamingCall");

    for (ProgramRun run : List.of(server, metadata, rpc)) {
      assertThat(run.status()).isEqualTo(2);
      assertThat(run.err().lines()).hasSize(1);
      assertThat(run.err()).contains("see --help");
    }
    assertThat(server.err()).contains("--maintenance_port"); // secure mode needs its own
    assertThat(metadata.err()).contains("'UnaryCall:novalue'");
    assertThat(rpc.err()).contains("'StreamingCall'");
  }
}
