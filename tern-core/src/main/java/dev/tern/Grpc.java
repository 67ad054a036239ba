package dev.tern;

import java.net.SocketAddress;
import java.util.Objects;
import javax.net.ssl.SSLSession;

/**
 * Entry points that take {@link ServerCredentials} and {@link ChannelCredentials}, and the
 * attribute keys shared by transports, the runtime and applications. Transports set the attributes
 * on the transport's {@link Attributes}; interceptors, server transport filters, calls and {@link
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

  /**
   * A builder for a server on {@code port} (0 picks a free one) secured by {@code credentials},
   * from the highest-priority transport on the class path that can honour them.
   *
   * @throws IllegalArgumentException if {@code port} is out of range
   * @throws IllegalStateException if no transport honours the credentials; the message names them
   *     and says why each transport refused
   */
  public static ServerBuilder<?> newServerBuilderForPort(int port, ServerCredentials credentials) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port out of range: " + port);
    }
    return ServerProvider.select(port, credentials);
  }

  /**
   * A builder for a channel to {@code target} ({@code host:port}, {@code dns:///host:port}, {@code
   * inprocess:name}, ...) secured by {@code credentials}, from the highest-priority transport that
   * handles the target and honours the credentials ({@link CompositeChannelCredentials}: their
   * channel credentials, plus an interceptor adding their call credentials to every call).
   *
   * @throws IllegalStateException if none does; the message names the credentials and says why each
   *     transport refused
   */
  public static ManagedChannelBuilder<?> newChannelBuilder(
      String target, ChannelCredentials credentials) {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(credentials, "credentials");
    if (credentials instanceof CompositeChannelCredentials composite) {
      return newChannelBuilder(target, composite.getChannelCredentials())
          .intercept(composite.interceptor());
    }
    return ManagedChannelProvider.selectWithCredentials(
        p -> p.newChannelBuilder(target, credentials), "target " + target, credentials);
  }

  /** As {@link #newChannelBuilder} for {@code host:port}. */
  public static ManagedChannelBuilder<?> newChannelBuilderForAddress(
      String host, int port, ChannelCredentials credentials) {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(credentials, "credentials");
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port out of range: " + port);
    }
    if (credentials instanceof CompositeChannelCredentials composite) {
      return newChannelBuilderForAddress(host, port, composite.getChannelCredentials())
          .intercept(composite.interceptor());
    }
    return ManagedChannelProvider.selectWithCredentials(
        p -> p.newChannelBuilderForAddress(host, port, credentials),
        "address " + host + ":" + port,
        credentials);
  }
}
