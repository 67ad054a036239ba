package dev.tern.netty.internal.client;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.spi.ManagedClientTransport;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A channel's upgrade from HTTP/2 to the HTTP/3 its servers advertise (docs/http3.md): its HTTP/2
 * connections report {@code alt-svc} to {@link #alternatives()}; a new connection to a server with
 * a usable alternative races QUIC against TCP ({@link RacingClientTransport}). The channel's QUIC
 * connections (TLS context and all) are made at the first race, not when the channel is built; if
 * they cannot be made (no native QUIC library for this platform, credentials QUIC's TLS cannot
 * use), the channel stays on HTTP/2, logged once at FINE.
 *
 * <p>Thread-safe: the lock guards the lazily made connections; nothing is called out while it is
 * held except their factory, once.
 */
public final class Http3Upgrade {
  private static final Logger logger = Logger.getLogger(Http3Upgrade.class.getName());

  private final Http3Alternatives alternatives;
  private final Supplier<Http3Connector.Connections> connectionsFactory;
  private final long headStartNanos;
  private final ScheduledExecutorService timer;

  @GuardedBy("this")
  private Http3Connector.Connections connections;

  @GuardedBy("this")
  private boolean unavailable;

  /**
   * @param connectionsFactory makes the channel's QUIC connections, at the first race
   * @param headStartNanos how long QUIC runs alone before TCP starts
   * @param timer starts TCP after the head start
   */
  public Http3Upgrade(
      Http3Alternatives alternatives,
      Supplier<Http3Connector.Connections> connectionsFactory,
      long headStartNanos,
      ScheduledExecutorService timer) {
    this.alternatives = Objects.requireNonNull(alternatives, "alternatives");
    this.connectionsFactory = Objects.requireNonNull(connectionsFactory, "connectionsFactory");
    this.headStartNanos = headStartNanos;
    this.timer = Objects.requireNonNull(timer, "timer");
  }

  /** Where the channel's HTTP/2 connections report {@code alt-svc}. */
  public Http3Alternatives alternatives() {
    return alternatives;
  }

  /**
   * The transport for a new connection: {@code tcp} itself, or a race of QUIC against it when the
   * server advertised a usable HTTP/3 alternative.
   */
  public ManagedClientTransport newTransport(
      SocketAddress address, String authority, String userAgent, ManagedClientTransport tcp) {
    InetSocketAddress alternative = alternatives.alternativeFor(address, authority);
    if (alternative == null) {
      return tcp;
    }
    Http3Connector.Connections quic = connections();
    if (quic == null) {
      return tcp;
    }
    return new RacingClientTransport(
        quic.newAlternativeTransport(alternative, authority, userAgent),
        tcp,
        headStartNanos,
        timer,
        () -> alternatives.broken(address, authority),
        () -> alternatives.worked(address, authority));
  }

  private synchronized Http3Connector.Connections connections() {
    if (connections == null && !unavailable) {
      try {
        connections = connectionsFactory.get();
      } catch (RuntimeException | LinkageError e) {
        unavailable = true;
        logger.log(Level.FINE, "HTTP/3 upgrade unavailable; staying on HTTP/2", e);
      }
    }
    return connections;
  }
}
