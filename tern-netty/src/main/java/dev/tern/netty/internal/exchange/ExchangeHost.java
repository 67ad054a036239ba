package dev.tern.netty.internal.exchange;

import dev.tern.Attributes;
import dev.tern.netty.internal.io.SocketNode;
import dev.tern.spi.ServerTransportListener;

/**
 * What the exchanges (requests served by a protocol other than gRPC: {@link Http1ServerHandler}'s
 * over HTTP/1.1, {@link Http2Exchanges}'s on HTTP/2 streams) need of the server connection they are
 * served on: its calls' listener, its channelz counters, the server's protocols and limits, and its
 * end. The server's connection implements it; the exchanges know nothing else of the server.
 *
 * <p>Thread-safe as its implementation is: {@link #terminated} on the event loop only, the rest
 * immutable once the connection is registered.
 */
public interface ExchangeHost {
  /** The runtime's listener for the connection; set before the connection's first read. */
  ServerTransportListener listener();

  /**
   * The connection's attributes for the listener's {@code transportReady}: addresses, TLS session,
   * and any chosen when the connection was accepted. Event loop, after TLS's handshake.
   */
  Attributes readyAttributes();

  /** The connection's channelz counters (touched on the event loop). */
  SocketNode socketNode();

  /** The protocols the server serves beside gRPC. */
  HttpProtocols httpProtocols();

  /** The bound on a request's header block, in bytes. */
  int maxInboundMetadataSize();

  /** The connection's idle limit, {@code Long.MAX_VALUE} for none. */
  long maxConnectionIdleNanos();

  /** The connection's age limit, {@code Long.MAX_VALUE} for none. */
  long maxConnectionAgeNanos();

  /** How long calls may run on past the age limit. */
  long maxConnectionAgeGraceNanos();

  /** The connection closed: the listener hears it once. Event loop. */
  void terminated();
}
