package dev.tern.benchmarks.qps;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.testtools.ProgramRun;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * ConnectionsClient, the client of bin/bench-compare's connections part, on both systems' channels
 * against Tern's QpsServer: the lines the driver reads ('idle connections: N', the new-connection
 * summary) and the flag errors. Timings are only checked to be numbers.
 */
class ConnectionsClientTest {
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
  void ternChannelsHoldIdleConnectionsFromTheSourceAddresses() throws Exception {
    ProgramRun run =
        run(
            "--system=tern",
            "--idle_connections=6",
            "--source_addresses=3",
            "--concurrent_opens=2",
            "--hold_seconds=1");

    assertThat(run.out())
        .matches(
            "idle connections: 6 \\(opened in \\d+\\.\\d s, client ends on"
                + " 127\\.0\\.0\\.2\\.\\.127\\.0\\.0\\.4\\)\\R");
  }

  @Test
  void grpcJavaChannelsHoldIdleConnections() throws Exception {
    ProgramRun run = run("--system=grpc-java", "--idle_connections=4", "--hold_seconds=1");

    assertThat(run.out()).startsWith("idle connections: 4 (opened in ");
  }

  @Test
  void bothSystemsTimeNewConnections() throws Exception {
    for (String system : List.of("tern", "grpc-java")) {
      ProgramRun run = run("--system=" + system, "--new_connections=5", "--warmup_connections=2");

      List<String> lines = run.out().lines().toList();
      assertThat(lines).as(system).hasSize(7);
      assertThat(lines.get(0)).isEqualTo("New connections:                5");
      assertThat(lines.get(1)).isEqualTo("Warm-up connections:            2");
      for (String line : lines.subList(2, 7)) {
        assertThat(line).as(system).matches("[^:]+: +\\d+");
      }
      assertThat(lines.get(6)).startsWith("Connections per second:");
    }
  }

  @Test
  void badFlagsAreNamedAndNothingRuns() throws Exception {
    ProgramRun neither = ProgramRun.of(ConnectionsClient::run, "--address=127.0.0.1:1");
    ProgramRun both =
        ProgramRun.of(
            ConnectionsClient::run,
            "--address=127.0.0.1:1",
            "--idle_connections=1",
            "--new_connections=1");
    ProgramRun system =
        ProgramRun.of(ConnectionsClient::run, "--system=okhttp", "--new_connections=1");
    ProgramRun sources =
        ProgramRun.of(ConnectionsClient::run, "--source_addresses=300", "--new_connections=1");

    for (ProgramRun run : List.of(neither, both, system, sources)) {
      assertThat(run.status()).as(run.err()).isEqualTo(2);
      assertThat(run.out()).isEmpty();
    }
    assertThat(neither.err()).contains("give one of --idle_connections and --new_connections");
    assertThat(both.err()).contains("give one of --idle_connections and --new_connections");
    assertThat(system.err()).contains("--system must be tern or grpc-java, got okhttp");
    assertThat(sources.err()).contains("--source_addresses must be 0..250, got 300");
  }

  private ProgramRun run(String... args) throws Exception {
    String[] all = new String[args.length + 1];
    all[0] = "--address=127.0.0.1:" + server.getPort();
    System.arraycopy(args, 0, all, 1, args.length);
    ProgramRun run = ProgramRun.of(ConnectionsClient::run, all);
    assertThat(run.status()).as("exit status; stderr: %s", run.err()).isZero();
    assertThat(run.err()).isEmpty();
    return run;
  }
}
