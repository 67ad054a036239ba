package dev.tern.netty.internal.io;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
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
  private static final String CLASSES_MISSING =
      "io.netty:netty-transport-classes-epoll is not on the class path (nor, on the module path,"
          + " added with --add-modules)";

  private static final boolean CLASSES_PRESENT =
      NativeClasses.present("io.netty.channel.epoll.Epoll");

  /** Whether the epoll classes are on the class path and the native library loaded. */
  static final boolean IS_AVAILABLE = CLASSES_PRESENT && Probe.available();

  private EpollSupport() {}

  /** Why epoll is not available (for messages), or null if it is. */
  static String unavailabilityReason() {
    if (IS_AVAILABLE) {
      return null;
    }
    return CLASSES_PRESENT ? Probe.unavailabilityReason() : CLASSES_MISSING;
  }

  static IoHandlerFactory ioHandlerFactory() {
    return EpollIoHandler.newFactory();
  }

  static boolean isEpollGroup(EventLoopGroup group) {
    return group instanceof IoEventLoopGroup
        && ((IoEventLoopGroup) group).isIoType(EpollIoHandler.class);
  }

  static ChannelFactory<? extends Channel> clientChannelFactory(boolean domainSocket) {
    return domainSocket ? EpollDomainSocketChannel::new : EpollSocketChannel::new;
  }

  static ChannelFactory<? extends ServerChannel> serverChannelFactory(boolean domainSocket) {
    return domainSocket ? EpollServerDomainSocketChannel::new : EpollServerSocketChannel::new;
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

    static String unavailabilityReason() {
      try {
        return NativeClasses.describe(Epoll.unavailabilityCause());
      } catch (LinkageError e) {
        return NativeClasses.describe(e);
      }
    }
  }
}
