package dev.tern.grpcjava.internal.convert;

/**
 * Carries a call's transport attributes from Tern to grpc-java: the remote and local addresses, the
 * TLS session and the security level, under grpc-java's {@code Grpc.TRANSPORT_ATTR_*} keys (what
 * handlers and interceptors written for grpc-java read). Other Tern attributes have no grpc-java
 * key and are not carried; a server's grpc-java transport filters may replace them ({@link
 * #FILTERED}). Stateless and thread-safe.
 */
public final class TransportAttributes {
  /**
   * The attributes a connection's grpc-java {@code ServerTransportFilter}s returned, kept in Tern's
   * connection attributes: what the connection's calls see through {@code getAttributes()}, as on
   * grpc-java.
   */
  public static final dev.tern.Attributes.Key<io.grpc.Attributes> FILTERED =
      dev.tern.Attributes.Key.create("grpc-java transport filters' attributes");

  private TransportAttributes() {}

  /**
   * grpc-java attributes holding what {@code attributes} has of the transport keys, or those the
   * grpc-java transport filters returned for the connection.
   */
  public static io.grpc.Attributes toGrpc(dev.tern.Attributes attributes) {
    if (attributes == null) {
      return io.grpc.Attributes.EMPTY;
    }
    io.grpc.Attributes filtered = attributes.get(FILTERED);
    if (filtered != null) {
      return filtered;
    }
    io.grpc.Attributes.Builder builder = io.grpc.Attributes.newBuilder();
    copy(
        attributes,
        dev.tern.Grpc.TRANSPORT_ATTR_REMOTE_ADDR,
        builder,
        io.grpc.Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
    copy(
        attributes,
        dev.tern.Grpc.TRANSPORT_ATTR_LOCAL_ADDR,
        builder,
        io.grpc.Grpc.TRANSPORT_ATTR_LOCAL_ADDR);
    copy(
        attributes,
        dev.tern.Grpc.TRANSPORT_ATTR_SSL_SESSION,
        builder,
        io.grpc.Grpc.TRANSPORT_ATTR_SSL_SESSION);
    return builder.build();
  }

  /** The security level Tern's attributes name, as grpc-java's ({@code NONE} if unknown). */
  public static io.grpc.SecurityLevel securityLevel(dev.tern.Attributes attributes) {
    dev.tern.SecurityLevel level =
        attributes == null ? null : attributes.get(dev.tern.Grpc.TRANSPORT_ATTR_SECURITY_LEVEL);
    return level == null ? io.grpc.SecurityLevel.NONE : io.grpc.SecurityLevel.valueOf(level.name());
  }

  private static <T> void copy(
      dev.tern.Attributes from,
      dev.tern.Attributes.Key<T> fromKey,
      io.grpc.Attributes.Builder to,
      io.grpc.Attributes.Key<T> toKey) {
    T value = from.get(fromKey);
    if (value != null) {
      to.set(toKey, value);
    }
  }
}
