package dev.tern.netty.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netty.hostile.LeakWatch;
import dev.tern.netty.testing.Http2Peer;
import dev.tern.testing.RecordingServerTransportListener;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link ProtocolDetector} on an {@link EmbeddedChannel}: what a plaintext client's first packet
 * gets back.
 */
class ProtocolDetectorTest {
  /** The client preface (RFC 9113 section 3.4) and an empty SETTINGS frame, as one packet. */
  private static final byte[] PREFACE_AND_SETTINGS = {
    'P', 'R', 'I', ' ', '*', ' ', 'H', 'T', 'T', 'P', '/', '2', '.', '0', '\r', '\n', '\r', '\n',
    'S', 'M', '\r', '\n', '\r', '\n', 0, 0, 0, 4, 0, 0, 0, 0, 0
  };

  @RegisterExtension final LeakWatch leaks = new LeakWatch();

  private final EmbeddedChannel channel = new EmbeddedChannel();

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  @Test
  void aClientsPrefaceIsAnsweredInOneWrite_theServersSettingsAndTheirAck() throws Exception {
    NettyServerTransport transport =
        new NettyServerTransport(channel, ServerOptions.withLimits(4 * 1024 * 1024, 1024));
    transport.setTransportListener(
        new RecordingServerTransportListener(transport, 4 * 1024 * 1024));
    channel.pipeline().addLast(new ProtocolDetector(transport, true));

    channel.writeInbound(Unpooled.wrappedBuffer(PREFACE_AND_SETTINGS));

    // One buffer, so one write to the socket: a flush of the server's SETTINGS alone cost every
    // new connection a system call and a packet of their own.
    assertThat(channel.outboundMessages()).hasSize(1);
    assertThat(new Http2Peer(channel).frames())
        .extracting(Object::getClass)
        .containsSubsequence(Http2Peer.Settings.class, Http2Peer.SettingsAck.class);
  }
}
