package dev.tern.services.binarylog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.protobuf.ByteString;
import dev.tern.BinaryLog;
import dev.tern.services.binarylog.v1.GrpcLogEntry;
import dev.tern.services.binarylog.v1.Message;
import dev.tern.testing.LogCapture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileBinaryLogSinkTest {
  @TempDir Path dir;

  private static GrpcLogEntry entry(long sequence, int dataBytes) {
    return GrpcLogEntry.newBuilder()
        .setCallId(7)
        .setSequenceIdWithinCall(sequence)
        .setType(GrpcLogEntry.EventType.EVENT_TYPE_CLIENT_MESSAGE)
        .setMessage(
            Message.newBuilder()
                .setLength(dataBytes)
                .setData(ByteString.copyFrom(new byte[dataBytes])))
        .build();
  }

  @Test
  void entriesAreWrittenLengthDelimitedAndDroppedAfterClose() throws Exception {
    Path file = dir.resolve("log");
    FileBinaryLogSink sink = new FileBinaryLogSink(file);
    sink.write(entry(1, 3));
    sink.write(entry(2, 100_000));
    sink.flush();
    assertThat(TestCalls.read(file)).containsExactly(entry(1, 3), entry(2, 100_000));

    sink.write(entry(3, 0));
    sink.close();
    sink.write(entry(4, 0));
    sink.close();

    assertThat(TestCalls.read(file))
        .extracting(GrpcLogEntry::getSequenceIdWithinCall)
        .containsExactly(1L, 2L, 3L);
    assertThat(sink.path()).isEqualTo(file);
    assertThat(sink).hasToString("FileBinaryLogSink{" + file + "}");
  }

  @Test
  void aFailedWriteIsLoggedOnceAndLaterEntriesAreDropped() throws Exception {
    Path full = Path.of("/dev/full");
    assumeTrue(Files.isWritable(full), "needs Linux's /dev/full");
    try (LogCapture logs = new LogCapture(FileBinaryLogSink.class)) {
      FileBinaryLogSink sink = new FileBinaryLogSink(full);
      sink.write(entry(1, 100_000));
      sink.write(entry(2, 100_000));
      sink.flush();
      sink.close();

      assertThat(logs.records()).hasSize(1);
      LogRecord record = logs.records().get(0);
      assertThat(record.getLevel()).isEqualTo(Level.WARNING);
      assertThat(record.getMessage())
          .isEqualTo("Writing to the binary log /dev/full failed; logging stops");
    }
  }

  @Test
  void theDefaultLogWritesToATempFileItNamesAndLogsEverything() throws Exception {
    assumeTrue(
        System.getenv(BinaryLogs.FILTER_ENV) == null,
        "with " + BinaryLogs.FILTER_ENV + " set, the default log uses that filter");
    Path file;
    try (LogCapture logs = new LogCapture(FileBinaryLogSink.class)) {
      BinaryLog log = BinaryLogs.createBinaryLog();
      log.close();
      assertThat(logs.records()).hasSize(1);
      assertThat(logs.records().get(0).getMessage()).isEqualTo("Writing the binary log to {0}");
      file = (Path) logs.records().get(0).getParameters()[0];
    }
    try {
      assertThat(file.getParent()).isEqualTo(Path.of(System.getProperty("java.io.tmpdir")));
      assertThat(file.getFileName().toString()).startsWith("binarylog").endsWith(".log");
      assertThat(Files.size(file)).isZero();
    } finally {
      Files.deleteIfExists(file);
    }
  }
}
