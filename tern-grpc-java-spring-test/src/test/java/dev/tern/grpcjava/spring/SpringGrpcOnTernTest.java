package dev.tern.grpcjava.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.grpcjava.spring.proto.EchoGrpc;
import dev.tern.grpcjava.spring.proto.EchoReply;
import dev.tern.grpcjava.spring.proto.EchoRequest;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelProvider;
import io.grpc.Server;
import io.grpc.ServerProvider;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.BlockingClientCall;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.grpc.client.DefaultGrpcChannelFactory;
import org.springframework.grpc.client.GrpcChannelFactory;
import org.springframework.grpc.server.DefaultGrpcServerFactory;
import org.springframework.grpc.server.GrpcServerFactory;
import org.springframework.grpc.server.lifecycle.GrpcServerLifecycle;
import org.springframework.grpc.server.lifecycle.GrpcServerStartedEvent;

/**
 * A Spring Boot application on Spring gRPC ({@link SpringEchoApplication}), with grpc-java's Netty
 * transports left out and tern-grpc-java in their place: its calls, made through a stub Spring
 * built, are served and sent by Tern. One application context for the whole class, on a free port.
 */
class SpringGrpcOnTernTest {

  private static ConfigurableApplicationContext app;
  private static final CompletableFuture<Server> startedServer = new CompletableFuture<>();
  private static final List<ManagedChannel> channels = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void startApplication() {
    app =
        new SpringApplicationBuilder(SpringEchoApplication.class)
            .web(WebApplicationType.NONE)
            .listeners(
                (GrpcServerStartedEvent started) -> startedServer.complete(started.getServer()))
            .properties(
                "spring.grpc.server.port=0",
                // Spring gRPC's default channel, on which it makes the generated stubs beans: to
                // this application's own server, with a user agent it sets on the builder.
                "spring.grpc.client.default-channel.address=static://localhost:${local.grpc.port}",
                "spring.grpc.client.default-channel.user-agent=spring-echo/1",
                // A server property that Spring's own Netty factory applies: so does Tern's.
                "spring.grpc.server.max-inbound-message-size=64KB",
                "spring.main.banner-mode=off")
            .run();
  }

  @AfterAll
  static void stopApplication() throws Exception {
    if (app != null) {
      app.close();
    }
    // Closing the context stopped the server (Spring gRPC's lifecycle) and closed the channels
    // (its channel factory).
    assertThat(startedServer.getNow(null).isTerminated()).isTrue();
    assertThat(channels)
        .isNotEmpty()
        .allSatisfy(channel -> assertThat(channel.isTerminated()).isTrue());
  }

