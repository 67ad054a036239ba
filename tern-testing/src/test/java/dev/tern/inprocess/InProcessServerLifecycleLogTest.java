package dev.tern.inprocess;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.EchoService;
import dev.tern.testing.LogCapture;
import java.text.MessageFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/**
 * An in-process server says once at INFO which target reaches it when it starts, and once when it
 * stops; serving calls logs nothing at INFO on any Tern logger.
 */
class InProcessServerLifecycleLogTest {
  private static final String LOGGER = "dev.tern.inprocess.server";

  @Test
  void serverLogsItsTargetWhenItStartsAndWhenItStopsAndNothingPerCall() throws Exception {
    String name = InProcessServerBuilder.generateName();
    try (LogCapture lifecycle = new LogCapture(LOGGER, Level.INFO);
        LogCapture everythingElse = new LogCapture("dev.tern", Level.INFO)) {
      Server server =
          InProcessServerBuilder.forName(name).addService(EchoService.definition()).build().start();
      try {
        assertThat(lifecycle.records()).singleElement().satisfies(r -> assertInfo(r));
        assertThat(format(lifecycle.records().get(0)))
            .isEqualTo("Tern server listening on inprocess:" + name);

        ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
        try {
          for (int i = 0; i < 3; i++) {
            assertThat(
                    ClientCalls.blockingUnaryCall(
                        channel, EchoService.UNARY, CallOptions.DEFAULT, "call " + i))
                .isEqualTo("call " + i);
          }
        } finally {
          channel.shutdown();
          assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(lifecycle.records()).hasSize(1);
      } finally {
        server.shutdown();
        assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      }

      List<LogRecord> records = lifecycle.records();
      assertThat(records).hasSize(2);
      assertInfo(records.get(1));
      assertThat(format(records.get(1))).isEqualTo("Tern server on inprocess:" + name + " stopped");
      assertThat(everythingElse.records()).isEmpty();
    }
  }

  private static void assertInfo(LogRecord record) {
    assertThat(record.getLevel()).isEqualTo(Level.INFO);
    assertThat(record.getThrown()).isNull();
  }

  private static String format(LogRecord record) {
    return MessageFormat.format(record.getMessage(), record.getParameters());
  }
}
