package dev.tern.netty.internal.exchange;

import dev.tern.netty.http.HttpRequestHead;
import dev.tern.netty.http.HttpServerProtocol;
import java.util.List;
import java.util.ServiceLoader;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The protocols a server serves beside gRPC, in the order they are asked (see {@link
 * HttpServerProtocol}).
 *
 * <p>Immutable; thread-safe.
 */
public final class HttpProtocols {
  private static final Logger logger = Logger.getLogger(HttpProtocols.class.getName());

  /** No protocol beside gRPC. */
  public static final HttpProtocols NONE = new HttpProtocols(List.of());

  private final List<HttpServerProtocol> protocols;

  private HttpProtocols(List<HttpServerProtocol> protocols) {
    this.protocols = protocols;
  }

  /** {@code protocols}, asked in this order. */
  public static HttpProtocols of(List<HttpServerProtocol> protocols) {
    List<HttpServerProtocol> copy = List.copyOf(protocols);
    return copy.isEmpty() ? NONE : new HttpProtocols(copy);
  }

  /** Every protocol {@link ServiceLoader} finds beside tern-netty (tern-web's, if present). */
  public static HttpProtocols discovered() {
    return of(
        ServiceLoader.load(HttpServerProtocol.class, HttpProtocols.class.getClassLoader()).stream()
            .map(ServiceLoader.Provider::get)
            .toList());
  }

  /** The protocols, in order. */
  public List<HttpServerProtocol> list() {
    return protocols;
  }

  /**
   * The first protocol that serves {@code request}, or null. A protocol whose {@code handles}
   * throws is logged and passed over.
   */
  HttpServerProtocol find(HttpRequestHead request) {
    for (HttpServerProtocol protocol : protocols) {
      try {
        if (protocol.handles(request)) {
          return protocol;
        }
      } catch (RuntimeException e) {
        logger.log(Level.WARNING, protocol + ".handles failed for " + request, e);
      }
    }
    return null;
  }

  /**
   * For the "listening on" line: {@code ""} (gRPC over HTTP/2 only), or {@code " and HTTP/1.1
   * serving gRPC + a + b"}, naming each protocol by its {@code toString()}.
   */
  public String describe() {
    if (protocols.isEmpty()) {
      return "";
    }
    StringBuilder out = new StringBuilder(" and HTTP/1.1 serving gRPC");
    for (HttpServerProtocol protocol : protocols) {
      out.append(" + ").append(protocol);
    }
    return out.toString();
  }
}
