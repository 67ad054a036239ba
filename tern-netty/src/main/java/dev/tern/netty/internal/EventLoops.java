package dev.tern.netty.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The event loops and channel types the transport uses when the application gives none: one
 * process-wide pair of groups (a single acceptor thread, and twice as many workers as cores,
 * Netty's default), created on first use, made of daemon threads so they never keep a JVM alive,
 * and never shut down. Native epoll is used when its classes and library load, NIO otherwise.
 *
 * <p>Thread-safe: the lazy groups are created under the class lock.
 */
public final class EventLoops {
  @GuardedBy("EventLoops.class")
  private static EventLoopGroup sharedBoss;

  @GuardedBy("EventLoops.class")
  private static EventLoopGroup sharedWorkers;

  private EventLoops() {}

  /** Whether native epoll is usable here. */
  public static boolean epollAvailable() {
    return EpollSupport.IS_AVAILABLE;
  }

  /** The shared worker group: serves connections of servers and channels that bring none. */
  public static synchronized EventLoopGroup sharedWorkerGroup() {
    if (sharedWorkers == null) {
      sharedWorkers = newGroup(0, "tern-netty-worker");
    }
    return sharedWorkers;
  }

  /** The shared acceptor group of servers that bring none. */
  public static synchronized EventLoopGroup sharedBossGroup() {
    if (sharedBoss == null) {
      sharedBoss = newGroup(1, "tern-netty-boss");
    }
    return sharedBoss;
  }

  private static EventLoopGroup newGroup(int threads, String name) {
    IoHandlerFactory factory =
        epollAvailable() ? EpollSupport.ioHandlerFactory() : NioIoHandler.newFactory();
    return new MultiThreadIoEventLoopGroup(
        threads, new DefaultThreadFactory(name, /* daemon= */ true), factory);
  }

  /** The client channel type matching {@code group}: epoll for an epoll group, NIO otherwise. */
  public static ChannelFactory<? extends Channel> clientChannelFactory(EventLoopGroup group) {
    if (epollAvailable() && EpollSupport.isEpollGroup(group)) {
      return EpollSupport.clientChannelFactory();
    }
    return NioSocketChannel::new;
  }

  /** The server channel type matching {@code group}: epoll for an epoll group, NIO otherwise. */
  public static ChannelFactory<? extends ServerChannel> serverChannelFactory(EventLoopGroup group) {
    if (epollAvailable() && EpollSupport.isEpollGroup(group)) {
      return EpollSupport.serverChannelFactory();
    }
    return NioServerSocketChannel::new;
  }
}
