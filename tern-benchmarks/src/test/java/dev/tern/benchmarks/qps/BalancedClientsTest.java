package dev.tern.benchmarks.qps;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.testtools.ProgramRun;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The two clients of tern-benchmarks/scripts/rr-compare.sh, Tern's QpsClient with --target and
 * grpc-java's GrpcJavaBalancedClient, each run for a second over round_robin against three
 * QpsServers on 127.0.0.2, .3 and .4: both print the summary block and then show that every server
 * answered calls (the ratio the script reports is only fair if both balance).
 */
class BalancedClientsTest {
  private static final Pattern CALLS = Pattern.compile("Calls answered by (\\S+): (\\d+)");
  private static final List<String> HOSTS = List.of("127.0.0.2", "127.0.0.3", "127.0.0.4");

  private Transport serverTransport;
  private final List<Server> servers = new ArrayList<>();

  @BeforeEach
  void startServers() throws Exception {
    serverTransport = Transport.named("nio");
    for (String host : HOSTS) {
      servers.add(QpsServer.start(host + ":0", false, serverTransport));
    }
  }

  @AfterEach
  void stopServers() throws InterruptedException {
    for (Server server : servers) {
      server.shutdownNow();
    }
    for (Server server : servers) {
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    serverTransport.close();
  }

  @Test
  void ternClientSpreadsCallsOverAllThreeServers() throws Exception {
    List<String> lines = run(QpsClient::run);

    assertBalancedRun(lines);
  }

  @Test
  void grpcJavaClientSpreadsCallsOverAllThreeServers() throws Exception {
    List<String> lines = run(GrpcJavaBalancedClient::run);

    assertBalancedRun(lines);
  }

  @Test
  void badTargetsAreNamedAndNothingRuns() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream outStream = QpsToolsTest.print(out);
    PrintStream errStream = QpsToolsTest.print(err);

    int both =
        QpsClient.run(
            new String[] {"--address=127.0.0.1:1", "--target=ipv4:127.0.0.1:1"},
            outStream,
            errStream);
    int policy =
        QpsClient.run(
            new String[] {"--target=ipv4:127.0.0.1:1", "--lb_policy=fastest"},
            outStream,
            errStream);
    int grpcJavaDns =
        GrpcJavaBalancedClient.run(new String[] {"--target=dns:///x:1"}, outStream, errStream);
    int grpcJavaHost =
        GrpcJavaBalancedClient.run(
            new String[] {"--target=ipv4:127.0.0.1:1,localhost:2"}, outStream, errStream);

    assertThat(List.of(both, policy, grpcJavaDns, grpcJavaHost)).containsOnly(2);
    assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("--address and --target exclude each other")
        .contains("--lb_policy=fastest is not a registered policy")
        .contains("--target=ipv4:HOST:PORT,HOST:PORT,... is needed, got dns:///x:1")
        .contains("with IPv4 literals, got 'localhost:2'");
  }

  private List<String> run(ProgramRun.Program client) throws Exception {
    String target = "ipv4:" + String.join(",", serverNames());
    ProgramRun output =
        ProgramRun.of(
            client,
            "--target=" + target,
            "--lb_policy=round_robin",
            "--channels=1",
            "--outstanding_rpcs=3",
            "--warmup_duration=0",
            "--duration=1");
    assertThat(output.status()).as("exit status; stderr: %s", output.err()).isZero();
    assertThat(output.err()).as("failed calls").isEmpty();
    return output.out().lines().toList();
  }

  private void assertBalancedRun(List<String> lines) {
    assertThat(lines).hasSize(11 + servers.size());
    QpsToolsTest.assertSummaryShape(lines.subList(0, 11));
    List<String> answered = new ArrayList<>();
    for (String line : lines.subList(11, lines.size())) {
      Matcher m = CALLS.matcher(line);
      assertThat(m.matches()).as(line).isTrue();
      assertThat(Long.parseLong(m.group(2))).as(line).isPositive();
      answered.add(m.group(1));
    }
    assertThat(answered).containsExactlyInAnyOrderElementsOf(serverNames());
  }

  /** HOST:PORT of each server. */
  private List<String> serverNames() {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < servers.size(); i++) {
      names.add(HOSTS.get(i) + ":" + servers.get(i).getPort());
    }
    return names;
  }
}
