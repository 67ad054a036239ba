package dev.tern.netty.http;

/**
 * A protocol served beside gRPC on the same port: gRPC-Web, Connect, or one of your own. Set on
 * {@code NettyServerBuilder.httpProtocols}; by default the server uses every one its class path
 * provides through {@link java.util.ServiceLoader} (tern-web provides gRPC-Web and Connect).
 *
 * <p>Implementations are shared by every connection of a server: thread-safe, and cheap to ask.
 */
public interface HttpServerProtocol {
  /**
   * Whether this protocol serves {@code request} (judged from its method, path and headers, most
   * often its {@code content-type}). Called on the event loop; must not block or write anything.
   */
  boolean handles(HttpRequestHead request);

  /**
   * Serves a request {@link #handles} accepted: validates it, starts its call (or answers an error
   * or a CORS preflight at once) and returns the listener of the request body. Called on the
   * exchange's event loop, once per request; must not block.
   *
   * @return where the request body goes; never null (a protocol that answered at once returns a
   *     listener that releases what arrives)
   */
  HttpBodyListener serve(HttpExchange exchange);
}
