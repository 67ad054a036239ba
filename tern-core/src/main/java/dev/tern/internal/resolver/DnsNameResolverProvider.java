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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * The {@code dns} scheme with the JDK's resolver: {@code dns:///host[:port]} (and plain {@code
 * host[:port]}). A target naming a DNS server ({@code dns://8.8.8.8/host}) needs tern-netty's
 * provider, which is asked first when present.
 *
 * <p>Service configs from DNS TXT records (gRFC A2) are off unless the system property {@value
 * #SERVICE_CONFIG_PROPERTY} is {@code true} when a resolver is made, or the provider says otherwise
 * ({@link #withServiceConfigLookup}); they need {@code java.naming} (JNDI's DNS provider), without
 * which they stay off, with one warning.
 *
 * <p>Thread-safe (immutable).
 */
public final class DnsNameResolverProvider extends NameResolverProvider {
  /**
   * The system property that turns on service configs from TXT records for {@code dns} resolvers
   * (default false, as in grpc-java, whose switch is {@code
   * io.grpc.internal.DnsNameResolverProvider.enable_service_config}).
   */
  public static final String SERVICE_CONFIG_PROPERTY = "dev.tern.dns.enableServiceConfig";

  private static final Logger logger = Logger.getLogger(DnsNameResolverProvider.class.getName());
  private static final AtomicBoolean warnedNoJndi = new AtomicBoolean();

  private final long minIntervalNanos;
  private final Boolean serviceConfigLookup; // null: as the system property says

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
    this.serviceConfigLookup = null;
  }

  private DnsNameResolverProvider(long minIntervalNanos, boolean serviceConfigLookup) {
    this.minIntervalNanos = minIntervalNanos;
    this.serviceConfigLookup = serviceConfigLookup;
  }

  /**
   * A provider like this one whose resolvers do (or do not) look up service configs in TXT records,
   * whatever {@value #SERVICE_CONFIG_PROPERTY} says.
   */
  public DnsNameResolverProvider withServiceConfigLookup(boolean enabled) {
    return new DnsNameResolverProvider(minIntervalNanos, enabled);
  }

  /**
   * Whether a resolver made now looks up service configs: {@code explicit} if not null, else the
   * system property {@value #SERVICE_CONFIG_PROPERTY}.
   */
  public static boolean serviceConfigLookup(Boolean explicit) {
    return explicit != null ? explicit : Boolean.getBoolean(SERVICE_CONFIG_PROPERTY);
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
    boolean txt = serviceConfigLookup(serviceConfigLookup);
    if (txt && !JdkDnsNameResolver.isJndiAvailable()) {
      txt = false;
      if (warnedNoJndi.compareAndSet(false, true)) {
        logger.warning(
            "service configs from DNS TXT records are on, but java.naming (JNDI's DNS provider,"
                + " module jdk.naming.dns) is missing: dns targets get no service config from DNS");
      }
    }
    return new JdkDnsNameResolver(target, args, minIntervalNanos, System::nanoTime, txt);
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