  private static EchoGrpc.EchoBlockingStub stub() {
    return app.getBean(EchoGrpc.EchoBlockingStub.class).withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  /** A channel to the application's server from Spring gRPC's channel factory, which closes it. */
  private static ManagedChannel newChannel() {
    ManagedChannel channel =
        app.getBean(GrpcChannelFactory.class)
            .createChannel("localhost:" + app.getBean(GrpcServerLifecycle.class).getPort());
    channels.add(channel);
    return channel;
  }

  private static EchoRequest request(String text) {
    return EchoRequest.newBuilder().setText(text).build();
  }

  private static void assertFailsWith(EchoRequest request, Status.Code code, String description) {
    assertThatThrownBy(() -> stub().say(request))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(code);
              assertThat(e.getStatus().getDescription()).isEqualTo(description);
            });
  }

  @Test
  void unaryCallThroughSpringsStub() {
    assertThat(stub().say(request("Ada")).getText()).isEqualTo("Hello, Ada");
  }

  @Test
  void serverStreamingCallThroughSpringsStub() {
    List<String> replies = new ArrayList<>();
    stub()
        .repeat(EchoRequest.newBuilder().setText("tern").setCount(3).build())
        .forEachRemaining((EchoReply reply) -> replies.add(reply.getText()));

    assertThat(replies).containsExactly("tern 1", "tern 2", "tern 3");
  }

  @Test
  void statusFromTheServiceReachesTheClient() {
    assertFailsWith(request(""), Status.Code.INVALID_ARGUMENT, "say something");
  }

  @Test
  void springsExceptionHandlerTurnsAThrownExceptionIntoItsStatus() {
    // Without the application's GrpcExceptionHandler this would be UNKNOWN.
    assertFailsWith(request("boom"), Status.Code.FAILED_PRECONDITION, "boom is not a greeting");
  }

  @Test
  void springsServerPropertiesReachTernsServer() {
    // Over the 64 KiB spring.grpc.server.max-inbound-message-size: refused by the server.
    EchoRequest tooLarge = request("x".repeat(100 * 1024));

    assertThatThrownBy(() -> stub().say(tooLarge))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
    assertThat(stub().say(request("x".repeat(60 * 1024))).getText()).hasSize(7 + 60 * 1024);
  }

  @Test
  void springsGlobalInterceptorSeesTheCallOnTernsServer() {
    stub().say(request("interceptor"));

    assertThat(app.getBean(CallRecorder.class).seen())
        .anySatisfy(
            seen -> {
              assertThat(seen.method()).isEqualTo("tern.spring.Echo/Say");
              // Sent by Tern's client, with the user agent from Spring's client properties in
              // front of Tern's own, and served by Tern's server.
              assertThat(seen.userAgent()).startsWith("spring-echo/1 tern-java/");
              assertThat(seen.serverCallClass()).startsWith("dev.tern.grpcjava.");
            });
  }

  @Test
  void springsHealthServiceAnswersServing() {
    HealthCheckResponse health =
        HealthGrpc.newBlockingStub(newChannel())
            .withDeadlineAfter(10, TimeUnit.SECONDS)
            .check(HealthCheckRequest.getDefaultInstance());

    assertThat(health.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
  }

  @Test
  void springsReflectionServiceListsTheServicesOverABidiStream() throws Exception {
    BlockingClientCall<ServerReflectionRequest, ServerReflectionResponse> call =
        ServerReflectionGrpc.newBlockingV2Stub(newChannel())
            .withDeadlineAfter(10, TimeUnit.SECONDS)
            .serverReflectionInfo();

    call.write(ServerReflectionRequest.newBuilder().setListServices("").build());
    ServerReflectionResponse listed = call.read();
    call.halfClose();

    assertThat(listed.getListServicesResponse().getServiceList())
        .extracting(ServiceResponse::getName)
        .containsExactlyInAnyOrder(
            "tern.spring.Echo", "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection");
    assertThat(call.read()).as("the end of the server's stream").isNull();
  }

  @Test
  void serverAndChannelAreTernsAndGrpcJavasNettyIsAbsent() throws Exception {
    // The application declares no factory: tern-grpc-java's auto-configuration gives it Spring
    // gRPC's transport-free ones, which ask io.grpc's providers for the builders...
    assertThat(app.getBeanNamesForType(GrpcServerFactory.class))
        .containsExactly("ternGrpcServerFactory");
    assertThat(app.getBean(GrpcServerFactory.class))
        .isExactlyInstanceOf(DefaultGrpcServerFactory.class);
    assertThat(app.getBeanNamesForType(GrpcChannelFactory.class))
        .containsExactly("ternGrpcChannelFactory");
    assertThat(app.getBean(GrpcChannelFactory.class))
        .isExactlyInstanceOf(DefaultGrpcChannelFactory.class);
    // ...and the providers are Tern's,
    assertThat(ServerProvider.provider().getClass().getName()).startsWith("dev.tern.grpcjava.");
    assertThat(ManagedChannelProvider.provider().getClass().getName())
        .startsWith("dev.tern.grpcjava.");
    // so the server Spring started and the channels it makes are Tern's bridge types.
    assertThat(startedServer.get(10, TimeUnit.SECONDS).getClass().getName())
        .startsWith("dev.tern.grpcjava.");
    assertThat(newChannel().getClass().getName()).startsWith("dev.tern.grpcjava.");
    // Neither of grpc-java's Netty transports is on the class path.
    assertThatThrownBy(() -> Class.forName("io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder"))
        .isInstanceOf(ClassNotFoundException.class);
    assertThatThrownBy(() -> Class.forName("io.grpc.netty.NettyServerBuilder"))
        .isInstanceOf(ClassNotFoundException.class);
  }
}
