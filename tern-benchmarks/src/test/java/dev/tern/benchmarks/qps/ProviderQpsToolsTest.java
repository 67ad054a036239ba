package dev.tern.benchmarks.qps;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.testtools.ProgramRun;
import io.grpc.Server;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * ProviderQpsClient against ProviderQpsServer for a moment, on this module's test class path:
 * grpc-java with grpc-netty-shaded, tern-grpc-java kept off (see the pom). Pins what
 * bin/bench-compare --bridge reads: the lines naming the classes the provider gave (here
 * grpc-java's own), the summary block QpsClient prints, and the heap bytes per call of client and
 * server. The numbers are only checked to be numbers: timings on a shared machine prove nothing.
 */
class ProviderQpsToolsTest {
  private final ProviderQpsServer.BenchmarkService service =
      new ProviderQpsServer.BenchmarkService();
  private Server server;

  @BeforeEach
  void startServer() throws Exception {
    server = ProviderQpsServer.build(0, service, null).start();
  }

  @AfterEach
  void stopServer() throws InterruptedException {
    server.shutdownNow();
    assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void unaryRunGoesThroughGrpcJavasProviderAndPrintsSummaryAndHeapPerCall() throws Exception {
    List<String> lines =
        QpsToolsTest.runClient(
            ProviderQpsClient::run,
            "--address=127.0.0.1:" + server.getPort(),
            "--channels=2",
            "--outstanding_rpcs=3",
            "--client_payload=7",
            "--server_payload=9",
            "--warmup_duration=0",
            "--duration=1");

    assertThat(lines.get(0))
        .isEqualTo(
            "ProviderQpsClient: channel builder"
                + " io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder");
    assertThat(lines.get(1)).startsWith("ProviderQpsClient: channel io.grpc.");
    QpsToolsTest.assertSummaryShape(lines.subList(2, 13));
    assertThat(lines.subList(2, 6))
        .containsExactly(
            "Channels:                       2",
            "Outstanding RPCs per Channel:   3",
            "Server Payload Size:            9",
            "Client Payload Size:            7");
    assertThat(lines.get(13)).matches("Client heap bytes per call: +[1-9]\\d*");
    assertThat(lines).hasSize(14);
  }

  @Test
  void streamingRunCountsServerHeapPerRound() throws Exception {
    ByteArrayOutputStream serverOut = new ByteArrayOutputStream();
    Thread counter = new Thread(() -> service.heapCount.count(0, 1, QpsToolsTest.print(serverOut)));
    counter.start();

    List<String> lines =
        QpsToolsTest.runClient(
            ProviderQpsClient::run,
            "--address=127.0.0.1:" + server.getPort(),
            "--channels=1",
            "--outstanding_rpcs=2",
            "--streaming_rpcs",
            "--directexecutor",
            "--warmup_duration=0",
            "--duration=1");
    counter.join(10_000);

    QpsToolsTest.assertSummaryShape(lines.subList(2, 13));
    assertThat(serverOut.toString(StandardCharsets.UTF_8).lines())
        .hasSize(2)
        .element(1, InstanceOfAssertFactories.STRING)
        .matches("Server heap bytes per call: +[1-9]\\d*");
  }

  @Test
  void badFlagIsOneLineAndStatusTwo() throws Exception {
    ProgramRun output = ProgramRun.of(ProviderQpsClient::run, "--channels=0");
    assertThat(output.status()).isEqualTo(2);
    assertThat(output.err())
        .isEqualTo(
            "ProviderQpsClient: --channels must be an integer of at least 1, got 0; see --help\n");
  }
}
