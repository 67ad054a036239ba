package dev.tern.benchmarks.qps;

import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.netty.internal.io.NettyProperties;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import java.net.InetSocketAddress;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

/**
 * The threads of the qps tools: one event loop group of the {@code --transport=nio|epoll|io_uring}
 * kind (threads: Netty's default, twice the cores), handed to the builders with the matching
 * channel types, and the application executor used unless {@code --directexecutor}: a {@link
 * ForkJoinPool} in FIFO (async) mode with one thread per core, the executor grpc-java's {@code
 * AsyncServer} and {@code AsyncClient} install, so both systems run the same thread setup. Owned by
 * main; closed once the server or channels are gone. (grpc-java's tools spell the flag's values
 * {@code netty_nio} and {@code netty_epoll}.)
 *
 * <p>Thread-safe: immutable after construction.
 */
final class Transport implements AutoCloseable {
  /** The values of the {@code --transport} flag both tools take, and its help. */
  static final String FLAG_VALUES = "nio|epoll|io_uring";

  static final String FLAG_HELP = "Netty NIO, or Linux's native epoll or io_uring";

  static {
    // The tools make their group before any Tern builder, whose class would apply Tern's defaults
    // for Netty's properties before Netty's first class initializes: applied here instead, so the
    // tools start as an application does that lets Tern load Netty (without them, Netty 4.2 set up
    // its JFR events, about 0.1 s more to the first served call; docs/netty-transport.md).
    NettyProperties.applyDefaults();
  }

  private final Class<? extends ServerChannel> serverChannel;
  private final Class<? extends Channel> channel;
  private final EventLoopGroup group;
  private final ForkJoinPool appExecutor;

  private Transport(
      IoHandlerFactory handlers,
      Class<? extends ServerChannel> serverChannel,
      Class<? extends Channel> channel) {
    this.serverChannel = serverChannel;
    this.channel = channel;
    this.group = new MultiThreadIoEventLoopGroup(handlers);
    this.appExecutor = AppExecutors.newForkJoinPool("qps-app-");
  }

  /**
   * The transport called {@code name}: {@code nio}, {@code epoll} or {@code io_uring}.
   *
   * @throws IllegalArgumentException for another name, or a native one that cannot run here
   */
  static Transport named(String name) {
    switch (name) {
      case "nio":
        return new Transport(
            NioIoHandler.newFactory(), NioServerSocketChannel.class, NioSocketChannel.class);
      case "epoll":
        if (!Epoll.isAvailable()) {
          throw new IllegalArgumentException(
              "--transport=epoll is not available here: " + Epoll.unavailabilityCause());
        }
        return new Transport(
            EpollIoHandler.newFactory(), EpollServerSocketChannel.class, EpollSocketChannel.class);
      case "io_uring":
        if (!IoUring.isAvailable()) {
          throw new IllegalArgumentException(
              "--transport=io_uring is not available here: " + IoUring.unavailabilityCause());
        }
        return new Transport(
            IoUringIoHandler.newFactory(),
            IoUringServerSocketChannel.class,
            IoUringSocketChannel.class);
      default:
        throw new IllegalArgumentException(
            "--transport must be nio, epoll or io_uring, got " + name);
    }
  }

  NettyServerBuilder configure(NettyServerBuilder builder) {
    return configureEventLoops(builder).executor(appExecutor);
  }

  /** As {@link #configure(NettyServerBuilder)}, leaving the server's default executor. */
  NettyServerBuilder configureEventLoops(NettyServerBuilder builder) {
    return builder.bossEventLoopGroup(group).workerEventLoopGroup(group).channelType(serverChannel);
  }

  NettyChannelBuilder configure(NettyChannelBuilder builder) {
    return builder.executor(appExecutor).eventLoopGroup(group).channelType(channel);
  }

  /**
   * Parses {@code host:port}.
   *
   * @throws IllegalArgumentException naming the flag if it is not of that form
   */
  static InetSocketAddress parseAddress(String address) {
    int colon = address.lastIndexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("--address must be host:port, got " + address);
    }
    try {
      return new InetSocketAddress(
          address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--address must be host:port, got " + address);
    }
  }

  @Override
  public void close() {
    group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
    appExecutor.shutdownNow();
  }
}
