package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.DecompressorRegistry;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.netty.NettyChannelBuilder;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.testing.integration.TestServiceImpl;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * gRPC's soak interop cases ({@code rpc_soak}, {@code channel_soak}) across implementations, with
 * the thresholds of gRPC's interop clients: no failed iteration ({@code soak_max_failures=0}), each
 * iteration within {@value #MAX_LATENCY_MS} ms, {@value #ITERATIONS} iterations. Tern's client
 * against grpc-java 1.79's server (its {@code TestServiceImpl}, in this JVM) and against Tern's;
 * grpc-java's interop client ({@code peers/grpc-java-client.sh}, a JVM of its own) against Tern's
 * server. The grpc-java client needs its class path (resolved by {@code
 * peers/grpc-java-classpath.sh}); without it the case is skipped, or fails when {@code CI=true}.
 */
@Tag("external-check") // not in mvn verify; -Pexternal-checks and CI: README.md#development
class SoakInteropTest {
  static final int ITERATIONS = 100;
  static final int MAX_LATENCY_MS = 1000;
  static final SoakConfig CONFIG =
      new SoakConfig(
          ITERATIONS,
          0,
          MAX_LATENCY_MS,
          SoakConfig.defaultOverallTimeoutSeconds(ITERATIONS, MAX_LATENCY_MS),
          0,
          SoakConfig.DEFAULT_REQUEST_SIZE,
          SoakConfig.DEFAULT_RESPONSE_SIZE,
          1);

  private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
  private Server tern;
  private io.grpc.Server grpcJava;

  @BeforeEach
  void start() throws Exception {
    tern = InteropServer.start(0, false, Path.of("unused"), executor);
    grpcJava =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(
                ServerInterceptors.intercept(
                    new TestServiceImpl(executor), TestServiceImpl.interceptors()))
            .build()
            .start();
  }

  @AfterEach
  void stop() throws InterruptedException {
    tern.shutdownNow();
    grpcJava.shutdownNow();
    assertThat(tern.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(grpcJava.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    executor.shutdownNow();
  }

  @ParameterizedTest
  @ValueSource(strings = {"rpc_soak", "channel_soak"})
  void ternClientAgainstGrpcJavaServer(String testCase) throws Exception {
    runTernClient(grpcJava.getPort(), testCase);
  }

  @ParameterizedTest
  @ValueSource(strings = {"rpc_soak", "channel_soak"})
  void ternClientAgainstTernServer(String testCase) throws Exception {
    runTernClient(tern.getPort(), testCase);
  }

  @ParameterizedTest
  @ValueSource(strings = {"rpc_soak", "channel_soak"})
  void grpcJavaClientAgainstTernServer(String testCase) throws Exception {
    GrpcJavaInteropClient.requireClassPath();
    GrpcJavaInteropClient.Run run =
        GrpcJavaInteropClient.run(
            List.of(
                "--server_host=127.0.0.1",
                "--server_port=" + tern.getPort(),
                "--use_tls=false",
                "--test_case=" + testCase,
                "--soak_iterations=" + ITERATIONS,
                "--soak_max_failures=0",
                "--soak_per_iteration_max_acceptable_latency_ms=" + MAX_LATENCY_MS,
                "--soak_overall_timeout_seconds=" + CONFIG.overallTimeoutSeconds()),
            Duration.ofSeconds(CONFIG.overallTimeoutSeconds() + 60L));
    assertThat(run.passed())
        .as("grpc-java's client, %s against Tern's server:%n%s", testCase, run.output())
        .isTrue();
  }

  static void runTernClient(int port, String testCase) throws Exception {
    DecompressorRegistry probe =
        DecompressorRegistry.getDefaultInstance().with(new CompressionProbe(), true);
    Supplier<ManagedChannel> channels =
        () ->
            NettyChannelBuilder.forAddress("127.0.0.1", port)
                .usePlaintext()
                .decompressorRegistry(probe)
                .build();
    ManagedChannel channel = channels.get();
    try {
      new InteropCases(channel, channels, CONFIG).run(testCase);
    } finally {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
