package dev.tern.netty.internal.io;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.util.Locale;

/**
 * The kinds of Netty transport Tern runs on: the JDK's NIO, everywhere, and Linux's native epoll
 * and io_uring, each when its optional jars are on the class path and its native library loads on
 * this kernel. Each kind has its I/O handler and its TCP channel types; the native kinds also have
 * Unix domain socket channels. Tern keeps domain sockets on the native kinds: Netty's NIO domain
 * socket channels (on the JDK's own address type, path names only, no Linux abstract names) are not
 * used. The methods that name native classes may only be called once {@link #isAvailable()} said
 * yes.
 *
 * <p>Stateless; thread-safe.
 */
public enum TransportKind {
  NIO("nio"),
  EPOLL("epoll"),
  IO_URING("io_uring");

  private final String id;

  TransportKind(String id) {
    this.id = id;
  }

  /**
   * The kind's name in the {@code dev.tern.netty.transport} property and the bench tools' {@code
   * --transport} flag: {@code nio}, {@code epoll} or {@code io_uring}.
   */
  public String id() {
    return id;
  }

  /**
   * The kind named {@code id} (see {@link #id()}; case-insensitive).
   *
   * @throws IllegalArgumentException for another name
   */
  public static TransportKind named(String id) {
    String lower = id.toLowerCase(Locale.ROOT);
    for (TransportKind kind : values()) {
      if (kind.id.equals(lower)) {
        return kind;
      }
    }
    throw new IllegalArgumentException("not a transport: '" + id + "' (nio, epoll or io_uring)");
  }

  /** Whether the kind can run here: always for NIO; for a native kind, if its library loaded. */
  public boolean isAvailable() {
    return switch (this) {
      case NIO -> true;
      case EPOLL -> EpollSupport.IS_AVAILABLE;
      case IO_URING -> IoUringSupport.IS_AVAILABLE;
    };
  }

  /** Why the kind cannot run here (the missing jar or Netty's own reason), or null if it can. */
  public String unavailabilityReason() {
    return switch (this) {
      case NIO -> null;
      case EPOLL -> EpollSupport.unavailabilityReason();
      case IO_URING -> IoUringSupport.unavailabilityReason();
    };
  }

  /** Whether the kind has Unix domain socket channels (the native kinds). */
  public boolean supportsDomainSockets() {
    return this != NIO;
  }

  /** The kind of {@code group}'s I/O: epoll or io_uring for their groups, NIO for any other. */
  public static TransportKind of(EventLoopGroup group) {
    if (EpollSupport.IS_AVAILABLE && EpollSupport.isEpollGroup(group)) {
      return EPOLL;
    }
    if (IoUringSupport.IS_AVAILABLE && IoUringSupport.isIoUringGroup(group)) {
      return IO_URING;
    }
    return NIO;
  }

  /** The I/O handlers of an event loop group of this kind. */
  public IoHandlerFactory ioHandlerFactory() {
    return switch (this) {
      case NIO -> NioIoHandler.newFactory();
      case EPOLL -> EpollSupport.ioHandlerFactory();
      case IO_URING -> IoUringSupport.ioHandlerFactory();
    };
  }

  /**
   * The client channel type of this kind, for TCP or for a Unix domain socket.
   *
   * @throws IllegalStateException for a domain socket on NIO
   */
  ChannelFactory<? extends Channel> clientChannelFactory(boolean domainSocket) {
    return switch (this) {
      case NIO -> {
        checkNotDomainSocket(domainSocket);
        yield NioSocketChannel::new;
      }
      case EPOLL -> EpollSupport.clientChannelFactory(domainSocket);
      case IO_URING -> IoUringSupport.clientChannelFactory(domainSocket);
    };
  }

  /**
   * The server channel type of this kind, for TCP or for a Unix domain socket.
   *
   * @throws IllegalStateException for a domain socket on NIO
   */
  ChannelFactory<? extends ServerChannel> serverChannelFactory(boolean domainSocket) {
    return switch (this) {
      case NIO -> {
        checkNotDomainSocket(domainSocket);
        yield NioServerSocketChannel::new;
      }
      case EPOLL -> EpollSupport.serverChannelFactory(domainSocket);
      case IO_URING -> IoUringSupport.serverChannelFactory(domainSocket);
    };
  }

  private static void checkNotDomainSocket(boolean domainSocket) {
    if (domainSocket) {
      throw new IllegalStateException("NIO channels serve no Netty domain socket address");
    }
  }
}
