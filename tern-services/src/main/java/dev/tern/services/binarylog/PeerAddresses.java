package dev.tern.services.binarylog;

import dev.tern.services.binarylog.v1.Address;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;

/** Socket addresses as {@code grpc.binarylog.v1.Address} records. Stateless; thread-safe. */
final class PeerAddresses {
  /**
   * The address type of Unix domain sockets on Netty's native transports (epoll, io_uring); named,
   * not imported, because this module does not depend on Netty.
   */
  private static final String NETTY_DOMAIN_SOCKET_ADDRESS =
      "io.netty.channel.unix.DomainSocketAddress";

  private PeerAddresses() {}

  static Address toProto(SocketAddress address) {
    if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
      InetAddress ip = inet.getAddress();
      if (ip instanceof Inet4Address) {
        return Address.newBuilder()
            .setType(Address.Type.TYPE_IPV4)
            .setAddress(ip.getHostAddress())
            .setIpPort(inet.getPort())
            .build();
      }
      if (ip instanceof Inet6Address) {
        return Address.newBuilder()
            .setType(Address.Type.TYPE_IPV6)
            .setAddress(ipv6Text(ip.getAddress()))
            .setIpPort(inet.getPort())
            .build();
      }
    }
    if (address instanceof UnixDomainSocketAddress unix) {
      return Address.newBuilder()
          .setType(Address.Type.TYPE_UNIX)
          .setAddress(unix.getPath().toString())
          .build();
    }
    if (address != null && address.getClass().getName().equals(NETTY_DOMAIN_SOCKET_ADDRESS)) {
      // Its text is the socket's path.
      return Address.newBuilder()
          .setType(Address.Type.TYPE_UNIX)
          .setAddress(address.toString())
          .build();
    }
    return Address.newBuilder()
        .setType(Address.Type.TYPE_UNKNOWN)
        .setAddress(String.valueOf(address))
        .build();
  }

  /**
   * The RFC 5952 text of a 16-byte address: lower-case hex groups without leading zeros, the
   * longest run of two or more zero groups (the first, if tied) written as {@code ::}.
   */
  static String ipv6Text(byte[] bytes) {
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = ((bytes[2 * i] & 0xff) << 8) | (bytes[2 * i + 1] & 0xff);
    }
    int bestStart = -1;
    int bestLength = 1;
    for (int i = 0; i < 8; ) {
      if (groups[i] != 0) {
        i++;
        continue;
      }
      int j = i;
      while (j < 8 && groups[j] == 0) {
        j++;
      }
      if (j - i > bestLength) {
        bestStart = i;
        bestLength = j - i;
      }
      i = j;
    }
    StringBuilder text = new StringBuilder(39);
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        text.append("::");
        i += bestLength - 1;
        continue;
      }
      if (text.length() > 0 && text.charAt(text.length() - 1) != ':') {
        text.append(':');
      }
      text.append(Integer.toHexString(groups[i]));
    }
    return text.toString();
  }
}
