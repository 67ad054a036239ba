package dev.tern.http3.internal.client;

import dev.tern.TlsChannelCredentials;
import dev.tern.http3.internal.common.QuicTls;
import dev.tern.netty.internal.client.HostAndPort;
import dev.tern.netty.internal.client.Http3Connector;
import dev.tern.spi.ManagedClientTransport;
import io.netty.handler.codec.quic.QuicSslContext;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Objects;

/**
 * tern-http3's side of the seam {@code NettyChannelBuilder.enableHttp3()} looks up with {@link
 * java.util.ServiceLoader}. Stateless; thread-safe.
 */
public final class Http3ConnectorProvider implements Http3Connector {
  /** For {@link java.util.ServiceLoader}. */
  public Http3ConnectorProvider() {}

  @Override
  public Connections newConnections(
      TlsChannelCredentials credentials,
      boolean checkHostName,
      int maxInboundMetadataSize,
      int connectTimeoutMillis) {
    if (maxInboundMetadataSize <= 0) {
      throw new IllegalArgumentException(
          "maxInboundMetadataSize must be positive: " + maxInboundMetadataSize);
    }
    if (connectTimeoutMillis <= 0) {
      throw new IllegalArgumentException(
          "connectTimeoutMillis must be positive: " + connectTimeoutMillis);
    }
    QuicSslContext tls = QuicTls.forClient(credentials, checkHostName);
    return new ChannelConnections(tls, maxInboundMetadataSize, connectTimeoutMillis);
  }

  /** What a channel's connections share. Immutable; thread-safe. */
  record ChannelConnections(
      QuicSslContext sslContext, int maxInboundMetadataSize, int connectTimeoutMillis)
      implements Connections {
    @Override
    public ManagedClientTransport newTransport(
        SocketAddress address, String authority, String userAgent) {
      Objects.requireNonNull(address, "address");
      Objects.requireNonNull(authority, "authority");
      return new Http3ClientConnection(address, authority, userAgent, null, this);
    }

    @Override
    public ManagedClientTransport newAlternativeTransport(
        InetSocketAddress alternative, String authority, String userAgent) {
      Objects.requireNonNull(alternative, "alternative");
      Objects.requireNonNull(authority, "authority");
      String altUsed = HostAndPort.ofAuthority(authority).host();
      altUsed =
          (altUsed.indexOf(':') >= 0 ? "[" + altUsed + "]" : altUsed) + ":" + alternative.getPort();
      return new Http3ClientConnection(alternative, authority, userAgent, altUsed, this);
    }
  }
}
