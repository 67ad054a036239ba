package dev.tern.netty.internal.io;

import io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Unix domain socket addresses, in Netty's type ({@code io.netty.channel.unix.DomainSocketAddress},
 * which the native transports bind and connect, including Linux abstract names: a path that starts
 * with {@code '\0'}) or the JDK's ({@link UnixDomainSocketAddress}, converted to Netty's). Netty's
 * type lives in {@code netty-transport-native-unix-common}, an optional dependency: this class only
 * touches it once it is known to be on the class path.
 *
 * <p>Stateless; thread-safe.
 */
public final class DomainSockets {
  /** The default authority of calls over a domain socket, as grpc-java's. */
  public static final String DEFAULT_AUTHORITY = "localhost";

  /** The artifact the native transports need for domain sockets, named in error messages. */
  static final String NATIVE_ARTIFACT = "io.netty:netty-transport-native-epoll (linux-x86_64)";

  private static final boolean NETTY_TYPE_PRESENT =
      NativeClasses.present("io.netty.channel.unix.DomainSocketAddress");

  private DomainSockets() {}

  /** Whether {@code address} is a Unix domain socket address, Netty's or the JDK's. */
  public static boolean isDomainSocket(SocketAddress address) {
    return address instanceof UnixDomainSocketAddress
        || (NETTY_TYPE_PRESENT && NettyType.isInstance(address));
  }

  /**
   * {@code address} as the transports take it: a JDK {@link UnixDomainSocketAddress} becomes
   * Netty's {@code DomainSocketAddress} of the same path; any other address is returned as is.
   *
   * @throws IllegalArgumentException for a JDK domain socket address without Netty's unix classes
   */
  public static SocketAddress toNetty(SocketAddress address) {
    if (!(address instanceof UnixDomainSocketAddress)) {
      return address;
    }
    if (!NETTY_TYPE_PRESENT) {
      throw new IllegalArgumentException(
          "Unix domain socket address "
              + address
              + " needs Netty's native transport: add "
              + NATIVE_ARTIFACT
              + " to the class path");
    }
    return NettyType.of(((UnixDomainSocketAddress) address).getPath().toString());
  }

  /** Whether Netty's domain socket address type is on the class path. */
  public static boolean nettyTypePresent() {
    return NETTY_TYPE_PRESENT;
  }

  /**
   * Netty's domain socket address of {@code path} ({@code '\0'} first for a Linux abstract name).
   * Call only when {@link #nettyTypePresent()}.
   */
  public static SocketAddress newNettyAddress(String path) {
    return NettyType.of(path);
  }

  /** Netty's domain socket address type. Call only when {@link #nettyTypePresent()}. */
  public static Class<? extends SocketAddress> nettyType() {
    return NettyType.type();
  }

  /**
   * {@code base} and the domain socket address types: the JDK's, and Netty's when its class is on
   * the class path (what the channel builder accepts from name resolvers).
   */
  public static List<Class<? extends SocketAddress>> withDomainSocketTypes(
      Class<? extends SocketAddress> base) {
    List<Class<? extends SocketAddress>> types = new ArrayList<>();
    types.add(base);
    types.add(UnixDomainSocketAddress.class);
    if (NETTY_TYPE_PRESENT) {
      types.add(NettyType.type());
    }
    return List.copyOf(types);
  }

  /**
   * Removes the socket file of {@code address} if it is a domain socket with a path (not an
   * abstract name) and the file is still there. Epoll's server channel does this itself on close;
   * io_uring's leaves the file, so a restarted server could not bind the path again.
   */
  public static void deleteSocketFile(SocketAddress address) {
    if (!NETTY_TYPE_PRESENT || !NettyType.isInstance(address)) {
      return;
    }
    String path = NettyType.path(address);
    if (path.isEmpty() || path.charAt(0) == '\0') {
      return;
    }
    try {
      Files.deleteIfExists(Path.of(path));
    } catch (IOException | InvalidPathException e) {
      // Best effort: the file is left behind, as Netty would have left it.
    }
  }

  /** Loaded only once Netty's type was found present. */
  private static final class NettyType {
    static boolean isInstance(SocketAddress address) {
      return address instanceof DomainSocketAddress;
    }

    static Class<? extends SocketAddress> type() {
      return DomainSocketAddress.class;
    }

    static SocketAddress of(String path) {
      return new DomainSocketAddress(path);
    }

    static String path(SocketAddress address) {
      return ((DomainSocketAddress) address).path();
    }
  }
}
