package dev.tern.http3.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.http3.internal.frame.Http3Errors;
import dev.tern.http3.internal.frame.Http3Frames;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.testing.EchoService;
import dev.tern.testing.LogCapture;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testtools.TestPems;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicClientCodecBuilder;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.nio.file.Files;
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

  /** Discards whatever the server sends on the streams it opens (control, QPACK). */
  private static final class Discard extends ChannelInboundHandlerAdapter {
    @Override
    public boolean isSharable() {
      return true;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ReferenceCountUtil.release(msg);
    }
  }

  /** Opens a stream, writes {@code firstByte} and resets it, in one task: so in one packet. */
  private static void resetAtOnce(QuicChannel quic, QuicStreamType type, long firstByte)
      throws Exception {
    QuicStreamChannel stream = quic.createStream(type, new Discard()).get(10, TimeUnit.SECONDS);
    stream
        .eventLoop()
        .submit(
            () -> {
              stream.write(Unpooled.wrappedBuffer(new byte[] {(byte) firstByte}));
              stream.shutdownOutput((int) Http3Errors.H3_REQUEST_CANCELLED);
            })
        .sync();
  }

  @Test
  void streamsResetBeforeTheirFirstReadEndWithoutWarnings() throws Exception {
    TestPems pems = TestPems.generate("localhost", "dns:localhost,ip:127.0.0.1");
    Path cert = Files.writeString(dir.resolve("cert.pem"), pems.certificatePem);
    Path key = Files.writeString(dir.resolve("key.pem"), pems.keyPem);
    Server server =
        cleanup.register(
            NettyServerBuilder.forPort(0)
                .useTransportSecurity(cert.toFile(), key.toFile())
                .enableHttp3()
                .addService(EchoService.definition())
                .build()
                .start());
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try (LogCapture log = new LogCapture(ChannelInitializer.class)) {
      ChannelHandler codec =
          new QuicClientCodecBuilder()
              .sslContext(
                  QuicSslContextBuilder.forClient()
                      .trustManager(InsecureTrustManagerFactory.INSTANCE)
                      .applicationProtocols("h3")
                      .build())
              .maxIdleTimeout(30, TimeUnit.SECONDS)
              .initialMaxData(1 << 20)
              .initialMaxStreamDataBidirectionalLocal(1 << 16)
              .initialMaxStreamDataUnidirectional(1 << 16)
              .initialMaxStreamsUnidirectional(10)
              .build();
      Channel udp =
          new Bootstrap()
              .group(group)
              .channel(NioDatagramChannel.class)
              .handler(codec)
              .bind(new InetSocketAddress("127.0.0.1", 0))
              .sync()
              .channel();
      QuicChannel quic =
          QuicChannel.newBootstrap(udp)
              .handler(new Discard())
              .streamHandler(new Discard())
              .remoteAddress(new InetSocketAddress("127.0.0.1", server.getPort()))
              .connect()
              .get(10, TimeUnit.SECONDS);

      // Ten of each: within the server's initial stream limits (16 unidirectional), so the test
      // does not depend on how soon the server grants more with MAX_STREAMS.
      for (int i = 0; i < 10; i++) {
        // A request stream (its first byte: a HEADERS frame's type), and a unidirectional stream
        // of a reserved type, which the server reads and ignores.
        resetAtOnce(quic, QuicStreamType.BIDIRECTIONAL, Http3Frames.HEADERS);
        resetAtOnce(quic, QuicStreamType.UNIDIRECTIONAL, 0x21);
      }
      // A SETTINGS frame on a request stream is a connection error: once the server closes the
      // connection for it, it has handled every stream opened before.
      QuicStreamChannel last =
          quic.createStream(QuicStreamType.BIDIRECTIONAL, new Discard()).get(10, TimeUnit.SECONDS);
      last.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {(byte) Http3Frames.SETTINGS, 0}));
      assertThat(quic.closeFuture().await(10, TimeUnit.SECONDS)).isTrue();

      assertThat(log.records()).extracting(LogRecord::getMessage).isEmpty();
    } finally {
      group.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
    }
  }
}
