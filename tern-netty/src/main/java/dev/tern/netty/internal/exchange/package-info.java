/**
 * Requests on the server's port that gRPC does not take, served by the {@link
 * dev.tern.netty.http.HttpServerProtocol}s beside it (tern-web's gRPC-Web and Connect): whole
 * HTTP/1.1 connections, and single HTTP/2 streams.
 *
 * <pre>
 *  HTTP/1.1: socket --&gt; HttpServerCodec --&gt; Http1ServerHandler
 *              --&gt; protocol.serve(Http1Exchange), one request at a time;
 *              body --&gt; HttpBodyListener; response --&gt; sized or chunked
 *  HTTP/2:   server.ServerHandler --&gt; Http2Exchanges.serve(head)
 *              --&gt; protocol.serve(Http2Exchange); DATA, trailers, RST_STREAM passed on
 *              with the exchange found in the stream's slot (http2.Http2Stream);
 *              response --&gt; Http2StreamOutput: HEADERS and DATA through the HTTP/2
 *              engine (server.ExchangeOutput)
 * </pre>
 *
 * <p>In: decoded requests and bodies. Out: {@link dev.tern.netty.http.HttpExchange}s to the
 * protocols, and their responses to the client, with flow control: body bytes count against the
 * window (or stop the socket's reads, on HTTP/1.1) until the protocol consumes them. Threads: all
 * of it runs on the connection's event loop; protocols that answer from other threads hop there
 * through the exchange's {@code eventLoop()}.
 *
 * <p>What an exchange needs of the server's connection is {@link
 * dev.tern.netty.internal.exchange.ExchangeHost}, which the server implements: this package does
 * not use the server's classes (the server uses these), nor the client's.
 */
package dev.tern.netty.internal.exchange;
