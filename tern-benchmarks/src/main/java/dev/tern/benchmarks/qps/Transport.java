package dev.tern.benchmarks.qps;

import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetSocketAddress;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;

/**
 * The threads of the qps tools: one event loop group of the {@code --transport=nio|epoll} kind
 * (threads: Netty's default, twice the cores), handed to the builders with the matching channel
 * types, and the application executor used unless {@code --directexecutor}: a {@link ForkJoinPool}
 * in FIFO (async) mode with one thread per core, the executor grpc-java's {@code AsyncServer} and
 * {@code AsyncClient} install, so both systems run the same thread setup. Owned by main; closed
 * once the server or channels are gone.
 *
 * <p>Thread-safe: immutable after construction.
 */
final class Transport implements AutoCloseable {
  private final boolean epoll;
  private final EventLoopGroup group;
  private final ForkJoinPool appExecutor;

  private Transport(boolean epoll) {
    this.epoll = epoll;
    this.group =
        new MultiThreadIoEventLoopGroup(
            epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    this.appExecutor =
        new ForkJoinPool(
            Runtime.getRuntime().availableProcessors(), Transport::newAppThread, null, true);
  }

  private static ForkJoinWorkerThread newAppThread(ForkJoinPool pool) {
    ForkJoinWorkerThread thread = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
    thread.setName("qps-app-" + thread.getPoolIndex());
    thread.setDaemon(true);
    return thread;
  }

  /**
   * The transport called {@code name}.
   *
   * @throws IllegalArgumentException for another name, or epoll where it is not available
   */
  static Transport named(String name) {
    switch (name) {
      case "nio":
        return new Transport(false);
      case "epoll":
        if (!Epoll.isAvailable()) {
          throw new IllegalArgumentException(
              "--transport=epoll is not available here: " + Epoll.unavailabilityCause());
        }
        return new Transport(true);
      default:
        throw new IllegalArgumentException("--transport must be nio or epoll, got " + name);
    }
  }

  NettyServerBuilder configure(NettyServerBuilder builder) {
    return builder
        .executor(appExecutor)
        .bossEventLoopGroup(group)
        .workerEventLoopGroup(group)
        .channelType(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class);
  }

  NettyChannelBuilder configure(NettyChannelBuilder builder) {
    return builder
        .executor(appExecutor)
        .eventLoopGroup(group)
        .channelType(epoll ? EpollSocketChannel.class : NioSocketChannel.class);
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
