package dev.tern.examples.routeguide;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What bin/routeguide-client and bin/routeguide-server answer on their command line: help, bad
 * flags, and the client's exit status and one line when nothing listens.
 */
class RouteGuideCommandLineTest {
  /** What one run of a program's {@code run(args, out, err)} returned and printed. */
  private record Output(int status, String out, String err) {}

  private interface Program {
    int run(String[] args, PrintStream out, PrintStream err) throws Exception;
  }

  private static Output run(Program program, String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        program.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Output(
        status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void helpListsEveryFlagWithItsDefaultAndAnExample() throws Exception {
    for (String help : new String[] {"--help", "-h"}) {
      Output client = run(RouteGuideClient::run, help);
      Output server = run(RouteGuideServer::run, help);

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
          .contains("--port=N", "(default: 50051)", "--prometheus-port=N");
    }
    assertThat(RouteGuideDemo.FLAGS.help()).startsWith("demo: ").contains("Usage: bin/demo\n");
  }

  @Test
  void badFlagsAreOneLineNamingTheFlagWithStatusTwo() throws Exception {
    Output client = run(RouteGuideClient::run, "--port=1");
    Output server = run(RouteGuideServer::run, "--port=fifty");

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
  void nothingListeningIsOneClearLineAndStatusOne() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }

    Output output = run(RouteGuideClient::run, "--target=127.0.0.1:" + port);

    assertThat(output.status()).isEqualTo(1);
    assertThat(output.out()).isEmpty();
    assertThat(output.err())
        .startsWith("routeguide-client: could not connect to 127.0.0.1:" + port + ": UNAVAILABLE")
        .hasLineCount(1);
  }
}
