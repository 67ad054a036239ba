package dev.tern.netty;

import dev.tern.NameResolver;
import dev.tern.NameResolverProvider;
import dev.tern.internal.resolver.AbstractDnsNameResolver;
import dev.tern.internal.resolver.DnsNameResolverProvider;
import dev.tern.internal.resolver.HostAndPort;
import dev.tern.netty.internal.io.NettyProperties;
import dev.tern.netty.internal.resolver.NettyDnsNameResolver;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * The {@code dns://DNS_SERVER[:PORT]/host[:port]} form of the {@code dns} scheme: asks that DNS
 * server (port 53 unless given) for the host's A and AAAA records with Netty's DNS client, with no
 * cache of its own, no hosts file and no search domains, so the answers are the server's. Targets
 * without a server ({@code dns:///host:port}, {@code host:port}) are left to Tern's provider that
 * uses the JDK's resolver. Re-resolution, when a balancer asks for it, happens at most once per
 * minimum interval (30 seconds unless given).
 *
 * <p>Register one with another interval in a {@link dev.tern.NameResolverRegistry} given to the
 * channel builder's {@code nameResolverRegistry(..)}:
 *
 * <pre>{@code
 * NameResolverRegistry registry = new NameResolverRegistry();
 * registry.register(new NettyDnsNameResolverProvider(Duration.ofSeconds(5)));
 * }</pre>
 *
 * <p>Service configs from DNS (gRFC A2) are off by default, as in grpc-java. With them on, each
 * resolution also asks the DNS server for the TXT records of {@code _grpc_config.host}; the one
 * whose text starts with {@code grpc_config=} lists service configs, of which the first that
 * applies to this client is the channel's (in place of its default config). No such record, or a
 * failed TXT lookup, means no service config from DNS (the channel's default applies); a bad record
 * is an error, and the channel keeps the config it had. Turn them on for every resolver with the
 * system property {@code dev.tern.dns.enableServiceConfig=true} (read when a resolver is made), or
 * for one provider's with {@link #withServiceConfigLookup}:
 *
 * <pre>{@code
 * registry.register(new NettyDnsNameResolverProvider().withServiceConfigLookup(true));
 * }</pre>
 *
 * <p>Thread-safe (immutable).
 */
public final class NettyDnsNameResolverProvider extends NameResolverProvider {
  static {
    // Before any Netty class loads: Tern's defaults for Netty's properties (see NettyProperties).
    NettyProperties.applyDefaults();
  }

  private static final int DNS_PORT = 53;

  private final long minIntervalNanos;
  private final Boolean serviceConfigLookup; // null: as the system property says

  /** For {@link java.util.ServiceLoader}: re-resolves at most every 30 seconds. */
  public NettyDnsNameResolverProvider() {
    this(Duration.ofNanos(AbstractDnsNameResolver.DEFAULT_MIN_INTERVAL_NANOS));
  }

  /**
   * A provider whose resolvers ask their DNS server at most once per {@code minInterval}.
   *
   * @throws IllegalArgumentException if {@code minInterval} is negative
   */
  public NettyDnsNameResolverProvider(Duration minInterval) {
    Objects.requireNonNull(minInterval, "minInterval");
    if (minInterval.isNegative()) {
      throw new IllegalArgumentException("minInterval must not be negative, was " + minInterval);
    }
    this.minIntervalNanos = minInterval.toNanos();
    this.serviceConfigLookup = null;
  }

  private NettyDnsNameResolverProvider(long minIntervalNanos, boolean serviceConfigLookup) {
    this.minIntervalNanos = minIntervalNanos;
    this.serviceConfigLookup = serviceConfigLookup;
  }

  /**
   * A provider like this one whose resolvers do ({@code true}) or do not ({@code false}) look up
   * service configs in DNS TXT records, whatever the system property {@code
   * dev.tern.dns.enableServiceConfig} says. Without this call, that property decides (default: they
   * do not).
   */
  public NettyDnsNameResolverProvider withServiceConfigLookup(boolean enabled) {
    return new NettyDnsNameResolverProvider(minIntervalNanos, enabled);
  }

  @Override
  public boolean isAvailable() {
    return true;
  }

  /** 6: asked before the JDK-based provider (5), which gets the targets this one declines. */
  @Override
  public int priority() {
    return 6;
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
   * A resolver asking the target's DNS server, or null for a target that names none.
   *
   * @throws IllegalArgumentException if the target or its DNS server address is malformed
   */
  @Override
  public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
    String server = targetUri.getAuthority();
    if (server == null || server.isEmpty()) {
      return null;
    }
    HostAndPort target = DnsNameResolverProvider.parse(targetUri, args.getDefaultPort());
    String display = DnsNameResolverProvider.display(targetUri);
    HostAndPort dnsServer = HostAndPort.parse(server, DNS_PORT, display);
    InetSocketAddress serverAddress = new InetSocketAddress(dnsServer.host(), dnsServer.port());
    if (serverAddress.isUnresolved()) {
      throw new IllegalArgumentException(
          "target '" + display + "' names the DNS server '" + server + "', which cannot be found");
    }
    return new NettyDnsNameResolver(
        target,
        serverAddress,
        args,
        minIntervalNanos,
        DnsNameResolverProvider.serviceConfigLookup(serviceConfigLookup));
  }
}
