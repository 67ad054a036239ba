package dev.tern.netty.internal.io;

import dev.tern.Attributes;
import dev.tern.Grpc;
import dev.tern.SecurityLevel;
import io.netty.channel.Channel;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslHandler;

/**
 * The transport attributes of a connection, on either side: its addresses, and with TLS the session
 * and {@link SecurityLevel#PRIVACY_AND_INTEGRITY} ({@link SecurityLevel#NONE} otherwise). Also
 * checks that TLS negotiated HTTP/2. Stateless; thread-safe.
 */
public final class TlsAttributes {
  private TlsAttributes() {}

  public static Attributes of(Channel channel) {
    Attributes.Builder attrs =
        Attributes.newBuilder()
            .set(Grpc.TRANSPORT_ATTR_REMOTE_ADDR, channel.remoteAddress())
            .set(Grpc.TRANSPORT_ATTR_LOCAL_ADDR, channel.localAddress());
    SslHandler ssl = channel.pipeline().get(SslHandler.class);
    if (ssl == null) {
      attrs.set(Grpc.TRANSPORT_ATTR_SECURITY_LEVEL, SecurityLevel.NONE);
    } else {
      attrs.set(Grpc.TRANSPORT_ATTR_SECURITY_LEVEL, SecurityLevel.PRIVACY_AND_INTEGRITY);
      attrs.set(Grpc.TRANSPORT_ATTR_SSL_SESSION, ssl.engine().getSession());
    }
    return attrs.build();
  }

  /**
   * Why a finished TLS handshake cannot carry gRPC (ALPN did not select {@code h2}), or null if it
   * can.
   */
  public static String alpnProblem(Channel channel) {
    SslHandler ssl = channel.pipeline().get(SslHandler.class);
    if (ssl == null) {
      return null;
    }
    String protocol = ssl.applicationProtocol();
    if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
      return null;
    }
    return "TLS did not negotiate HTTP/2 by ALPN (got "
        + (protocol == null ? "no protocol" : "'" + protocol + "'")
        + "); build the SslContext with dev.tern.netty.NettySslContexts";
  }
}
