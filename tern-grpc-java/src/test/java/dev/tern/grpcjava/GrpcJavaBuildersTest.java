package dev.tern.grpcjava;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.testing.integration.Messages.ResponseParameters;
import io.grpc.testing.integration.Messages.SimpleRequest;
import io.grpc.testing.integration.Messages.StreamingOutputCallRequest;
import io.grpc.testing.integration.TestServiceGrpc;
import io.grpc.testing.integration.TestServiceImpl;
import io.grpc.util.MutableHandlerRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The io.grpc builders' options on Tern: accepted, applied, or refused naming the option. */
class GrpcJavaBuildersTest {
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private final List<String> order = new CopyOnWriteArrayList<>();
  private Server server;
  private ManagedChannel channel;

  @AfterEach
  void stop() throws Exception {
    Peers.close(channel, server, scheduler);
  }

  private ServerInterceptor named(String name) {
    return new ServerInterceptor() {
      @Override
      public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
          ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
        order.add(name);
        return next.startCall(call, headers);
      }
    };
  }

  @Test
  void serverAndChannelOptionsMapAndCallsRun() throws Exception {
    MutableHandlerRegistry registry = new MutableHandlerRegistry();
    server =
        Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
            .fallbackHandlerRegistry(registry)
            .intercept(named("first added"))
            .intercept(named("last added"))
            .executor(scheduler)
            .handshakeTimeout(10, TimeUnit.SECONDS)
            .maxInboundMessageSize(1 << 20)
            .maxInboundMetadataSize(16 * 1024)
            .keepAliveTime(1, TimeUnit.HOURS)
            .keepAliveTimeout(20, TimeUnit.SECONDS)
            .permitKeepAliveTime(1, TimeUnit.MINUTES)
            .permitKeepAliveWithoutCalls(true)
            .maxConnectionIdle(1, TimeUnit.HOURS)
            .maxConnectionAge(1, TimeUnit.HOURS)
            .maxConnectionAgeGrace(1, TimeUnit.MINUTES)
            .build()
            .start();
    // Served through the fallback registry, added after the server started.
    registry.addService(new TestServiceImpl(scheduler));
    channel =
        Grpc.newChannelBuilder("127.0.0.1:" + server.getPort(), InsecureChannelCredentials.create())
            .userAgent("bridge-test")
            .idleTimeout(1, TimeUnit.MINUTES)
            .keepAliveTime(1, TimeUnit.HOURS)
            .keepAliveTimeout(20, TimeUnit.SECONDS)
            .keepAliveWithoutCalls(false)
            .maxInboundMessageSize(1 << 20)
            .maxInboundMetadataSize(16 * 1024)
            .defaultLoadBalancingPolicy("round_robin")
            .defaultServiceConfig(
                Map.of(
                    "methodConfig",
                    List.of(
                        Map.of(
                            "name",
                            List.of(Map.of("service", "grpc.testing.TestService")),
                            "timeout",
                            "30s"))))
            .enableRetry()
            .maxRetryAttempts(3)
            .offloadExecutor(scheduler)
            .build();

    TestServiceGrpc.newBlockingStub(channel)
        .unaryCall(SimpleRequest.newBuilder().setResponseSize(5).build());

    // As on grpc-java: the interceptor added last runs first, for fallback methods too.
    assertThat(order).containsExactly("last added", "first added");
  }

  @Test
  void defaultServiceConfigIsApplied() throws Exception {
    server =
        Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
            .addService(new TestServiceImpl(scheduler))
            .build()
            .start();
    channel =
        Grpc.newChannelBuilder("127.0.0.1:" + server.getPort(), InsecureChannelCredentials.create())
            .defaultServiceConfig(
                Map.of(
                    "methodConfig",
                    List.of(
                        Map.of(
                            "name",
                            List.of(
                                Map.of(
                                    "service", "grpc.testing.TestService",
                                    "method", "StreamingOutputCall")),
                            "timeout",
                            "0.2s"))))
            .build();
    StreamingOutputCallRequest slow =
        StreamingOutputCallRequest.newBuilder()
            .addResponseParameters(
                ResponseParameters.newBuilder().setSize(1).setIntervalUs(30_000_000))
            .build();
    // No deadline on the call: the service config's timeout is what ends it.
    assertThatThrownBy(
            () -> TestServiceGrpc.newBlockingStub(channel).streamingOutputCall(slow).next())
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
  }

  @Test
  void badValuesAreRefusedByTernsBuilders() {
    assertThatThrownBy(() -> ServerBuilder.forPort(0).keepAliveTime(0, TimeUnit.SECONDS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keepAliveTime");
    assertThatThrownBy(() -> ServerBuilder.forPort(0).permitKeepAliveTime(-1, TimeUnit.SECONDS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("permitKeepAliveTime");
    assertThatThrownBy(
            () ->
                Grpc.newChannelBuilder("127.0.0.1:1", InsecureChannelCredentials.create())
                    .keepAliveTime(-1, TimeUnit.SECONDS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keepAliveTime");
  }

  @Test
  void serverOptionsTernCannotHonourAreRefusedNamingThem() {
    io.grpc.ServerCallExecutorSupplier perCall =
        new io.grpc.ServerCallExecutorSupplier() {
          @Override
          public <ReqT, RespT> java.util.concurrent.Executor getExecutor(
              ServerCall<ReqT, RespT> call, Metadata headers) {
            return null;
          }
        };
    assertThatThrownBy(() -> ServerBuilder.forPort(0).callExecutor(perCall))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("callExecutor");
    assertThatThrownBy(
            () ->
                ServerBuilder.forPort(0)
                    .compressorRegistry(io.grpc.CompressorRegistry.newEmptyInstance()))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("compressorRegistry");
    assertThatThrownBy(
            () ->
                Grpc.newChannelBuilder("127.0.0.1:1", InsecureChannelCredentials.create())
                    .maxTraceEvents(10))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("maxTraceEvents");
  }
}
