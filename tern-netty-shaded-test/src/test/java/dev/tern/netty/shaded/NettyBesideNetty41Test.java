package dev.tern.netty.shaded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.MethodDescriptor;
import dev.tern.MethodDescriptor.MethodType;
import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.ServerServiceDefinition;
import dev.tern.shaded.io.netty.channel.EventLoopGroup;
import dev.tern.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import dev.tern.shaded.io.netty.channel.uring.IoUring;
import dev.tern.shaded.io.netty.channel.uring.IoUringIoHandler;
import dev.tern.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCalls;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testing.TestMarshallers;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Tern server and channel on tern-netty-shaded (Netty 4.2, relocated) and a grpc-java server and
 * channel on grpc-netty (plain Netty 4.1) in one JVM: each client calls both servers, unary and
 * server-streaming, and each server says which Netty transport served it.
 */
class NettyBesideNetty41Test {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();
  @RegisterExtension final BothNettyLeakWatch leaks = new BothNettyLeakWatch();

  private static final MethodDescriptor<String, String> TERN_WHERE =
      MethodDescriptor.newBuilder(TestMarshallers.utf8(), TestMarshallers.utf8())
          .setFullMethodName(GrpcJavaEcho.WHERE_NAME)
          .setType(MethodType.UNARY)
          .build();

  private Server ternServer;
  private io.grpc.Server grpcServer;
  private final List<io.grpc.ManagedChannel> grpcChannels = new ArrayList<>();

