package dev.tern.internal.resolver;

import dev.tern.NameResolver;
import dev.tern.NameResolverProvider;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * The {@code dns} scheme with the JDK's resolver: {@code dns:///host[:port]} (and plain {@code
 * host[:port]}). A target naming a DNS server ({@code dns://8.8.8.8/host}) needs tern-netty's
 * provider, which is asked first when present. Thread-safe (immutable).
 */
public final class DnsNameResolverProvider extends NameResolverProvider {
  private final long minIntervalNanos;

  /** For {@link java.util.ServiceLoader}: re-resolves at most every 30 seconds. */
  public DnsNameResolverProvider() {
    this(Duration.ofNanos(AbstractDnsNameResolver.DEFAULT_MIN_INTERVAL_NANOS));
  }

  /**
   * A provider whose resolvers look up at most once per {@code minInterval}.
   *
   * @throws IllegalArgumentException if {@code minInterval} is negative
   */
  public DnsNameResolverProvider(Duration minInterval) {
    Objects.requireNonNull(minInterval, "minInterval");
    if (minInterval.isNegative()) {
      throw new IllegalArgumentException("minInterval must not be negative, was " + minInterval);
    }
    this.minIntervalNanos = minInterval.toNanos();
  }

  @Override
  public boolean isAvailable() {
    return true;
  }

  @Override
  public int priority() {
    return 5;
  }

  @Override
  public String getScheme() {
    return "dns";
  }

  @Override
  public Collection<Class<? extends SocketAddress>> getProducedSocketAddressTypes() {
    return List.of(InetSocketAddress.class);
  }

  /**
   * @throws IllegalArgumentException if the target is malformed or names a DNS server
   */
  @Override
  public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
    HostAndPort target = parse(targetUri, args.getDefaultPort());
    if (targetUri.getRawAuthority() != null && !targetUri.getRawAuthority().isEmpty()) {
      throw new IllegalArgumentException(
          "target '"
              + display(targetUri)
              + "' names a DNS server ("
              + targetUri.getRawAuthority()
              + "); asking a given DNS server needs tern-netty on the class path");
    }
    return new JdkDnsNameResolver(target, args, minIntervalNanos, System::nanoTime);
  }

  /**
   * The host and port of a {@code dns:} URI's path.
   *
   * @throws IllegalArgumentException if the URI has no path, a query or a fragment, or a bad host
   *     or port
   */
  public static HostAndPort parse(URI targetUri, int defaultPort) {
    String path = targetUri.getPath();
    String display = display(targetUri);
    if (targetUri.isOpaque() || path == null || !path.startsWith("/")) {
      throw new IllegalArgumentException(
          "target '" + display + "' must be dns:///host[:port] or dns://server/host[:port]");
    }
    String name = path.substring(1);
    if (name.indexOf('/') >= 0 || name.indexOf('?') >= 0 || name.indexOf('#') >= 0) {
      throw new IllegalArgumentException(
          "target '" + display + "' has '/', '?' or '#' in its host name '" + name + "'");
    }
    return HostAndPort.parse(name, defaultPort, display);
  }

  /** A hierarchical target as its user wrote it: {@code scheme://authority/path}, decoded. */
  public static String display(URI targetUri) {
    if (targetUri.isOpaque()) {
      return targetUri.getScheme() + ":" + targetUri.getSchemeSpecificPart();
    }
    String authority = targetUri.getAuthority();
    return targetUri.getScheme()
        + "://"
        + (authority == null ? "" : authority)
        + (targetUri.getPath() == null ? "" : targetUri.getPath());
  }
}
