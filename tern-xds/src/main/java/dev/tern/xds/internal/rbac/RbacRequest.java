package dev.tern.xds.internal.rbac;

import dev.tern.Grpc;
import dev.tern.Metadata;
import dev.tern.ServerCall;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import javax.net.ssl.SSLSession;

/**
 * What RBAC matches a call on (A41): its path ({@code /service/method}), request headers and
 * authority, its connection's local and peer addresses, and its TLS session. Immutable.
 *
 * @param path the call's {@code :path}
 * @param headers the call's request metadata (not modified)
 * @param authority the call's {@code :authority}, or null
 * @param local the connection's local address, or null if it is not an IP one
 * @param remote the connection's peer address, or null if it is not an IP one
 * @param tls the connection's TLS session, or null without TLS
 */
public record RbacRequest(
    String path,
    Metadata headers,
    String authority,
    InetSocketAddress local,
    InetSocketAddress remote,
    SSLSession tls) {

  /** The request of a server call. */
  public static RbacRequest of(ServerCall<?, ?> call, Metadata headers) {
    return new RbacRequest(
        "/" + call.getMethodDescriptor().getFullMethodName(),
        headers,
        call.getAuthority(),
        inet(call.getAttributes().get(Grpc.TRANSPORT_ATTR_LOCAL_ADDR)),
        inet(call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR)),
        call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
  }

  private static InetSocketAddress inet(SocketAddress address) {
    return address instanceof InetSocketAddress inet && inet.getAddress() != null ? inet : null;
  }
}
