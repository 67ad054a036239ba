package dev.tern.grpcjava;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.StreamObserver;
import io.grpc.testing.integration.EmptyProtos.Empty;
import io.grpc.testing.integration.TestServiceGrpc;
import io.grpc.testing.integration.TestServiceImpl;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** grpc-java's own standard services (grpc-services: health, reflection) on a bridged server. */
class GrpcJavaServicesTest {
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private final HealthStatusManager health = new HealthStatusManager();
  private Server server;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    server =
        Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
            .addService(new TestServiceImpl(scheduler))
            .addService(health.getHealthService())
            .addService(ProtoReflectionServiceV1.newInstance())
            .build()
            .start();
    channel = Peers.channelTo(server);
  }

  @AfterEach
  void stop() throws Exception {
    Peers.close(channel, server, scheduler);
  }

  @Test
  void healthReportsWhatTheApplicationSets() {
    health.setStatus("grpc.testing.TestService", HealthCheckResponse.ServingStatus.NOT_SERVING);
    HealthGrpc.HealthBlockingStub stub = HealthGrpc.newBlockingStub(channel);
    assertThat(stub.check(HealthCheckRequest.getDefaultInstance()).getStatus())
        .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    assertThat(
            stub.check(
                    HealthCheckRequest.newBuilder().setService("grpc.testing.TestService").build())
                .getStatus())
        .isEqualTo(HealthCheckResponse.ServingStatus.NOT_SERVING);
  }

  @Test
  void clientSideHealthCheckingKeepsCallsOffANotServingServer() throws Exception {
    // As grpc-java's health example configures it: round_robin with a healthCheckConfig (A17).
    ManagedChannel checked =
        Grpc.newChannelBuilder("127.0.0.1:" + server.getPort(), InsecureChannelCredentials.create())
            .defaultLoadBalancingPolicy("round_robin")
            .defaultServiceConfig(Map.of("healthCheckConfig", Map.of("serviceName", "")))
            .build();
    try {
      TestServiceGrpc.TestServiceBlockingStub stub = TestServiceGrpc.newBlockingStub(checked);
      stub.emptyCall(Empty.getDefaultInstance());
      health.setStatus("", HealthCheckResponse.ServingStatus.NOT_SERVING);
      // The watch delivers NOT_SERVING to the client's balancer; until then calls still go out.
      StatusRuntimeException refused = null;
      for (int i = 0; i < 200 && refused == null; i++) {
        try {
          stub.withDeadlineAfter(5, TimeUnit.SECONDS).emptyCall(Empty.getDefaultInstance());
        } catch (StatusRuntimeException e) {
          refused = e;
        }
      }
      assertThat(refused).as("a call the client kept off the NOT_SERVING server").isNotNull();
      assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(refused.getStatus().getDescription()).contains("NOT_SERVING");
    } finally {
      Peers.close(checked);
    }
  }

  @Test
  void reflectionListsTheServersServicesAndDescribesThem() throws Exception {
    BlockingQueue<Object> responses = new LinkedBlockingQueue<>();
    StreamObserver<ServerReflectionRequest> requests =
        ServerReflectionGrpc.newStub(channel)
            .serverReflectionInfo(
                new StreamObserver<>() {
                  @Override
                  public void onNext(ServerReflectionResponse value) {
                    responses.add(value);
                  }

                  @Override
                  public void onError(Throwable t) {
                    responses.add(t);
                  }

                  @Override
                  public void onCompleted() {}
                });
    requests.onNext(ServerReflectionRequest.newBuilder().setListServices("*").build());
    Object listed = responses.poll(5, TimeUnit.SECONDS);
    assertThat(listed).isInstanceOf(ServerReflectionResponse.class);
    assertThat(
            ((ServerReflectionResponse) listed)
                .getListServicesResponse().getServiceList().stream().map(ServiceResponse::getName))
        .contains(
            "grpc.testing.TestService",
            "grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection");

    requests.onNext(
        ServerReflectionRequest.newBuilder()
            .setFileContainingSymbol("grpc.testing.TestService")
            .build());
    Object described = responses.poll(5, TimeUnit.SECONDS);
    assertThat(described).isInstanceOf(ServerReflectionResponse.class);
    assertThat(
            ((ServerReflectionResponse) described)
                .getFileDescriptorResponse()
                .getFileDescriptorProtoCount())
        .isPositive();
    requests.onCompleted();
  }
}
