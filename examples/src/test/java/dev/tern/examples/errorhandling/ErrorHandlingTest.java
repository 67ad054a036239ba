package dev.tern.examples.errorhandling;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Server;
import dev.tern.testing.LogCapture;
import dev.tern.testing.TernCleanupExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The example's server and client in one JVM, over HTTP/2 on loopback, as a user runs them. */
class ErrorHandlingTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @Test
  void clientPrintsPlainStatusesRichDetailsAndNothingOfTheServersBug() throws Exception {
    Server server = cleanup.register(ErrorHandlingServer.start(0));
    ManagedChannel channel =
        cleanup.register(
            ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build());
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    ErrorHandlingClient client =
        new ErrorHandlingClient(channel, new PrintStream(printed, true, StandardCharsets.UTF_8));

    // The "crash" call makes the server log its exception at WARNING: expected, and kept here.
    try (LogCapture log =
        new LogCapture("dev.tern.internal.server.ServerCallStreamListener", null)) {
      for (String name : ErrorHandlingClient.NAMES) {
        client.greet(name);
      }

      assertThat(printed.toString(StandardCharsets.UTF_8))
          .isEqualTo(
              String.join(
                  "\n",
                  "SayHello(\"Ada\")",
                  "  ok: Hello, Ada!",
                  "SayHello(\"\")",
                  "  INVALID_ARGUMENT: name must not be empty",
                  "SayHello(\"Bartholomew Montgomery Smythe\")",
                  "  INVALID_ARGUMENT: name is too long",
                  "    BadRequest: name at most 20 characters, got 29",
                  "    ErrorInfo: NAME_TOO_LONG in greeter.examples.tern.dev {max_length=20}",
                  "    Help: Naming rules <https://example.com/greeter/names>",
                  "SayHello(\"crash\")",
                  "  UNKNOWN: Application error processing RPC",
                  ""));
      LogRecord logged =
          log.awaitRecord(
              r -> r.getMessage().contains("tern.examples.helloworld.Greeter/SayHello"),
              Duration.ofSeconds(10));
      assertThat(logged.getLevel()).isEqualTo(Level.WARNING);
      assertThat(logged.getThrown())
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("greeting store unreachable at 10.0.0.7:5432");
    }
  }
}