  @BeforeEach
  void start() throws IOException {
    // Both servers run handlers on their event loop threads, so that WHERE sees the transport.
    ternServer = cleanup.register(withServices(ServerBuilder.forPort(0)).build().start());
    NettyServerBuilder grpcBuilder =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).directExecutor();
    for (io.grpc.ServerServiceDefinition definition : GrpcJavaEcho.definitions()) {
      grpcBuilder.addService(definition);
    }
    grpcServer = grpcBuilder.build().start();
  }

  @AfterEach
  void stop() throws InterruptedException {
    for (io.grpc.ManagedChannel channel : grpcChannels) {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).as("grpc-java channel").isTrue();
    }
    grpcServer.shutdownNow();
    assertThat(grpcServer.awaitTermination(10, TimeUnit.SECONDS)).as("grpc-java server").isTrue();
  }

  @Test
  void bothNettyVersionsAreLoadedEachFromItsOwnJar() {
    assertThat(io.netty.util.Version.identify().get("netty-common").artifactVersion())
        .startsWith("4.1.");
    assertThat(
            dev.tern.shaded.io.netty.util.Version.identify().get("netty-common").artifactVersion())
        .startsWith("4.2.");
    assertThat(CodeSources.jarName(io.netty.channel.Channel.class))
        .startsWith("netty-transport-4.1.");
    assertThat(CodeSources.jarName(dev.tern.shaded.io.netty.channel.Channel.class))
        .startsWith("tern-netty-shaded-")
        .isEqualTo(CodeSources.jarName(dev.tern.netty.NettyServerBuilder.class));
  }

  @Test
  void ternClientCallsGrpcJavaServerOnNetty41() {
    ManagedChannel channel = ternChannel(grpcServer.getPort());

    assertTernCalls(channel);
    assertThat(ternUnary(channel, TERN_WHERE, "")).startsWith("io.netty.channel.nio.");
  }

  @Test
  void grpcJavaClientCallsTernServerOnShadedNetty() {
    io.grpc.ManagedChannel channel = grpcChannel(ternServer.getPort());

    assertGrpcJavaCalls(channel);
    assertThat(grpcUnary(channel, GrpcJavaEcho.WHERE, ""))
        .startsWith("dev.tern.shaded.io.netty.channel.");
  }

  @Test
  void ternClientCallsTernServer() {
    assertTernCalls(ternChannel(ternServer.getPort()));
  }

  @Test
  void grpcJavaClientCallsGrpcJavaServer() {
    assertGrpcJavaCalls(grpcChannel(grpcServer.getPort()));
  }

  @Test
  void shadedEpollLoadsAndServesTernByDefault() {
    assumeLinuxX86();
    Throwable cause = dev.tern.shaded.io.netty.channel.epoll.Epoll.unavailabilityCause();
    assertThat(dev.tern.shaded.io.netty.channel.epoll.Epoll.isAvailable())
        .as("shaded epoll unavailable: %s", cause)
        .isTrue();

    String served = ternUnary(ternChannel(ternServer.getPort()), TERN_WHERE, "");

    assertThat(served).startsWith("dev.tern.shaded.io.netty.channel.epoll.");
  }

  @Test
  void shadedIoUringLoadsAndServesTernOnItsGroup() throws Exception {
    assumeLinuxX86();
    if (!IoUring.isAvailable()) {
      String why = "the shaded io_uring cannot run here: " + IoUring.unavailabilityCause();
      assertThat(System.getenv("CI"))
          .as(why + " (CI expects io_uring to run)")
          .isNotEqualTo("true");
      Assumptions.abort(why);
    }
    EventLoopGroup group =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("shaded-io-uring", true), IoUringIoHandler.newFactory());
    Server server = null;
    ManagedChannel channel = null;
    try {
      server =
          withServices(
                  dev.tern.netty.NettyServerBuilder.forPort(0)
                      .bossEventLoopGroup(group)
                      .workerEventLoopGroup(group))
              .build()
              .start();
      channel =
          ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();

      assertThat(ternUnary(channel, TERN_WHERE, ""))
          .startsWith("dev.tern.shaded.io.netty.channel.uring.");
    } finally {
      if (channel != null) {
        channel.shutdownNow();
        assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).as("channel").isTrue();
      }
      if (server != null) {
        server.shutdownNow();
        assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).as("server").isTrue();
      }
      assertThat(group.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS))
          .as("io_uring group")
          .isTrue();
    }
  }

  @Test
  void leakDetectionIsParanoidInBothNettys() {
    // The relocated Netty reads dev.tern.shaded.io.netty.leakDetection.level, not the plain name.
    assertThat(dev.tern.shaded.io.netty.util.ResourceLeakDetector.getLevel())
        .isEqualTo(dev.tern.shaded.io.netty.util.ResourceLeakDetector.Level.PARANOID);
    assertThat(io.netty.util.ResourceLeakDetector.getLevel())
        .isEqualTo(io.netty.util.ResourceLeakDetector.Level.PARANOID);
  }

  /** The echo and WHERE services, handlers on the event loop ({@code directExecutor}). */
  private static ServerBuilder<?> withServices(ServerBuilder<?> builder) {
    return builder
        .directExecutor()
        .addService(EchoService.definition())
        .addService(
            ServerServiceDefinition.builder(TERN_WHERE.getServiceName())
                .addMethod(
                    TERN_WHERE,
                    ServerCalls.asyncUnaryCall(
                        (request, responses) -> {
                          responses.onNext(ServingThread.transportClass());
                          responses.onCompleted();
                        }))
                .build());
  }

  private static void assumeLinuxX86() {
    assumeTrue(
        System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux")
            && System.getProperty("os.arch").equals("amd64"),
        "tern-netty-shaded bundles the native libraries for Linux x86-64 only");
  }

  private ManagedChannel ternChannel(int port) {
    return cleanup.register(
        ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build());
  }

  private io.grpc.ManagedChannel grpcChannel(int port) {
    io.grpc.ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    grpcChannels.add(channel);
    return channel;
  }

  private static void assertTernCalls(ManagedChannel channel) {
    assertThat(ternUnary(channel, EchoService.UNARY, "hello")).isEqualTo("hello");
    Iterator<String> stream =
        ClientCalls.blockingServerStreamingCall(
            channel, EchoService.SERVER_STREAMING, ternOptions(), "3");
    List<String> received = new ArrayList<>();
    stream.forEachRemaining(received::add);
    assertThat(received).containsExactly("0", "1", "2");
  }

  private static void assertGrpcJavaCalls(io.grpc.ManagedChannel channel) {
    assertThat(grpcUnary(channel, GrpcJavaEcho.UNARY, "hello")).isEqualTo("hello");
    Iterator<String> stream =
        io.grpc.stub.ClientCalls.blockingServerStreamingCall(
            channel, GrpcJavaEcho.SERVER_STREAMING, grpcOptions(), "3");
    List<String> received = new ArrayList<>();
    stream.forEachRemaining(received::add);
    assertThat(received).containsExactly("0", "1", "2");
  }

  private static String ternUnary(
      ManagedChannel channel, MethodDescriptor<String, String> method, String request) {
    return ClientCalls.blockingUnaryCall(channel, method, ternOptions(), request);
  }

  private static String grpcUnary(
      io.grpc.ManagedChannel channel,
      io.grpc.MethodDescriptor<String, String> method,
      String request) {
    return io.grpc.stub.ClientCalls.blockingUnaryCall(channel, method, grpcOptions(), request);
  }

  private static CallOptions ternOptions() {
    return CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  private static io.grpc.CallOptions grpcOptions() {
    return io.grpc.CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS);
  }
}
