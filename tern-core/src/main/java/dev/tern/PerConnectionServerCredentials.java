package dev.tern;

import java.net.SocketAddress;
import java.util.Objects;

/**
 * Server credentials chosen per connection, when it is accepted and before any handshake: an
 * xDS-enabled server, say, picks the filter chain of the connection and that chain's TLS. A
 * connection they choose nothing for uses {@link #fallback()}.
 *
 * <p>A transport that understands these credentials calls {@link #select} once per accepted
 * connection, on its own thread; implementations must be thread-safe, quick and must not block.
 * They should return the same {@link TlsServerCredentials} instance for the same configuration, so
 * that the transport can reuse what it builds from them.
 */
public abstract class PerConnectionServerCredentials extends ServerCredentials {
  private final ServerCredentials fallback;

  /**
   * @param fallback for connections {@link #select} chooses no TLS for: plaintext or TLS
   *     credentials
   */
  protected PerConnectionServerCredentials(ServerCredentials fallback) {
    this.fallback = Objects.requireNonNull(fallback, "fallback");
    if (fallback instanceof PerConnectionServerCredentials) {
      throw new IllegalArgumentException("fallback: must not be per-connection credentials itself");
    }
  }

  /** The credentials of connections {@link #select} chooses no TLS for. */
  public final ServerCredentials fallback() {
    return fallback;
  }

  /**
   * What a connection from {@code remote} to {@code local} uses.
   *
   * @return the choice; never null
   */
  public abstract Selection select(SocketAddress local, SocketAddress remote);

  /**
   * The choice for one connection: its TLS credentials (null: the fallback's), and attributes added
   * to the connection's transport attributes, where {@link ServerTransportFilter}s and calls see
   * them (so what was chosen before the handshake can be found after it). Immutable.
   *
   * @param tls the TLS of the handshake, or null for the fallback
   * @param attributes added to the connection's attributes; may be empty
   */
  public record Selection(TlsServerCredentials tls, Attributes attributes) {
    public Selection {
      Objects.requireNonNull(attributes, "attributes");
    }

    /** The fallback, adding nothing. */
    public static final Selection FALLBACK = new Selection(null, Attributes.EMPTY);
  }
}
