package dev.tern.netty.hostile;

import static dev.tern.netty.hostile.RawHttp2Connection.NO_ERROR;
import static dev.tern.netty.hostile.RawHttp2Connection.RST_STREAM;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcPrefix;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcRequestHeaders;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netty.hostile.RawHttp2Connection.Frame;
import dev.tern.netty.hostile.RawHttp2Connection.StreamEnd;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Requests over the server's inbound message limit (4 MiB by default), sent over a raw HTTP/2
 * connection: the client must read RESOURCE_EXHAUSTED in trailers, whether the prefix announces too
 * much or a compressed message expands too far (also on many streams at once, and in steps each far
 * under the limit: the limit is on the decompressed message), and a reset that follows the trailers
 * must not carry an error code that clients would report instead of the status.
 */
class OversizedRequestTest extends HostileServerBase {
  private static final String ECHO_PATH = "/tern.testing.Echo/Unary";
  private static final int LIMIT = 4 * 1024 * 1024;
  private static final int MAX_FRAME = 16 * 1024;

  /** Streams that each carry a gzip bomb at once. */
  private static final int BOMBS = 20;

  @Test
  void messageOverTheLimitGetsResourceExhaustedTrailersThenResetWithoutError() throws IOException {
    try (RawHttp2Connection raw = openRaw()) {
      raw.writeHeaders(1, false, grpcRequestHeaders(ECHO_PATH));
      // The prefix announces 5 MiB; the client is still sending when the server answers.
      raw.writeData(1, false, grpcPrefix(0, 5 * 1024 * 1024, new byte[100]));
      StreamEnd end = raw.awaitStreamEnd(1);

      assertThat(end.headers()).as("frames %s", end.frames()).containsEntry("grpc-status", "8");
      assertThat(end.headers().get("grpc-message"))
          .isEqualTo("gRPC message exceeds maximum size " + LIMIT + ": " + 5 * 1024 * 1024);
      // The response is complete; the reset only asks the client to stop sending (RFC 9113 8.1).
      // With CANCEL, gRPC C-core clients (grpcio) report CANCELLED instead of the trailers.
      Frame reset = raw.awaitFrame(RST_STREAM);
      assertThat(reset).as("RST_STREAM after the trailers").isNotNull();
      assertThat(reset.streamId()).isEqualTo(1);
      assertThat(reset.errorCode()).as("%s", reset).isEqualTo(NO_ERROR);
    }
    assertStillServingWellBehavedClient();
  }

  @Test
  @Tag("attack")
  void gzipBombOverTheLimitIsResourceExhaustedNotInternal() throws IOException {
    // 32 MiB of zeros gzip to about 32 KiB: within the initial flow-control window, and far under
    // the limit as sent, but 8 times the limit once expanded.
    byte[] bomb = gzip(32 * 1024 * 1024);
    assertThat(bomb.length).isLessThan(65_535 - 5);
    byte[] message = grpcPrefix(1, bomb.length, bomb);
    List<String[]> headers = grpcRequestHeaders(ECHO_PATH);
    headers.add(new String[] {"grpc-encoding", "gzip"});
    try (RawHttp2Connection raw = openRaw()) {
      raw.writeHeaders(1, false, headers);
      for (int offset = 0; offset < message.length; offset += MAX_FRAME) {
        int end = Math.min(message.length, offset + MAX_FRAME);
        raw.writeData(1, end == message.length, Arrays.copyOfRange(message, offset, end));
      }
      StreamEnd end = raw.awaitStreamEnd(1);

      assertThat(end.headers()).as("frames %s", end.frames()).containsEntry("grpc-status", "8");
      assertThat(end.headers().get("grpc-message")).contains(Integer.toString(LIMIT));
    }
    assertMemoryBounded(bomb.length + LIMIT, "maxInboundMessageSize, after decompression");
    assertStillServingWellBehavedClient();
  }

