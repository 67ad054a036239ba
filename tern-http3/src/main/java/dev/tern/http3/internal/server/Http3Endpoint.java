package dev.tern.http3.internal.server;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.netty.internal.server.Http3Transport;
import dev.tern.netty.internal.server.ServerOptions;
import dev.tern.spi.ServerListener;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicServerCodecBuilder;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One UDP socket serving gRPC over HTTP/3: Netty's QUIC codec on a datagram channel, each QUIC
 * connection an {@link Http3ServerConnection}. QUIC's transport parameters carry the server's
 * limits: as many concurrent bidirectional streams (calls) as {@code
 * maxConcurrentCallsPerConnection}, 1 MiB of flow-control credit per stream, 16 MiB per connection.
 * Under a load of unfinished handshakes (or always, if so configured: {@link AddressValidation}) a
 * new client is sent a stateless Retry first ({@link RetryTokens}, a key per socket), so only
 * clients that receive at their address get connection state.
 *
 * <p>All of a socket's connections run on one event loop of a shared daemon NIO group (QUIC
 * demultiplexes one UDP socket on one thread). Thread-safe: {@link #start} and {@link #shutdown}
 * synchronize on this object.
 */
final class Http3Endpoint implements Http3Transport.Endpoint {
  private static final Logger logger = Logger.getLogger(Http3Endpoint.class.getName());

  /** The QUIC flow-control credit a peer gets per stream, and per connection. */
  static final long STREAM_WINDOW = 1024 * 1024;

  static final long CONNECTION_WINDOW = 16 * STREAM_WINDOW;

  /** An idle connection is closed after this long (QUIC's max_idle_timeout). */
  static final long IDLE_TIMEOUT_SECONDS = 120;

  private static EventLoopGroup sharedGroup;

  private final ServerOptions options;
  private final QuicSslContext sslContext;

  @GuardedBy("this")
  private Channel channel;

  @GuardedBy("this")
  private boolean shutdown;

  /** QUIC connections open on the socket, which must stay open for them until they end. */
  @GuardedBy("this")
  private int connections;

  Http3Endpoint(ServerOptions options, QuicSslContext sslContext) {
    this.options = options;
    this.sslContext = sslContext;
  }

  private static synchronized EventLoopGroup group() {
    if (sharedGroup == null) {
      sharedGroup =
          new MultiThreadIoEventLoopGroup(
              1, new DefaultThreadFactory("tern-http3", true), NioIoHandler.newFactory());
    }
    return sharedGroup;
  }

  @Override
  public synchronized void start(
      InetSocketAddress address, ServerListener listener, Runnable stopped) throws IOException {
    if (channel != null || shutdown) {
      throw new IllegalStateException("already started or shut down");
    }
    int streams = options.maxConcurrentCallsPerConnection();
    AddressValidation validation = AddressValidation.fromProperty();
    io.netty.channel.ChannelHandler codec =
        new QuicServerCodecBuilder()
            .sslContext(sslContext)
            .tokenHandler(RetryTokens.create(validation))
            .maxIdleTimeout(IDLE_TIMEOUT_SECONDS, TimeUnit.SECONDS)
            .initialMaxData(CONNECTION_WINDOW)
            .initialMaxStreamDataBidirectionalLocal(STREAM_WINDOW)
            .initialMaxStreamDataBidirectionalRemote(STREAM_WINDOW)
            .initialMaxStreamDataUnidirectional(STREAM_WINDOW)
            .initialMaxStreamsBidirectional(streams)
            // The peer's control stream and QPACK's two, with room for greasing ones.
            .initialMaxStreamsUnidirectional(16)
            .streamOption(ChannelOption.AUTO_READ, false)
            .handler(
                new ChannelInitializer<QuicChannel>() {
                  @Override
                  protected void initChannel(QuicChannel ch) {
                    if (!connectionOpened(ch)
                        || !listener.acceptConnection(
                            ch.localSocketAddress(), ch.remoteSocketAddress())) {
                      ch.close();
                      return;
                    }
                    validation.handshaking(ch);
                    ch.pipeline().addLast(new Http3ServerConnection(ch, options, listener));
                  }
                })
            .streamHandler(
                new ChannelInitializer<QuicStreamChannel>() {
                  @Override
                  protected void initChannel(QuicStreamChannel ch) {
                    Http3ServerConnection connection =
                        ch.parent().pipeline().get(Http3ServerConnection.class);
                    if (connection == null) {
                      ch.close();
                      return;
                    }
                    connection.streamOpened(ch);
                  }
                })
            .build();
    ChannelFuture bind =
        new Bootstrap()
            .group(group())
            .channel(NioDatagramChannel.class)
            .handler(codec)
            .bind(address)
            .awaitUninterruptibly();
    if (!bind.isSuccess()) {
      Throwable cause = bind.cause();
      String message = "Failed to bind UDP " + address + " for HTTP/3: " + cause.getMessage();
      IOException failure =
          cause instanceof BindException ? new BindException(message) : new IOException(message);
      failure.initCause(cause);
      throw failure;
    }
    channel = bind.channel();
    logger.log(Level.INFO, "Tern server listening for HTTP/3 on UDP {0}", channel.localAddress());
    channel.closeFuture().addListener(f -> stopped.run());
  }

  /** Counts a new connection; false once shut down (it is refused). */
  private synchronized boolean connectionOpened(QuicChannel ch) {
    if (shutdown) {
      return false;
    }
    connections++;
    ch.closeFuture().addListener(f -> connectionClosed());
    return true;
  }

  private synchronized void connectionClosed() {
    connections--;
    if (shutdown && connections == 0 && channel != null) {
      channel.close();
    }
  }

  /**
   * Refuses new connections; the socket closes once the open ones have ended (they ride on it),
   * which the server's shutdown of each of them brings about.
   */
  @Override
  public synchronized void shutdown() {
    if (shutdown) {
      return;
    }
    shutdown = true;
    if (channel != null && connections == 0) {
      channel.close();
    }
  }

  @Override
  public synchronized SocketAddress localAddress() {
    return channel == null ? null : channel.localAddress();
  }
}
