package dev.tern;

import java.util.Objects;

/**
 * Channel credentials chosen per connection from the attributes of the address it goes to: a name
 * resolver or load balancer (an xDS cluster, say) puts what the connection needs on the {@link
 * EquivalentAddressGroup}, and these credentials turn it into TLS for that connection. Addresses
 * they choose nothing for use {@link #fallback()}.
 *
 * <p>The TLS credentials {@link #credentialsFor} returns are used as they are: their trust manager
 * alone decides whether to trust the server. No HTTPS host-name check against the channel's
 * authority is added, as the identity to check (subject alternative names from a control plane,
 * say) is the trust manager's to know. Give them a trust manager that checks it.
 *
 * <p>A transport that understands these credentials calls {@link #credentialsFor} once per
 * connection it opens; implementations must be thread-safe and quick, and should return the same
 * {@link TlsChannelCredentials} instance for the same configuration, so that the transport can
 * reuse what it builds from them.
 */
public abstract class PerAddressChannelCredentials extends ChannelCredentials {
  private final ChannelCredentials fallback;

  /**
   * @param fallback for addresses without per-address TLS: plaintext or TLS credentials
   */
  protected PerAddressChannelCredentials(ChannelCredentials fallback) {
    this.fallback = Objects.requireNonNull(fallback, "fallback");
    if (fallback instanceof PerAddressChannelCredentials) {
      throw new IllegalArgumentException("fallback: must not be per-address credentials itself");
    }
  }

  /** The credentials of connections to addresses {@link #credentialsFor} chooses nothing for. */
  public final ChannelCredentials fallback() {
    return fallback;
  }

  /**
   * The TLS credentials of a new connection to an address whose group has {@code
   * addressAttributes}, or null to use {@link #fallback()}.
   *
   * @throws IllegalStateException if the connection must not be made now (its TLS material is not
   *     there yet, say); the message says why, and the connection attempt fails with it
   */
  public abstract TlsChannelCredentials credentialsFor(Attributes addressAttributes);

  /** What {@link #serverNameFor} returns for a connection that sends no server name at all. */
  public static final String NO_SERVER_NAME = "";

  /**
   * The TLS server name (SNI, RFC 6066) of a new connection whose {@link #credentialsFor} chose TLS
   * credentials: null (the default) to send the host of the channel's authority, as other TLS
   * connections do; {@link #NO_SERVER_NAME} to send none; otherwise that host name. Called once per
   * such connection, right after {@link #credentialsFor}.
   */
  public String serverNameFor(Attributes addressAttributes) {
    return null;
  }
}
