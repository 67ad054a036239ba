package dev.tern.http3.internal.server;

import dev.tern.TlsChannelCredentials;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.testing.EchoService;
import dev.tern.testtools.TestPems;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicClientCodecBuilder;
import io.netty.handler.codec.quic.QuicConnectionCloseEvent;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A bare QUIC client from Netty's codec, for tests that speak HTTP/3 to Tern's server by hand: it
 * opens the connection (ALPN h3, trusting any certificate), discards what the server sends on its
 * streams, and reports how the server closed the connection. Also the server the tests attack: TLS
 * from a fresh certificate, HTTP/3 on, the echo service.
 *
 * <p>Not thread-safe: one test thread drives it; {@link #close} stops its event loop.
 */
final class QuicPeer implements AutoCloseable {
  /** Discards whatever the server sends on the streams it opens (control, QPACK) or answers. */
  static class Discard extends ChannelInboundHandlerAdapter {
    @Override
    public boolean isSharable() {
      return true;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ReferenceCountUtil.release(msg);
    }
  }

  /** Remembers the server's CONNECTION_CLOSE. */
  private static final class CloseWatcher extends Discard {
    final CompletableFuture<QuicConnectionCloseEvent> closed = new CompletableFuture<>();

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof QuicConnectionCloseEvent close) {
        closed.complete(close);
      }
      ctx.fireUserEventTriggered(evt);
    }
  }

  private final EventLoopGroup group;
  private final QuicChannel quic;
  private final CloseWatcher watcher;

  private QuicPeer(EventLoopGroup group, QuicChannel quic, CloseWatcher watcher) {
    this.group = group;
    this.quic = quic;
    this.watcher = watcher;
  }

  /**
   * A server builder with TLS from a fresh certificate for localhost, HTTP/3 and the echo service.
   */
  static NettyServerBuilder server(Path dir) throws Exception {
    TestPems pems = TestPems.generate("localhost", "dns:localhost,ip:127.0.0.1");
    Path files = Files.createTempDirectory(dir, "server");
    Path cert = Files.writeString(files.resolve("cert.pem"), pems.certificatePem);
    Path key = Files.writeString(files.resolve("key.pem"), pems.keyPem);
    return NettyServerBuilder.forPort(0)
        .useTransportSecurity(cert.toFile(), key.toFile())
        .enableHttp3()
        .addService(EchoService.definition());
  }

  /** An event loop for QUIC clients; the caller shuts it down. */
  static EventLoopGroup newGroup() {
    return new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  }

  /** A UDP socket on 127.0.0.1 with QUIC's client codec. */
  static Channel udpSocket(EventLoopGroup group) throws Exception {
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
    return new Bootstrap()
        .group(group)
        .channel(NioDatagramChannel.class)
        .handler(codec)
        .bind(new InetSocketAddress("127.0.0.1", 0))
        .sync()
        .channel();
  }

  /** A channel over HTTP/3 to the server on {@code port} (any certificate trusted). */
  static NettyChannelBuilder channel(int port) {
    return NettyChannelBuilder.forAddress("127.0.0.1", port)
        .tlsCredentials(
            TlsChannelCredentials.newBuilder()
                .trustManager(InsecureTrustManagerFactory.INSTANCE.getTrustManagers())
                .build())
        .enableHttp3();
  }

  /** Starts connecting a new QUIC connection from a new socket to {@code server}. */
  static Future<QuicChannel> startConnect(EventLoopGroup group, InetSocketAddress server)
      throws Exception {
    return QuicChannel.newBootstrap(udpSocket(group))
        .handler(new Discard())
        .streamHandler(new Discard())
        .remoteAddress(server)
        .connect();
  }

  /** A QUIC connection to {@code server}, its handshake done. */
  static QuicPeer connect(InetSocketAddress server) throws Exception {
    EventLoopGroup group = newGroup();
    try {
      CloseWatcher watcher = new CloseWatcher();
      QuicChannel quic =
          QuicChannel.newBootstrap(udpSocket(group))
              .handler(watcher)
              .streamHandler(new Discard())
              .remoteAddress(server)
              .connect()
              .get(10, TimeUnit.SECONDS);
      return new QuicPeer(group, quic, watcher);
    } catch (Exception | Error e) {
      group.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
      throw e;
    }
  }

  QuicChannel quic() {
    return quic;
  }

  /** The server's CONNECTION_CLOSE, once it arrives. */
  QuicConnectionCloseEvent awaitClose() throws Exception {
    return watcher.closed.get(10, TimeUnit.SECONDS);
  }

  /** Opens a stream, writes {@code firstByte} and resets it, in one task: so in one packet. */
  void resetAtOnce(QuicStreamType type, long firstByte, long code) throws Exception {
    QuicStreamChannel stream = quic.createStream(type, new Discard()).get(10, TimeUnit.SECONDS);
    stream
        .eventLoop()
        .submit(
            () -> {
              stream.write(Unpooled.wrappedBuffer(new byte[] {(byte) firstByte}));
              stream.shutdownOutput((int) code);
            })
        .sync();
  }

  /**
   * Opens a request stream and ends it (FIN) at once, without a frame: a request the server must
   * reset (H3_REQUEST_INCOMPLETE).
   */
  void finishEmpty() throws Exception {
    QuicStreamChannel stream =
        quic.createStream(QuicStreamType.BIDIRECTIONAL, new Discard()).get(10, TimeUnit.SECONDS);
    stream.shutdownOutput().sync();
  }

  @Override
  public void close() {
    group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
