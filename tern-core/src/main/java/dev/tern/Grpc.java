package dev.tern;

import java.net.SocketAddress;
import javax.net.ssl.SSLSession;

/**
 * Attribute keys shared by transports, the runtime and applications. Transports set them on the
 * transport's {@link Attributes}; interceptors, server transport filters, calls and {@link
 * CallCredentials} read them.
 */
public final class Grpc {

  /** The address of the peer. Set by every transport that has one. */
  public static final Attributes.Key<SocketAddress> TRANSPORT_ATTR_REMOTE_ADDR =
      Attributes.Key.create("remote-addr");

  /** The local address of the connection. Set by every transport that has one. */
  public static final Attributes.Key<SocketAddress> TRANSPORT_ATTR_LOCAL_ADDR =
      Attributes.Key.create("local-addr");

  /** The TLS session of the connection; absent on plaintext transports. */
  public static final Attributes.Key<SSLSession> TRANSPORT_ATTR_SSL_SESSION =
      Attributes.Key.create("ssl-session");

  /**
   * The protection the transport gives to calls. Transports set it; the runtime passes it to {@link
   * CallCredentials} and treats a missing value as {@link SecurityLevel#NONE}.
   */
  public static final Attributes.Key<SecurityLevel> TRANSPORT_ATTR_SECURITY_LEVEL =
      Attributes.Key.create("security-level");

  private Grpc() {}
}
