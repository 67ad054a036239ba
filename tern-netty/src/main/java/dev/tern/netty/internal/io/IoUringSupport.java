package dev.tern.netty.internal.io;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringDomainSocketChannel;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerDomainSocketChannel;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;

/**
 * Everything that names Netty's io_uring classes, as {@link EpollSupport} does for epoll: only
 * initialized once {@link #IS_AVAILABLE} (computed without touching those classes first) says they
 * are present, since the io_uring dependency is optional. Needs a Linux kernel with io_uring
 * enabled (not turned off by the {@code kernel.io_uring_disabled} sysctl or a container's seccomp
 * profile); {@code IoUring.unavailabilityCause()} says why not.
 *
 * <p>Stateless after initialization; thread-safe.
 */
final class IoUringSupport {
  private static final String CLASSES_MISSING =
      "io.netty:netty-transport-classes-io_uring is not on the class path (nor, on the module"
          + " path, added with --add-modules)";

  private static final boolean CLASSES_PRESENT =
      NativeClasses.present("io.netty.channel.uring.IoUring");

  /** Whether the io_uring classes are on the class path and the native library loaded. */
  static final boolean IS_AVAILABLE = CLASSES_PRESENT && Probe.available();

  private IoUringSupport() {}

  /** Why io_uring is not available (for messages), or null if it is. */
  static String unavailabilityReason() {
    if (IS_AVAILABLE) {
      return null;
    }
    return CLASSES_PRESENT ? Probe.unavailabilityReason() : CLASSES_MISSING;
  }

  static IoHandlerFactory ioHandlerFactory() {
    return IoUringIoHandler.newFactory();
  }

  static boolean isIoUringGroup(EventLoopGroup group) {
    return group instanceof IoEventLoopGroup
        && ((IoEventLoopGroup) group).isIoType(IoUringIoHandler.class);
  }

  static ChannelFactory<? extends Channel> clientChannelFactory(boolean domainSocket) {
    return domainSocket ? IoUringDomainSocketChannel::new : IoUringSocketChannel::new;
  }

  static ChannelFactory<? extends ServerChannel> serverChannelFactory(boolean domainSocket) {
    return domainSocket ? IoUringServerDomainSocketChannel::new : IoUringServerSocketChannel::new;
  }

  /** Loaded only after the classes were found present. */
  private static final class Probe {
    static boolean available() {
      try {
        return IoUring.isAvailable();
      } catch (LinkageError e) {
        return false;
      }
    }

    static String unavailabilityReason() {
      try {
        return NativeClasses.describe(IoUring.unavailabilityCause());
      } catch (LinkageError e) {
        return NativeClasses.describe(e);
      }
    }
  }
}
