package dev.tern.http3.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.http3.internal.frame.Http3Errors;
import dev.tern.http3.internal.frame.Http3Frames;
import dev.tern.testing.LogCapture;
import dev.tern.testing.TernCleanupExtension;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stream the client resets before the server has read from it (the RESET_STREAM in the packet
 * that opens the stream: a call cancelled, or past its deadline, as soon as it began, which
 * connect-go's client over quic-go sends under load) ends quietly, as any other client cancel does:
 * no warning with a stack trace per stream from Netty's stream initializer.
 */
class EarlyResetTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @TempDir Path dir;

  @Test
  void streamsResetBeforeTheirFirstReadEndWithoutWarnings() throws Exception {
    Server server = cleanup.register(QuicPeer.server(dir).build().start());
    try (LogCapture log = new LogCapture(ChannelInitializer.class);
        QuicPeer peer = QuicPeer.connect(new InetSocketAddress("127.0.0.1", server.getPort()))) {
      // Ten of each: within the server's initial stream limits (16 unidirectional), so the test
      // does not depend on how soon the server grants more with MAX_STREAMS.
      for (int i = 0; i < 10; i++) {
        // A request stream (its first byte: a HEADERS frame's type), and a unidirectional stream
        // of a reserved type, which the server reads and ignores.
        peer.resetAtOnce(
            QuicStreamType.BIDIRECTIONAL, Http3Frames.HEADERS, Http3Errors.H3_REQUEST_CANCELLED);
        peer.resetAtOnce(QuicStreamType.UNIDIRECTIONAL, 0x21, Http3Errors.H3_REQUEST_CANCELLED);
      }
      // A SETTINGS frame on a request stream is a connection error: once the server closes the
      // connection for it, it has handled every stream opened before.
      QuicStreamChannel last =
          peer.quic()
              .createStream(QuicStreamType.BIDIRECTIONAL, new QuicPeer.Discard())
              .get(10, TimeUnit.SECONDS);
      last.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {(byte) Http3Frames.SETTINGS, 0}));
      assertThat(peer.awaitClose().error()).isEqualTo((int) Http3Errors.H3_FRAME_UNEXPECTED);

      assertThat(log.records()).extracting(LogRecord::getMessage).isEmpty();
    }
  }
}
