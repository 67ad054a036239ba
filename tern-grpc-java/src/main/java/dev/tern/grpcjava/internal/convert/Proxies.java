package dev.tern.grpcjava.internal.convert;

import java.io.IOException;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * Proxy detectors and proxied addresses, both ways: grpc-java's {@code io.grpc.ProxyDetector} and
 * {@code HttpConnectProxiedSocketAddress} as Tern's {@link dev.tern.ProxyDetector} and {@link
 * dev.tern.HttpConnectProxiedSocketAddress}, and back. Other addresses pass unchanged. Stateless;
 * thread-safe.
 */
public final class Proxies {
  private Proxies() {}

  /**
   * grpc-java's detector as Tern's. An answer that is not an HTTP CONNECT address (grpc-java
   * defines no other kind, but an application may) fails the resolution with an {@link IOException}
   * naming its type.
   */
  public static dev.tern.ProxyDetector toTern(io.grpc.ProxyDetector detector) {
    return new dev.tern.ProxyDetector() {
      @Override
      public dev.tern.HttpConnectProxiedSocketAddress proxyFor(SocketAddress target)
          throws IOException {
        io.grpc.ProxiedSocketAddress proxied = detector.proxyFor(target);
        if (proxied == null) {
          return null;
        }
        if (proxied instanceof io.grpc.HttpConnectProxiedSocketAddress http) {
          return toTern(http);
        }
        throw new IOException(
            "grpc-java's ProxyDetector "
                + detector
                + " answered a "
                + proxied.getClass().getName()
                + "; Tern speaks HTTP CONNECT only (io.grpc.HttpConnectProxiedSocketAddress)");
      }

      @Override
      public String toString() {
        return "grpc-java's " + detector;
      }
    };
  }

  /** Tern's detector as grpc-java's. */
  public static io.grpc.ProxyDetector toGrpc(dev.tern.ProxyDetector detector) {
    return target -> {
      dev.tern.HttpConnectProxiedSocketAddress proxied = detector.proxyFor(target);
      return proxied == null ? null : toGrpc(proxied);
    };
  }

  /** A grpc-java proxied address as Tern's. */
  public static dev.tern.HttpConnectProxiedSocketAddress toTern(
      io.grpc.HttpConnectProxiedSocketAddress address) {
    if (!(address.getProxyAddress() instanceof java.net.InetSocketAddress proxy)) {
      // grpc-java's builder takes any SocketAddress for the proxy; Tern connects to IP proxies.
      throw new IllegalArgumentException(
          "proxy address must be an InetSocketAddress, was " + address.getProxyAddress());
    }
    return dev.tern.HttpConnectProxiedSocketAddress.newBuilder()
        .setProxyAddress(proxy)
        .setTargetAddress(address.getTargetAddress())
        .setUsername(address.getUsername())
        .setPassword(address.getPassword())
        .build();
  }

  /** A Tern proxied address as grpc-java's. */
  public static io.grpc.HttpConnectProxiedSocketAddress toGrpc(
      dev.tern.HttpConnectProxiedSocketAddress address) {
    return io.grpc.HttpConnectProxiedSocketAddress.newBuilder()
        .setProxyAddress(address.getProxyAddress())
        .setTargetAddress(address.getTargetAddress())
        .setUsername(address.getUsername())
        .setPassword(address.getPassword())
        .build();
  }

  /** grpc-java's addresses for Tern: proxied ones converted, others unchanged. */
  public static List<SocketAddress> addressesToTern(List<SocketAddress> addresses) {
    List<SocketAddress> converted = new ArrayList<>(addresses.size());
    for (SocketAddress address : addresses) {
      converted.add(
          address instanceof io.grpc.HttpConnectProxiedSocketAddress proxied
              ? toTern(proxied)
              : address);
    }
    return converted;
  }

  /** Tern's addresses for grpc-java: proxied ones converted, others unchanged. */
  public static List<SocketAddress> addressesToGrpc(List<SocketAddress> addresses) {
    List<SocketAddress> converted = new ArrayList<>(addresses.size());
    for (SocketAddress address : addresses) {
      converted.add(
          address instanceof dev.tern.HttpConnectProxiedSocketAddress proxied
              ? toGrpc(proxied)
              : address);
    }
    return converted;
  }
}
