package dev.tern.netty.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.spi.ServerListener;
import dev.tern.spi.ServerTransportListener;
import dev.tern.spi.TransportServer;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The listening half of the HTTP/2 server transport: a bound server socket whose accepted
 * connections each get a {@link NettyServerTransport}. Applications use {@link
 * dev.tern.netty.NettyServerBuilder}; the constructor is public for transport-level tests.
 *
 * <p>Thread-safe: {@link #start} and {@link #shutdown} synchronize on this object; the listener is
 * called from event loops (never under that lock).
 */
public final class NettyServer implements TransportServer {
  private final SocketAddress address;
  private final EventLoopGroup bossGroup;
  private final EventLoopGroup workerGroup;
  private final ChannelFactory<? extends ServerChannel> channelFactory;
  private final ServerOptions options;
  private final AtomicBoolean shutdownReported = new AtomicBoolean();

  @GuardedBy("this")
  private Channel serverChannel;

  @GuardedBy("this")
  private boolean shutdown;

  /**
   * A server for {@code address} (port 0 picks a free port).
   *
   * @param bossGroup accepts connections; {@code workerGroup} serves them
   */
  public NettyServer(
      SocketAddress address,
      EventLoopGroup bossGroup,
      EventLoopGroup workerGroup,
      ChannelFactory<? extends ServerChannel> channelFactory,
      ServerOptions options) {
    this.address = Objects.requireNonNull(address, "address");
    this.bossGroup = Objects.requireNonNull(bossGroup, "bossGroup");
    this.workerGroup = Objects.requireNonNull(workerGroup, "workerGroup");
    this.channelFactory = Objects.requireNonNull(channelFactory, "channelFactory");
    this.options = Objects.requireNonNull(options, "options");
  }

  /**
   * Binds the address.
   *
   * @throws IOException if binding fails (e.g. the port is in use)
   * @throws IllegalStateException if already started or shut down
   */
  @Override
  public synchronized void start(ServerListener listener) throws IOException {
    Objects.requireNonNull(listener, "listener");
    if (serverChannel != null) {
      throw new IllegalStateException("already started");
    }
    if (shutdown) {
      throw new IllegalStateException("already shut down");
    }
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(bossGroup, workerGroup)
            .channelFactory(channelFactory)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.SO_KEEPALIVE, true)
            .childHandler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    NettyServerTransport transport = new NettyServerTransport(ch, options);
                    ServerTransportListener transportListener =
                        listener.transportCreated(transport);
                    transport.handler().setTransportListener(transportListener);
                    if (options.sslContext() != null) {
                      ch.pipeline().addLast(options.sslContext().newHandler(ch.alloc()));
                    }
                    ch.pipeline().addLast(new WriteCoalescer(), transport.handler());
                  }
                });
    ChannelFuture bind = bootstrap.bind(address).awaitUninterruptibly();
    if (!bind.isSuccess()) {
      throw new IOException("Failed to bind to " + address, bind.cause());
    }
    serverChannel = bind.channel();
    serverChannel
        .closeFuture()
        .addListener(
            f -> {
              if (shutdownReported.compareAndSet(false, true)) {
                listener.serverShutdown();
              }
            });
  }

  /** Closes the listening socket; {@code serverShutdown} follows. Idempotent. */
  @Override
  public synchronized void shutdown() {
    if (shutdown) {
      return;
    }
    shutdown = true;
    if (serverChannel != null) {
      serverChannel.close();
    }
  }

  @Override
  public synchronized List<? extends SocketAddress> getListenSocketAddresses() {
    if (serverChannel == null) {
      return List.of(address);
    }
    return List.of(serverChannel.localAddress());
  }

  @Override
  public ScheduledExecutorService getScheduledExecutorService() {
    return workerGroup;
  }

  @Override
  public String toString() {
    return "NettyServer{" + address + "}";
  }
}
