package dev.tern.benchmarks.qps;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Grpc;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.TlsChannelCredentials;
import dev.tern.interop.testing.BenchmarkServiceTern;
import dev.tern.interop.testing.SimpleRequest;
import dev.tern.interop.testing.SimpleResponse;
import dev.tern.testtools.ProgramRun;
import dev.tern.testtools.TestPems;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tern's QpsServer driven by QpsClient for a moment: the summary block is what bin/bench-compare
 * and anyone comparing with grpc-java's AsyncClient read, so its shape is pinned here. The numbers
 * are only checked to be numbers: timings on a shared machine prove nothing.
 */
class QpsToolsTest {
  /** The 11 lines of grpc-java's AsyncClient summary, in order; {@code N} is a whole number. */
  private static final List<String> SUMMARY =
      List.of(
          "Channels:                       N",
          "Outstanding RPCs per Channel:   N",
          "Server Payload Size:            N",
          "Client Payload Size:            N",
          "50%ile Latency (in micros):     N",
          "90%ile Latency (in micros):     N",
          "95%ile Latency (in micros):     N",
          "99%ile Latency (in micros):     N",
          "99.9%ile Latency (in micros):   N",
          "Maximum Latency (in micros):    N",
          "QPS:                            N");

  private Transport serverTransport;
  private Server server;

  @BeforeEach
  void startServer() throws Exception {
    serverTransport = Transport.named("nio");
    server = QpsServer.start("127.0.0.1:0", false, serverTransport);
  }

  @AfterEach
  void stopServer() throws InterruptedException {
    server.shutdownNow();
    assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    serverTransport.close();
  }

  @Test
  void unaryRunPrintsTheElevenLineSummary() throws Exception {
    List<String> lines =
        runClient(
            "--address=127.0.0.1:" + server.getPort(),
            "--channels=2",
            "--outstanding_rpcs=3",
            "--client_payload=7",
            "--server_payload=9",
            "--warmup_duration=0",
            "--duration=1");

    assertSummaryShape(lines);
    assertThat(lines.subList(0, 4))
        .containsExactly(
            "Channels:                       2",
            "Outstanding RPCs per Channel:   3",
            "Server Payload Size:            9",
            "Client Payload Size:            7");
  }

  @Test
  void streamingRunWithDirectExecutorPrintsTheSameSummary() throws Exception {
    List<String> lines =
        runClient(
            "--address=127.0.0.1:" + server.getPort(),
            "--channels=1",
            "--outstanding_rpcs=2",
            "--streaming_rpcs",
            "--directexecutor",
            "--warmup_duration=0",
            "--duration=1");

    assertSummaryShape(lines);
    assertThat(lines.get(1)).isEqualTo("Outstanding RPCs per Channel:   2");
  }

  @Test
  void serverWithDefaultsServesTheSameRun() throws Exception {
    servesTheSameRun(
        QpsServer.start("127.0.0.1:0", false, false, true, serverTransport, null, null));
  }

  @Test
  void nonBlockingServerServesTheSameRun() throws Exception {
    servesTheSameRun(
        QpsServer.start("127.0.0.1:0", false, true, false, serverTransport, null, null));
  }

  @Test
  void serverWithTlsFilesAnswersOverTls(@TempDir Path dir) throws Exception {
    TestPems pems = TestPems.generate("localhost", "dns:localhost,ip:127.0.0.1");
    File cert = Files.writeString(dir.resolve("cert.pem"), pems.certificatePem).toFile();
    File key = Files.writeString(dir.resolve("key.pem"), pems.keyPem).toFile();
    Server tls =
        QpsServer.start(
            "127.0.0.1:0",
            false,
            false,
            false,
            serverTransport,
            null,
            new QpsServer.TlsFiles(cert, key));
    ManagedChannel channel =
        Grpc.newChannelBuilderForAddress(
                "localhost",
                tls.getPort(),
                TlsChannelCredentials.newBuilder().trustManager(cert).build())
            .build();
    try {
      SimpleResponse response =
          BenchmarkServiceTern.newBlockingStub(channel)
              .withDeadlineAfter(20, TimeUnit.SECONDS)
              .unaryCall(SimpleRequest.newBuilder().setResponseSize(3).build());
      assertThat(response.getPayload().getBody().size()).isEqualTo(3);
    } finally {
      channel.shutdownNow();
      tls.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      assertThat(tls.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void tlsCertWithoutKeyIsAUsageError() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        QpsServer.run(
            new String[] {"--address=127.0.0.1:0", "--tls_cert=cert.pem"},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(status).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("--tls_cert and --tls_key go together");
  }

  /** A short run against {@code other} prints the summary; {@code other} is then shut down. */
  private void servesTheSameRun(Server other) throws Exception {
    try {
      List<String> lines =
          runClient(
              "--address=127.0.0.1:" + other.getPort(),
              "--channels=1",
              "--outstanding_rpcs=2",
              "--warmup_duration=0",
              "--duration=1");

      assertSummaryShape(lines);
    } finally {
      other.shutdownNow();
      assertThat(other.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void heapPerCallFollowsTheSummary() throws Exception {
    List<String> lines =
        runClient(
            "--address=127.0.0.1:" + server.getPort(),
            "--channels=1",
            "--outstanding_rpcs=2",
            "--heap_per_call",
            "--warmup_duration=0",
            "--duration=1");

    assertSummaryShape(lines.subList(0, SUMMARY.size()));
    assertThat(lines.subList(SUMMARY.size(), lines.size()))
        .singleElement(InstanceOfAssertFactories.STRING)
        .matches("Client heap bytes per call: +[1-9]\\d*");
  }

  private static List<String> runClient(String... args) throws Exception {
    return runClient(QpsClient::run, args);
  }

  /** The lines {@code client} prints, after checking it succeeded with nothing on stderr. */
  static List<String> runClient(ProgramRun.Program client, String... args) throws Exception {
    ProgramRun output = ProgramRun.of(client, args);
    assertThat(output.status()).as("exit status; stderr: %s", output.err()).isZero();
    assertThat(output.err()).as("failed calls").isEmpty();
    return output.out().lines().toList();
  }

  static void assertSummaryShape(List<String> lines) {
    assertThat(lines).hasSize(SUMMARY.size());
    for (int i = 0; i < SUMMARY.size(); i++) {
      String template = SUMMARY.get(i);
      String label = template.substring(0, template.length() - 1);
      assertThat(lines.get(i)).startsWith(label);
      assertThat(lines.get(i).substring(label.length())).as(lines.get(i)).matches("\\d+");
    }
  }

  static PrintStream print(ByteArrayOutputStream bytes) {
    return new PrintStream(bytes, true, StandardCharsets.UTF_8);
  }
}
