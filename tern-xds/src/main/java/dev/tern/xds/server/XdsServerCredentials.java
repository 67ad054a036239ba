package dev.tern.xds.server;

import dev.tern.ServerCredentials;
import java.util.Objects;

/**
 * The credentials of an xDS-enabled server: the security the control plane configures per filter
 * chain (A29: a chain's DownstreamTlsContext, with keys and roots from the bootstrap's certificate
 * provider instances), else {@code fallback} (insecure, or the server's own TLS). The chain, and so
 * the TLS, is chosen when a connection is accepted, before its handshake. {@link
 * XdsServerBuilder#forPort} and {@link XdsServerBuilder#forAddress} honour them. Immutable.
 */
public final class XdsServerCredentials extends ServerCredentials {
  private final ServerCredentials fallback;

  private XdsServerCredentials(ServerCredentials fallback) {
    this.fallback = fallback;
  }

  /** Credentials that use {@code fallback} where the control plane configures no security. */
  public static ServerCredentials create(ServerCredentials fallback) {
    Objects.requireNonNull(fallback, "fallback");
    if (fallback instanceof XdsServerCredentials) {
      throw new IllegalArgumentException("fallback: must not be XdsServerCredentials itself");
    }
    return new XdsServerCredentials(fallback);
  }

  ServerCredentials fallback() {
    return fallback;
  }

  @Override
  public String toString() {
    return "XdsServerCredentials[fallback=" + fallback + "]";
  }
}
