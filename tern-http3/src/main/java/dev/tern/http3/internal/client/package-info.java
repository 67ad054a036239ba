/**
 * The HTTP/3 client: each transport one QUIC connection on its own UDP socket ({@code
 * Http3ClientConnection}: the handshake, the control streams, SETTINGS, the server's GOAWAY), each
 * call one bidirectional QUIC stream on the same {@code ClientStream} contract the HTTP/2 client
 * feeds ({@code Http3ResponseStream} on the event loop, {@code Http3ClientStream} for the
 * application), found by tern-netty through {@code Http3ConnectorProvider} (for {@code
 * enableHttp3}, and for the connections that race QUIC against TCP after a server advertised
 * HTTP/3, whose calls carry {@code alt-used}). What the HTTP/2 client does too comes from
 * tern-netty, not a copy: gRPC's request header block, the response header sink and status mapping
 * ({@code Http2Statuses}), the request paths and the outbound framer; from tern-core, the message
 * deframer. Frames and QPACK are {@code dev.tern.http3.internal.frame}'s, TLS and the peer's
 * control stream {@code dev.tern.http3.internal.common}'s. Never imports the server package. Not
 * API.
 *
 * <p>Threads: each connection and its streams run on one event loop of a shared daemon NIO group;
 * application calls reach it through {@code Http3ClientConnection} and {@code Http3ClientStream},
 * which only hand tasks over.
 */
package dev.tern.http3.internal.client;
