package dev.tern.netty.internal.client;

import dev.tern.TlsChannelCredentials;
import dev.tern.spi.ManagedClientTransport;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The seam through which a Netty channel calls over HTTP/3 instead of HTTP/2: implemented by
 * tern-http3 (which brings QUIC's native library, so applications add it only if they want it) and
 * found by {@link java.util.ServiceLoader} when a channel built with {@code
 * NettyChannelBuilder.enableHttp3()} is built, or one whose HTTP/3 upgrade is on ({@code
 * http3Upgrade}, the default with TLS). Implementations are stateless and thread-safe.
 */
public interface Http3Connector {
  /**
   * What a channel's HTTP/3 connections share.
   *
   * @param credentials the trust and client certificate, or null for the JDK's trusted CAs
   * @param checkHostName whether the server's certificate must name the authority's host
   * @throws IllegalArgumentException if the credentials cannot make a QUIC TLS context (the message
   *     says why)
   */
  Connections newConnections(
      TlsChannelCredentials credentials,
      boolean checkHostName,
      int maxInboundMetadataSize,
      int connectTimeoutMillis);

  /** Makes a channel's transports. Thread-safe. */
  interface Connections {
    /**
     * A transport for one QUIC connection to {@code address} (an {@link
     * java.net.InetSocketAddress}; another kind fails the transport UNAVAILABLE when started).
     *
     * @param userAgent the {@code user-agent} of every call, or null
     */
    ManagedClientTransport newTransport(SocketAddress address, String authority, String userAgent);

    /**
     * A transport for one QUIC connection to the HTTP/3 alternative a server advertised ({@code
     * alt-svc}), whose calls say so with {@code alt-used} (RFC 7838 section 5).
     *
     * @param alternative the origin server's IP address at the alternative's UDP port
     */
    ManagedClientTransport newAlternativeTransport(
        InetSocketAddress alternative, String authority, String userAgent);
  }
}
