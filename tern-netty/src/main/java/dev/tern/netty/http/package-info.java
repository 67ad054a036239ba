/**
 * The seam through which protocols other than gRPC (gRPC-Web, Connect: see {@code tern-web}) are
 * served on a Tern Netty server's port, over HTTP/1.1 and HTTP/2, to the same services.
 *
 * <p>The transport owns the connection: it tells HTTP/2 (the client preface, or ALPN {@code h2})
 * from HTTP/1.1 (ALPN {@code http/1.1}, or a request line), serves {@code application/grpc} over
 * HTTP/2 itself, and offers every other request to the server's {@link
 * dev.tern.netty.http.HttpServerProtocol}s in order. The first whose {@code handles} answers true
 * gets the request as an {@link dev.tern.netty.http.HttpExchange}: it reads the body through an
 * {@link dev.tern.netty.http.HttpBodyListener}, starts calls through the exchange's {@link
 * dev.tern.spi.ServerTransportListener} with a {@link dev.tern.spi.ServerStream} of its own, and
 * writes the response. A request no protocol takes gets 415 (unknown content type) or 405 (method),
 * with a short text body.
 *
 * <p>Everything here runs on the connection's event loop unless a method says otherwise.
 */
package dev.tern.netty.http;
