package dev.tern.netty.internal;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;

/**
 * Everything that names Netty's epoll classes, kept in one class that is only initialized once
 * {@link #IS_AVAILABLE} (computed without touching those classes first) says they are present: the
 * epoll dependency is optional, and a missing class must mean "use NIO", not a linkage error.
 *
 * <p>Stateless after initialization; thread-safe.
 */
final class EpollSupport {
  /** Whether the epoll classes are on the class path and the native library loaded. */
  static final boolean IS_AVAILABLE = classesPresent() && Probe.available();

  private EpollSupport() {}

  private static boolean classesPresent() {
    try {
      Class.forName("io.netty.channel.epoll.Epoll", false, EpollSupport.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  static IoHandlerFactory ioHandlerFactory() {
    return EpollIoHandler.newFactory();
  }

  static boolean isEpollGroup(EventLoopGroup group) {
    return group instanceof IoEventLoopGroup
        && ((IoEventLoopGroup) group).isIoType(EpollIoHandler.class);
  }

  static ChannelFactory<? extends Channel> clientChannelFactory() {
    return EpollSocketChannel::new;
  }

  static ChannelFactory<? extends ServerChannel> serverChannelFactory() {
    return EpollServerSocketChannel::new;
  }

  /** Loaded only after the classes were found present. */
  private static final class Probe {
    static boolean available() {
      try {
        return Epoll.isAvailable();
      } catch (LinkageError e) {
        return false;
      }
    }
  }
}
