package dev.tern.netty.internal;

import dev.tern.internal.resolver.AbstractDnsNameResolver;
import dev.tern.internal.resolver.HostAndPort;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.resolver.ResolvedAddressTypes;
import io.netty.resolver.dns.DnsNameResolver;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.NoopAuthoritativeDnsServerCache;
import io.netty.resolver.dns.NoopDnsCache;
import io.netty.resolver.dns.NoopDnsCnameCache;
import io.netty.resolver.dns.SingletonDnsServerAddressStreamProvider;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * Resolves {@code dns://DNS_SERVER/host:port} by asking that server, with Netty's DNS client on one
 * shared daemon event loop: A and AAAA records (IPv4 first), over UDP with a fallback to TCP for
 * truncated answers, five seconds per query, nothing cached (the channel rate-limits lookups).
 *
 * <p>Thread-safety as {@link AbstractDnsNameResolver}; Netty's resolver is thread-safe.
 */
public final class NettyDnsNameResolver extends AbstractDnsNameResolver {
  private static final long QUERY_TIMEOUT_MILLIS = 5_000;

  private final DnsNameResolver resolver;

  /**
   * @param server the DNS server to ask
   * @param minIntervalNanos the least time between two lookups
   */
  public NettyDnsNameResolver(
      HostAndPort target, InetSocketAddress server, Args args, long minIntervalNanos) {
    super(target, args, minIntervalNanos, System::nanoTime);
    this.resolver =
        new DnsNameResolverBuilder(DnsLoop.GROUP.next())
            .datagramChannelType(NioDatagramChannel.class)
            .socketChannelType(NioSocketChannel.class)
            .nameServerProvider(new SingletonDnsServerAddressStreamProvider(server))
            .resolvedAddressTypes(ResolvedAddressTypes.IPV4_PREFERRED)
            .resolveCache(NoopDnsCache.INSTANCE)
            .cnameCache(NoopDnsCnameCache.INSTANCE)
            .authoritativeDnsServerCache(NoopAuthoritativeDnsServerCache.INSTANCE)
            .hostsFileEntriesResolver((host, types) -> null)
            .searchDomains(List.of())
            .ndots(1)
            .queryTimeoutMillis(QUERY_TIMEOUT_MILLIS)
            .build();
  }

  @Override
  protected void lookup(String host, LookupCallback callback) {
    Future<List<InetAddress>> lookup = resolver.resolveAll(host);
    lookup.addListener(
        done -> {
          if (lookup.isSuccess()) {
            callback.found(lookup.getNow());
          } else {
            callback.failed(lookup.cause());
          }
        });
  }

  @Override
  public void shutdown() {
    super.shutdown();
    resolver.close();
  }

  /** The one event loop every such resolver's queries run on; daemon, never shut down. */
  private static final class DnsLoop {
    static final EventLoopGroup GROUP =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("tern-dns", /* daemon= */ true), NioIoHandler.newFactory());
  }
}
