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
import java.util.concurrent.TimeUnit;

/**
 * The {@code --transport=nio|epoll} choice of the qps tools: one event loop group of that kind
 * (threads: Netty's default, twice the cores), handed to the builders with the matching channel
 * types. Owned by main; closed once the server or channels are gone.
 */
final class Transport implements AutoCloseable {
  private final boolean epoll;
  private final EventLoopGroup group;

  private Transport(boolean epoll) {
    this.epoll = epoll;
    this.group =
        new MultiThreadIoEventLoopGroup(
            epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
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
        .bossEventLoopGroup(group)
        .workerEventLoopGroup(group)
        .channelType(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class);
  }

  NettyChannelBuilder configure(NettyChannelBuilder builder) {
    return builder
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
  }
}