  @Test
  @Tag("attack")
  void concurrentGzipBombsAreEachResourceExhausted() throws IOException {
    byte[] bomb = gzip(32 * 1024 * 1024);
    byte[] message = grpcPrefix(1, bomb.length, bomb);
    List<String[]> headers = grpcRequestHeaders(ECHO_PATH);
    headers.add(new String[] {"grpc-encoding", "gzip"});
    try (RawHttp2Connection raw = openRaw()) {
      // Each stream's window (64 KiB) takes its bomb; the connection's (1 MiB) takes them all.
      for (int i = 0; i < BOMBS; i++) {
        raw.writeHeaders(1 + 2 * i, false, headers);
        writeInFrames(raw, 1 + 2 * i, message, MAX_FRAME);
      }
      List<StreamEnd> ends = raw.awaitStreamEnds(BOMBS);
      for (int i = 0; i < BOMBS; i++) {
        StreamEnd end = ends.get(i);

        assertThat(end.headers())
            .as("stream %d: frames %s", 1 + 2 * i, end.frames())
            .containsEntry("grpc-status", "8");
      }
    }
    // The compressed messages are buffered until read; what each expands to is counted, not kept.
    assertMemoryBounded(
        (long) BOMBS * (bomb.length + MAX_FRAME), "maxInboundMessageSize, after decompression");
    assertStillServingWellBehavedClient();
  }

  @Test
  @Tag("attack")
  void bombThatExpandsInSmallStepsIsCutOffAtTheMessageLimit() throws IOException {
    // One byte over the limit, in flushed deflate blocks of 16 KiB each, sent 100 bytes a frame:
    // no single read or block comes near the limit, only the message as a whole.
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(out, 1024, true)) {
      byte[] step = new byte[16 * 1024];
      for (int written = 0; written < LIMIT; written += step.length) {
        gzip.write(step);
        gzip.flush();
      }
      gzip.write(1);
    }
    assertBombCutOff(out.toByteArray());
  }

  @Test
  @Tag("attack")
  void bombOfManyGzipMembersIsCutOffAtTheMessageLimit() throws IOException {
    // Five concatenated gzip members of 1 MiB each: each far under the limit, all five over it.
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int member = 0; member < 5; member++) {
      out.writeBytes(gzip(1024 * 1024));
    }
    assertBombCutOff(out.toByteArray());
  }

  /**
   * Sends {@code compressed} as one gzip message in 100-byte frames; expects RESOURCE_EXHAUSTED.
   */
  private void assertBombCutOff(byte[] compressed) throws IOException {
    byte[] message = grpcPrefix(1, compressed.length, compressed);
    assertThat(message.length).isLessThan(65_535);
    List<String[]> headers = grpcRequestHeaders(ECHO_PATH);
    headers.add(new String[] {"grpc-encoding", "gzip"});
    try (RawHttp2Connection raw = openRaw()) {
      raw.writeHeaders(1, false, headers);
      writeInFrames(raw, 1, message, 100);
      StreamEnd end = raw.awaitStreamEnd(1);

      assertThat(end.headers()).as("frames %s", end.frames()).containsEntry("grpc-status", "8");
      assertThat(end.headers().get("grpc-message"))
          .isEqualTo("Decompressed gRPC message exceeds maximum size " + LIMIT);
    }
    assertMemoryBounded(message.length + LIMIT, "maxInboundMessageSize, after decompression");
    assertStillServingWellBehavedClient();
  }

  /**
   * Writes {@code message} on {@code streamId} in DATA frames of {@code frameSize}, then ends it.
   */
  private static void writeInFrames(
      RawHttp2Connection raw, int streamId, byte[] message, int frameSize) throws IOException {
    for (int offset = 0; offset < message.length; offset += frameSize) {
      int end = Math.min(message.length, offset + frameSize);
      raw.writeData(streamId, end == message.length, Arrays.copyOfRange(message, offset, end));
    }
  }

  private static byte[] gzip(int zeros) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
      byte[] chunk = new byte[64 * 1024];
      for (int written = 0; written < zeros; written += chunk.length) {
        gzip.write(chunk);
      }
    }
    return out.toByteArray();
  }
}
