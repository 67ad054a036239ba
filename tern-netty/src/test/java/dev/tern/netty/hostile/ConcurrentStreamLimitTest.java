package dev.tern.netty.hostile;

import static dev.tern.netty.hostile.RawHttp2Connection.FLAG_END_HEADERS;
import static dev.tern.netty.hostile.RawHttp2Connection.HEADERS;
import static dev.tern.netty.hostile.RawHttp2Connection.RST_STREAM;
import static dev.tern.netty.hostile.RawHttp2Connection.frame;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcMessage;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcRequestHeaders;
import static dev.tern.netty.hostile.RawHttp2Connection.headerBlock;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.netty.hostile.RawHttp2Connection.Frame;
import dev.tern.netty.hostile.RawHttp2Connection.StreamEnd;
import dev.tern.netty.internal.server.ServerOptions;
import dev.tern.testing.Await;
import dev.tern.testing.RecordingClientCallListener;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The default bound on concurrent calls per connection: advertised in the server's SETTINGS,
 * enforced with RST_STREAM(REFUSED_STREAM) on a client that opens streams beyond it, and honoured
 * by Tern's own client, which queues the calls beyond it instead of failing them.
 */
@Tag("attack")
class ConcurrentStreamLimitTest extends HostileServerBase {
  private static final int LIMIT = ServerOptions.DEFAULT_MAX_CONCURRENT_CALLS_PER_CONNECTION;
  private static final int SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
  private static final int REFUSED_STREAM = 0x7;
  private static final String ECHO_PATH = "/tern.testing.Echo/Unary";

  @Test
  void streamsBeyondTheAdvertisedLimitAreRefusedWhileTheOthersAreServed() throws IOException {
    try (RawHttp2Connection raw = openRaw()) {
      // Reading the SETTINGS acknowledges them, and the server enforces its limit from the ACK.
      assertThat(raw.awaitPeerSetting(SETTINGS_MAX_CONCURRENT_STREAMS, -1)).isEqualTo(LIMIT);
      // LIMIT requests that stay open (no message yet), then one more, in one write.
      byte[] block = headerBlock(grpcRequestHeaders(ECHO_PATH));
      ByteArrayOutputStream streams = new ByteArrayOutputStream();
      for (int i = 0; i <= LIMIT; i++) {
        streams.writeBytes(frame(HEADERS, FLAG_END_HEADERS, 1 + 2 * i, block));
      }
      raw.writeRaw(streams.toByteArray());
      int excess = 1 + 2 * LIMIT;

      Frame reset = raw.awaitFrame(RST_STREAM);
      assertThat(reset).as("RST_STREAM for the stream over the limit").isNotNull();
      assertThat(reset.streamId()).as("RST_STREAM %s", reset).isEqualTo(excess);
      assertThat(reset.errorCode()).as("RST_STREAM %s", reset).isEqualTo(REFUSED_STREAM);

      // An admitted call completes; its end frees a slot for a new stream.
      assertEchoes(raw, 1);
      raw.writeHeaders(excess + 2, false, grpcRequestHeaders(ECHO_PATH));
      assertEchoes(raw, excess + 2);
    }
    assertStillServingWellBehavedClient();
  }

  @Test
  void ternClientQueuesCallsBeyondTheDefaultLimit() throws IOException {
    int calls = LIMIT + 20;
    ManagedChannel ownChannel =
        cleanup.register(
            ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build());
    List<RecordingClientCallListener<String>> listeners = new ArrayList<>();
    for (int i = 0; i < calls; i++) {
      ClientCall<String, String> call = ownChannel.newCall(HostileProbe.GATE, CallOptions.DEFAULT);
      RecordingClientCallListener<String> listener = new RecordingClientCallListener<>();
      call.start(listener, new Metadata());
      call.request(1);
      call.sendMessage("call " + i);
      call.halfClose();
      listeners.add(listener);
    }

    // The server holds the first LIMIT; only then is the connection known to be full.
    List<Runnable> first = new ArrayList<>();
    for (int i = 0; i < LIMIT; i++) {
      first.add(Await.poll(probe.gated, "call " + i + " to reach the server"));
    }
    assertThat(probe.gatedNow).as("calls the server holds, connection full").hasValue(LIMIT);
    first.forEach(Runnable::run);
    for (int i = LIMIT; i < calls; i++) {
      Await.poll(probe.gated, "call " + i + " to reach the server").run();
    }

    for (RecordingClientCallListener<String> listener : listeners) {
      assertThat(listener.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
      assertThat(listener.awaitMessage()).isEqualTo("released");
    }
    assertThat(probe.gatedMost).as("calls the server held at once").hasValue(LIMIT);
    assertStillServingWellBehavedClient();
  }

  private static void assertEchoes(RawHttp2Connection raw, int streamId) throws IOException {
    raw.writeData(streamId, true, grpcMessage(0, "echo".getBytes(UTF_8)));
    StreamEnd end = raw.awaitStreamEnd(streamId);
    assertThat(end.reset()).as("stream %d ended by %s", streamId, end.last()).isFalse();
    assertThat(end.headers()).as("stream %d", streamId).containsEntry("grpc-status", "0");
  }
}
