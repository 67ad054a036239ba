package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.testing.EchoService;
import dev.tern.testing.LogCapture;
import dev.tern.testing.RecordingClientCallListener;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.text.MessageFormat;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/**
 * A server that resets the connection (TCP RST) under a call: the call fails UNAVAILABLE with the
 * reset in its status, the transport logs one FINE line naming the connection, and Netty prints no
 * WARNING with a stack trace.
 */
class PeerResetLogTest {
  /** An empty SETTINGS frame: length 0, type 4, no flags, stream 0. */
  private static final byte[] EMPTY_SETTINGS = {0, 0, 0, 4, 0, 0, 0, 0, 0};

  /** The client connection preface's length, before the client's first frame. */
  private static final int PREFACE_LENGTH = 24;

  @Test
  void serverResettingTheConnectionIsOneFineLineAndTheCallsStatus() throws Exception {
    try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"));
        LogCapture tail = new LogCapture("io.netty.channel.DefaultChannelPipeline", null);
        LogCapture connections = new LogCapture("dev.tern.netty.connections", Level.FINE)) {
      CompletableFuture<Void> resetter =
          CompletableFuture.runAsync(() -> resetAfterFirstCall(listener));
      ManagedChannel channel =
          NettyChannelBuilder.forAddress("127.0.0.1", listener.getLocalPort())
              .usePlaintext()
              .build();
      try {
        ClientCall<String, String> call = channel.newCall(EchoService.UNARY, CallOptions.DEFAULT);
        RecordingClientCallListener<String> calls = new RecordingClientCallListener<>();
        call.start(calls, new Metadata());
        call.request(2);
        call.sendMessage("hello");
        call.halfClose();
        Status status = calls.awaitStatus();
        resetter.get(10, TimeUnit.SECONDS);

        assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(status.getDescription()).containsIgnoringCase("reset");
        assertThat(status.getDescription()).contains("I/O error");
        assertThat(status.getCause()).isInstanceOf(IOException.class);
        LogRecord line =
            connections.awaitRecord(
                r -> format(r).toLowerCase(Locale.ROOT).contains("reset"), Duration.ofSeconds(10));
        assertThat(line.getLevel()).isEqualTo(Level.FINE);
        assertThat(line.getThrown()).isNull();
        assertThat(format(line)).contains("127.0.0.1:" + listener.getLocalPort());
        assertThat(tail.records()).isEmpty();
      } finally {
        channel.shutdownNow();
        assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      }
    }
  }

  /**
   * Accepts one connection, answers the client's preface with SETTINGS, waits for the client's
   * frames (its call), then closes with SO_LINGER 0: a TCP RST.
   */
  private static void resetAfterFirstCall(ServerSocket listener) {
    try (Socket socket = listener.accept()) {
      InputStream in = socket.getInputStream();
      OutputStream out = socket.getOutputStream();
      byte[] preface = in.readNBytes(PREFACE_LENGTH);
      assertThat(preface).hasSize(PREFACE_LENGTH);
      out.write(EMPTY_SETTINGS);
      out.flush();
      // The client's SETTINGS, its ack of ours, then the call's HEADERS and DATA: read until the
      // DATA frame's bytes ("hello") have arrived, so the call is under way when the reset lands.
      byte[] seen = new byte[0];
      byte[] buffer = new byte[4096];
      while (!new String(seen, StandardCharsets.ISO_8859_1).contains("hello")) {
        int n = in.read(buffer);
        assertThat(n).as("the client's call").isPositive();
        byte[] more = new byte[seen.length + n];
        System.arraycopy(seen, 0, more, 0, seen.length);
        System.arraycopy(buffer, 0, more, seen.length, n);
        seen = more;
      }
      socket.setSoLinger(true, 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String format(LogRecord record) {
    return MessageFormat.format(record.getMessage(), record.getParameters());
  }
}
