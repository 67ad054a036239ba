package dev.tern.netty.internal.client;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A channel's memory of the HTTP/3 alternatives its servers advertise ({@code alt-svc}, RFC 7838),
 * for the HTTP/3 upgrade (docs/http3.md): per server address and authority, the UDP port of an
 * {@code h3} alternative on the same host (an alternative on another host is ignored) until its
 * max-age runs out, and whether QUIC to it was found broken (failed, or slower than TCP), which
 * keeps later connections from racing it for a back-off time that doubles with each failure.
 *
 * <p>Thread-safe: every method holds the instance's lock, briefly; no other lock is taken and
 * nothing is called out while it is held.
 */
public final class Http3Alternatives {
  private static final Logger logger = Logger.getLogger(Http3Alternatives.class.getName());

  /** How long a first failure keeps QUIC from being tried again (RFC 7838 section 2.4's spirit). */
  static final long FIRST_BACKOFF_NANOS = TimeUnit.MINUTES.toNanos(5);

  /** The longest back-off: a network that blocks UDP is tried again at least once a day. */
  static final long MAX_BACKOFF_NANOS = TimeUnit.HOURS.toNanos(24);

  private final LongSupplier nanoClock;

  @GuardedBy("this")
  private final Map<Origin, Entry> entries = new HashMap<>();

  /** Memo of the last field parsed: a server sends the same value on every response. */
  @GuardedBy("this")
  private String lastValue;

  @GuardedBy("this")
  private AltSvcHeader.Value lastParsed;

  /** Times by {@code nanoClock} ({@code System::nanoTime}, or a fake one in tests). */
  public Http3Alternatives(LongSupplier nanoClock) {
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
  }

  private record Origin(InetSocketAddress address, String authority) {}

  /** What is known of one origin. */
  private static final class Entry {
    /** The alternative's UDP port, or 0 for none. */
    int port;

    long expiresAtNanos;
    long brokenUntilNanos;
    long backoffNanos;
    boolean broken;

    boolean usable(long now) {
      return port != 0 && now - expiresAtNanos < 0 && !(broken && now - brokenUntilNanos < 0);
    }
  }

  /**
   * An HTTP/2 connection to {@code address} for {@code authority} received {@code alt-svc: value}:
   * it replaces what was known of that origin (RFC 7838 section 3.1). A malformed value is ignored
   * (logged at FINE), never an error.
   *
   * @return whether an HTTP/3 alternative became usable that was not before, so that the caller
   *     retires its connection (new calls then go to a new one, which races QUIC)
   */
  public synchronized boolean heard(SocketAddress address, String authority, String value) {
    if (!(address instanceof InetSocketAddress inet) || inet.isUnresolved()) {
      return false;
    }
    AltSvcHeader.Value parsed;
    if (value.equals(lastValue)) {
      parsed = lastParsed;
    } else {
      try {
        parsed = AltSvcHeader.parse(value);
      } catch (IllegalArgumentException e) {
        logger.log(Level.FINE, "ignoring alt-svc from {0}: {1}", new Object[] {address, e});
        return false;
      }
      lastValue = value;
      lastParsed = parsed;
    }
    long now = nanoClock.getAsLong();
    Origin origin = new Origin(inet, authority);
    Entry entry = entries.get(origin);
    boolean wasUsable = entry != null && entry.usable(now);
    AltSvcHeader.Alternative chosen = parsed.clear() ? null : sameHostH3(parsed, authority);
    if (chosen == null) {
      if (entry != null) {
        entry.port = 0;
        if (!entry.broken) {
          entries.remove(origin);
        }
      }
      return false;
    }
    if (entry == null) {
      entry = new Entry();
      entries.put(origin, entry);
    }
    entry.port = chosen.port();
    long maxAgeNanos =
        chosen.maxAgeSeconds() >= TimeUnit.NANOSECONDS.toSeconds(Long.MAX_VALUE / 4)
            ? Long.MAX_VALUE / 4
            : TimeUnit.SECONDS.toNanos(chosen.maxAgeSeconds());
    entry.expiresAtNanos = now + maxAgeNanos;
    return !wasUsable && entry.usable(now);
  }

  /** The first {@code h3} alternative on the origin's own host, or null. */
  private static AltSvcHeader.Alternative sameHostH3(AltSvcHeader.Value value, String authority) {
    String host = HostAndPort.ofAuthority(authority).host();
    for (AltSvcHeader.Alternative alternative : value.alternatives()) {
      if (alternative.protocol().equals("h3")
          && (alternative.host().isEmpty() || alternative.host().equalsIgnoreCase(host))) {
        return alternative;
      }
    }
    return null;
  }

  /**
   * Where a new connection to {@code address} for {@code authority} races QUIC: the same IP address
   * at the alternative's UDP port, or null when there is no fresh alternative or it is broken.
   */
  public synchronized InetSocketAddress alternativeFor(SocketAddress address, String authority) {
    if (!(address instanceof InetSocketAddress inet) || inet.isUnresolved()) {
      return null;
    }
    Entry entry = entries.get(new Origin(inet, authority));
    if (entry == null || !entry.usable(nanoClock.getAsLong())) {
      return null;
    }
    return new InetSocketAddress(inet.getAddress(), entry.port);
  }

  /**
   * QUIC to the alternative failed or lost the race: it is not raced again for the back-off time,
   * which doubles with each failure in a row.
   */
  public synchronized void broken(SocketAddress address, String authority) {
    if (!(address instanceof InetSocketAddress inet)) {
      return;
    }
    Entry entry = entries.computeIfAbsent(new Origin(inet, authority), o -> new Entry());
    entry.backoffNanos =
        entry.backoffNanos == 0
            ? FIRST_BACKOFF_NANOS
            : Math.min(entry.backoffNanos * 2, MAX_BACKOFF_NANOS);
    entry.broken = true;
    entry.brokenUntilNanos = nanoClock.getAsLong() + entry.backoffNanos;
  }

  /** QUIC to the alternative won the race: a later failure starts the back-off afresh. */
  public synchronized void worked(SocketAddress address, String authority) {
    if (address instanceof InetSocketAddress inet) {
      Entry entry = entries.get(new Origin(inet, authority));
      if (entry != null) {
        entry.broken = false;
        entry.backoffNanos = 0;
      }
    }
  }
}
