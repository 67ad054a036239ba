package dev.tern.examples.routeguide;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.testtools.ProgramRun;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What bin/routeguide-client and bin/routeguide-server answer on their command line: help, bad
 * flags, and the client's exit status and one line when nothing listens.
 */
class RouteGuideCommandLineTest {
  @Test
  void helpListsEveryFlagWithItsDefaultAndAnExample() throws Exception {
    for (String help : new String[] {"--help", "-h"}) {
      ProgramRun client = ProgramRun.of(RouteGuideClient::run, help);
      ProgramRun server = ProgramRun.of(RouteGuideServer::run, help);

      assertThat(List.of(client, server))
          .allSatisfy(
              output -> {
                assertThat(output.status()).isZero();
                assertThat(output.err()).isEmpty();
                assertThat(output.out()).contains("--otlp=URL", "(default: none)", "Example:\n");
              });
      assertThat(client.out())
          .startsWith("routeguide-client: ")
          .contains("--target=HOST:PORT", "(default: localhost:50051)");
      assertThat(server.out())
          .startsWith("routeguide-server: ")
          .contains("--port=N", "(default: 50051)", "--prometheus-port=N", "--cors-origin=ORIGIN");
    }
    assertThat(RouteGuideDemo.HELP).startsWith("demo: ").contains("Usage: bin/demo\n");
  }

  @Test
  void badFlagsAreOneLineNamingTheFlagWithStatusTwo() throws Exception {
    ProgramRun client = ProgramRun.of(RouteGuideClient::run, "--port=1");
    ProgramRun server = ProgramRun.of(RouteGuideServer::run, "--port=fifty");

    assertThat(List.of(client, server))
        .allSatisfy(
            output -> {
              assertThat(output.status()).isEqualTo(2);
              assertThat(output.out()).isEmpty();
              assertThat(output.err()).hasLineCount(1);
            });
    assertThat(client.err()).isEqualTo("routeguide-client: unknown flag --port; see --help\n");
    assertThat(server.err())
        .isEqualTo("routeguide-server: --port needs a whole number, got 'fifty'; see --help\n");
  }

  @Test
  void aCorsOriginThatNoBrowserSendsIsABadFlag() throws Exception {
    for (String bad : new String[] {"127.0.0.1:8000", "http://127.0.0.1:8000/", ""}) {
      ProgramRun server =
          ProgramRun.of(RouteGuideServer::run, "--port=0", "--cors-origin=http://a.example," + bad);

      assertThat(server.status()).isEqualTo(2);
      assertThat(server.out()).isEmpty();
      assertThat(server.err())
          .isEqualTo(
              "routeguide-server: --cors-origin: '"
                  + bad
                  + "' is not an origin; give scheme://host[:port] as browsers send it, e.g."
                  + " http://127.0.0.1:8000; see --help\n");
    }
  }

  @Test
  void nothingListeningIsOneClearLineAndStatusOne() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }

    ProgramRun output = ProgramRun.of(RouteGuideClient::run, "--target=127.0.0.1:" + port);

    assertThat(output.status()).isEqualTo(1);
    assertThat(output.out()).isEmpty();
    assertThat(output.err())
        .startsWith("routeguide-client: could not connect to 127.0.0.1:" + port + ": UNAVAILABLE")
        .hasLineCount(1);
  }
}
