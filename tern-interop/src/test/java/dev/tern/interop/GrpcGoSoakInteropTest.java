package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.testtools.ExternalTool;
import dev.tern.testtools.ToolProcess;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * gRPC's soak interop cases between Tern and grpc-go 1.64.1's interop programs ({@code
 * grpc-go-interop-server} and {@code grpc-go-interop-client}, built by {@code
 * tools/install-xds-interop-tools.sh}), with the thresholds of {@link SoakInteropTest}: Tern's
 * client against grpc-go's server, grpc-go's client against Tern's server (warmed up by one call of
 * Tern's client first, as a JVM's first call loads classes). A missing program skips the case, or
 * fails it under {@code CI=true}. Each grpc-go process is stopped by its PID.
 */
@Tag("external-check") // not in mvn verify; -Pexternal-checks and CI: README.md#development
class GrpcGoSoakInteropTest {
  private static final String SERVER = "grpc-go-interop-server";
  private static final String CLIENT = "grpc-go-interop-client";
  private static final Duration STARTUP = Duration.ofSeconds(30);

  private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
  private Server tern;
  private ToolProcess peer;

  @AfterEach
  void stop() throws InterruptedException {
    if (peer != null) {
      peer.stop(Duration.ofSeconds(10));
    }
    if (tern != null) {
      tern.shutdownNow();
      assertThat(tern.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    executor.shutdownNow();
  }

  @ParameterizedTest
  @ValueSource(strings = {"rpc_soak", "channel_soak"})
  void ternClientAgainstGrpcGoServer(String testCase) throws Exception {
    Path program = ExternalTool.require(SERVER);
    int port = freePort();
    peer =
        ToolProcess.start(SERVER, List.of(program.toString(), "-port=" + port, "-use_tls=false"));
    awaitListening(port);
    SoakInteropTest.runTernClient(port, testCase);
  }

  @ParameterizedTest
  @ValueSource(strings = {"rpc_soak", "channel_soak"})
  void grpcGoClientAgainstTernServer(String testCase) throws Exception {
    Path program = ExternalTool.require(CLIENT);
    tern = InteropServer.start(0, false, Path.of("unused"), executor);
    // The first call a fresh JVM serves loads classes: 1.7 s once on this shared 2-core machine,
    // past the 1 s bound. The soak measures a running server, so one call warms it up first.
    SoakInteropTest.runTernClient(tern.getPort(), "large_unary");
    SoakConfig config = SoakInteropTest.CONFIG;
    peer =
        ToolProcess.start(
            CLIENT,
            List.of(
                program.toString(),
                "-server_host=127.0.0.1",
                "-server_port=" + tern.getPort(),
                "-use_tls=false",
                "-test_case=" + testCase,
                "-soak_iterations=" + config.iterations(),
                "-soak_max_failures=" + config.maxFailures(),
                "-soak_per_iteration_max_acceptable_latency_ms=" + config.maxLatencyMs(),
                "-soak_overall_timeout_seconds=" + config.overallTimeoutSeconds()));
    boolean ended = peer.awaitExit(Duration.ofSeconds(config.overallTimeoutSeconds() + 60L));
    assertThat(ended && peer.exitValue() == 0)
        .as("grpc-go's client, %s against Tern's server:%n%s", testCase, peer.output())
        .isTrue();
  }

  /** Waits until grpc-go's server accepts connections on 127.0.0.1:port, or fails. */
  private void awaitListening(int port) throws IOException {
    long deadline = System.nanoTime() + STARTUP.toNanos();
    while (true) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
        return;
      } catch (IOException notYet) {
        assertThat(System.nanoTime() - deadline < 0)
            .as("grpc-go's server did not listen within %s: %s", STARTUP, peer.output())
            .isTrue();
        // The pause between two attempts; returns at once (and fails) if the server exited.
        assertThat(peer.awaitExit(Duration.ofMillis(50)))
            .as("grpc-go's server exited: %s", peer.output())
            .isFalse();
      }
    }
  }

  /** A port the OS says is free now, for grpc-go's server, which takes only a fixed port. */
  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress("127.0.0.1", 0));
      return socket.getLocalPort();
    }
  }
}
