package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.testtools.ProgramRun;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What bin/interop-client and bin/interop-server answer on their command line: help, bad flags, and
 * the client's exit status when its cases pass and when they fail.
 */
class InteropCommandLineTest {
  @Test
  void helpListsEveryFlagWithItsDefaultAndAnExample() throws Exception {
    for (String help : new String[] {"--help", "-h"}) {
      ProgramRun client = ProgramRun.of(InteropClient::run, help, "--server_port=1");
      ProgramRun server = ProgramRun.of(InteropServer::run, help);

      assertThat(List.of(client, server))
          .allSatisfy(
              output -> {
                assertThat(output.status()).isZero();
                assertThat(output.err()).isEmpty();
                assertThat(output.out()).contains("(default: 8080)", "Example:\n");
              });
      assertThat(client.out())
          .startsWith("interop-client: ")
          .contains(
              "--server_host=HOST",
              "--server_port=N",
              "--test_case=NAME[,NAME...]|all",
              "(default: large_unary)",
              "--use_tls[=true|false]",
              "--use_test_ca[=true|false]",
              "--server_host_override=NAME",
              "--soak_iterations=N",
              "--list_test_cases[=true|false]",
              "Exit status: 0 when every case passed");
      assertThat(server.out())
          .startsWith("interop-server: ")
          .contains("--port=N", "--use_tls[=true|false]");
    }
  }

  @Test
  void badFlagsAreOneLineNamingTheFlagWithStatusTwo() throws Exception {
    ProgramRun withoutValue = ProgramRun.of(InteropClient::run, "--help-me");
    ProgramRun unknownCase =
        ProgramRun.of(InteropClient::run, "--test_case=large_unary,huge_unary");
    ProgramRun badPort = ProgramRun.of(InteropClient::run, "--server_port=http");
    ProgramRun serverFlag = ProgramRun.of(InteropServer::run, "--server_port=1");

    assertThat(List.of(withoutValue, unknownCase, badPort, serverFlag))
        .allSatisfy(
            output -> {
              assertThat(output.status()).isEqualTo(2);
              assertThat(output.out()).isEmpty();
              assertThat(output.err()).endsWith("; see --help\n").hasLineCount(1);
            });
    assertThat(withoutValue.err())
        .isEqualTo("interop-client: unknown flag --help-me; see --help\n");
    assertThat(unknownCase.err()).contains("unknown --test_case huge_unary; known: all, ");
    assertThat(badPort.err()).contains("--server_port needs a whole number, got 'http'");
    assertThat(serverFlag.err())
        .isEqualTo("interop-server: unknown flag --server_port; see --help\n");
  }

  @Test
  void serverRefusesHttp3WithoutTlsNamingTheFlags() throws Exception {
    ProgramRun run = ProgramRun.of(InteropServer::run, "--port=0", "--http3");

    assertThat(run.status()).isEqualTo(2);
    assertThat(run.out()).isEmpty();
    assertThat(run.err())
        .isEqualTo("interop-server: --http3 needs --use_tls=true (HTTP/3 always runs over TLS)\n");
  }

  @Test
  void listsTheCasesOneALine() throws Exception {
    ProgramRun output = ProgramRun.of(InteropClient::run, "--list_test_cases");

    assertThat(output.status()).isZero();
    assertThat(output.out().lines()).containsExactlyElementsOf(InteropCases.ALL);
  }

  @Test
  void statusIsZeroWhenTheCasesPassAndOneWhenNothingListens() throws Exception {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    Server server = InteropServer.start(0, false, Path.of("unused"), scheduler);
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    ProgramRun passed;
    ProgramRun failed;
    try {
      passed =
          ProgramRun.of(
              InteropClient::run,
              "--server_host=127.0.0.1",
              "--server_port=" + server.getPort(),
              "--test_case=empty_unary,large_unary");
      failed =
          ProgramRun.of(
              InteropClient::run,
              "--server_host=127.0.0.1",
              "--server_port=" + closedPort,
              "--test_case=empty_unary");
    } finally {
      server.shutdownNow();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      scheduler.shutdownNow();
    }

    assertThat(passed.status()).as(passed.out()).isZero();
    assertThat(passed.out()).isEqualTo("PASS empty_unary\nPASS large_unary\n");
    assertThat(failed.status()).isEqualTo(1);
    assertThat(failed.out()).startsWith("FAIL empty_unary: UNAVAILABLE").hasLineCount(1);
  }
}
