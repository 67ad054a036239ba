package dev.tern.netty.hostile;

import static dev.tern.netty.hostile.RawHttp2Connection.SETTINGS;
import static dev.tern.netty.hostile.RawHttp2Connection.frame;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.MethodDescriptor.MethodType;
import dev.tern.Status;
import dev.tern.netty.hostile.RawHttp2Connection.Frame;
import dev.tern.testing.RecordingClientCallListener;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testing.TestMarshallers;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The client's side of the control-frame limit: a server that sends SETTINGS frames, each of which
 * the client must acknowledge, and never reads the acknowledgements. A client that queued every
 * acknowledgement would grow without bound; Tern's closes the connection once the server has sent
 * more control frames without any work between them than the engine's flood guard allows (10,000,
 * {@code Http2Limits.maxControlFramesWithoutWork}), and the call on it ends UNAVAILABLE.
 */
@Tag("attack")
class ClientControlFrameFloodTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static final MethodDescriptor<String, String> UNARY =
      MethodDescriptor.newBuilder(TestMarshallers.utf8(), TestMarshallers.utf8())
          .setFullMethodName("fake.Server/Unary")
          .setType(MethodType.UNARY)
          .build();

  /**
   * SETTINGS frames sent: 9 MB of frames, 9 MB of acknowledgements, more than the socket buffers on
   * both sides hold (a few MB on loopback), so that most would have to queue in the client.
   */
  private static final int FLOOD = 1_000_000;

  private static final int BATCH = 1_000;

  @Test
  void settingsFloodFromAServerThatDoesNotReadIsCutOff() throws Exception {
    try (ServerSocket listener = new ServerSocket()) {
      listener.setReceiveBufferSize(4096); // inherited by the accepted socket: a small TCP window
      listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      ManagedChannel channel =
          cleanup.register(
              ManagedChannelBuilder.forAddress("127.0.0.1", listener.getLocalPort())
                  .usePlaintext()
                  .build());
      ClientCall<String, String> call =
          channel.newCall(UNARY, CallOptions.DEFAULT.withDeadlineAfter(2, TimeUnit.MINUTES));
      RecordingClientCallListener<String> recorder = new RecordingClientCallListener<>();
      call.start(recorder, new Metadata());
      call.request(1);
      call.sendMessage("request");
      call.halfClose();

      try (RawHttp2Connection raw = RawHttp2Connection.accept(listener)) {
        for (Frame frame = raw.readFrame(); !frame.endStream(); frame = raw.readFrame()) {
          // Reads up to the end of the request, then never again.
        }
        ByteArrayOutputStream batch = new ByteArrayOutputStream();
        for (int i = 0; i < BATCH; i++) {
          batch.writeBytes(frame(SETTINGS, 0, 0, new byte[0]));
        }
        byte[] frames = batch.toByteArray();
        for (int sent = 0; sent < FLOOD && !raw.writeFailed(); sent += BATCH) {
          raw.writeRaw(frames);
        }
        assertThat(raw.writeFailed())
            .as("the client closed the connection before the whole flood was written")
            .isTrue();
      }

      Status status = recorder.awaitStatus();
      assertThat(status.getCode()).as("%s", status).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(recorder.violations()).isEmpty();
    }
  }
}
