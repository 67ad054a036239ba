package dev.tern.netty.internal.resolver;

import dev.tern.internal.resolver.AbstractDnsNameResolver;
import dev.tern.internal.resolver.HostAndPort;
import dev.tern.internal.resolver.TxtRecords;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DnsRawRecord;
import io.netty.handler.codec.dns.DnsRecord;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.resolver.ResolvedAddressTypes;
import io.netty.resolver.dns.DnsNameResolver;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.NoopAuthoritativeDnsServerCache;
import io.netty.resolver.dns.NoopDnsCache;
import io.netty.resolver.dns.NoopDnsCnameCache;
import io.netty.resolver.dns.SingletonDnsServerAddressStreamProvider;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * Resolves {@code dns://DNS_SERVER/host:port} by asking that server, with Netty's DNS client on one
 * shared daemon event loop: A and AAAA records (IPv4 first), over UDP with a fallback to TCP for
 * truncated answers, five seconds per query, nothing cached (the channel rate-limits lookups). With
 * service configs on, the TXT records of {@code _grpc_config.host} are asked for the same way.
 *
 * <p>Thread-safety as {@link AbstractDnsNameResolver}; Netty's resolver is thread-safe.
 */
public final class NettyDnsNameResolver extends AbstractDnsNameResolver {
  private static final long QUERY_TIMEOUT_MILLIS = 5_000;

  private final DnsNameResolver resolver;

  /**
   * @param server the DNS server to ask
   * @param minIntervalNanos the least time between two lookups
   * @param serviceConfigLookup whether to look up service configs in TXT records
   */
  public NettyDnsNameResolver(
      HostAndPort target,
      InetSocketAddress server,
      Args args,
      long minIntervalNanos,
      boolean serviceConfigLookup) {
    super(target, args, minIntervalNanos, System::nanoTime, serviceConfigLookup);
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
  protected void lookupTxt(String name, TxtCallback callback) {
    Future<List<DnsRecord>> lookup =
        resolver.resolveAll(new DefaultDnsQuestion(name, DnsRecordType.TXT));
    lookup.addListener(
        done -> {
          if (!lookup.isSuccess()) {
            callback.failed(lookup.cause());
            return;
          }
          List<String> texts;
          try {
            texts = texts(lookup.getNow());
          } catch (IllegalArgumentException e) {
            callback.failed(e);
            return;
          }
          callback.found(texts);
        });
  }

  /** The texts of the TXT records among {@code records}; releases every record. */
  static List<String> texts(List<DnsRecord> records) {
    List<String> texts = new ArrayList<>(records.size());
    IllegalArgumentException malformed = null;
    for (DnsRecord record : records) {
      try {
        if (record.type() == DnsRecordType.TXT && record instanceof DnsRawRecord raw) {
          texts.add(TxtRecords.text(ByteBufUtil.getBytes(raw.content())));
        }
      } catch (IllegalArgumentException e) {
        malformed = e;
      } finally {
        ReferenceCountUtil.release(record);
      }
    }
    if (malformed != null) {
      throw malformed;
    }
    return texts;
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
