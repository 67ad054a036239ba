package dev.tern.internal.resolver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.EquivalentAddressGroup;
import dev.tern.NameResolver;
import dev.tern.NameResolverRegistry;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import dev.tern.testing.FakeClock;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The JDK-backed dns provider; only address literals are resolved here, so nothing is looked up.
 */
class DnsNameResolverProviderTest {
  private final NameResolverRegistry registry = new NameResolverRegistry();
  private final NameResolver.Args args =
      NameResolver.Args.newBuilder()
          .setDefaultPort(8443)
          .setSynchronizationContext(new SynchronizationContext((thread, error) -> {}))
          .setScheduledExecutorService(new FakeClock())
          .setOffloadExecutor(Runnable::run)
          .build();

  DnsNameResolverProviderTest() {
    registry.register(new DnsNameResolverProvider());
  }

  private HostAndPort parse(String target) {
    return DnsNameResolverProvider.parse(registry.targetUri(target), args.getDefaultPort());
  }

  /** What the resolver for {@code target} reports first: its servers' addresses. */
  private List<SocketAddress> resolve(String target) {
    NameResolver resolver = registry.newNameResolver(target, args);
    List<SocketAddress> found = new ArrayList<>();
    resolver.start(
        new NameResolver.Listener() {
          @Override
          public void onResult(NameResolver.ResolutionResult result) {
            for (EquivalentAddressGroup group : result.getAddresses()) {
              found.addAll(group.getAddresses());
            }
          }

          @Override
          public void onError(Status error) {
            throw new AssertionError("unexpected error " + error);
          }
        });
    resolver.shutdown();
    return found;
  }

  @Test
  void hostAndPortComeFromThePath() {
    assertThat(parse("dns:///example.com:50051"))
        .isEqualTo(new HostAndPort("example.com", 50051, "example.com:50051"));
    assertThat(parse("example.com:50051"))
        .isEqualTo(new HostAndPort("example.com", 50051, "example.com:50051"));
    assertThat(registry.newNameResolver("dns:///example.com:50051", args).getServiceAuthority())
        .isEqualTo("example.com:50051");
  }

  @Test
  void aMissingPortIsTheChannelsDefault() throws Exception {
    assertThat(parse("dns:///example.com").port()).isEqualTo(8443);
    assertThat(resolve("dns:///127.0.0.1"))
        .containsExactly(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 8443));
  }

  @Test
  void bracketedIpv6LiteralResolvesToItself() throws Exception {
    assertThat(parse("[::1]:443")).isEqualTo(new HostAndPort("::1", 443, "[::1]:443"));
    assertThat(resolve("dns:///[::1]:443"))
        .containsExactly(new InetSocketAddress(InetAddress.getByName("::1"), 443));
    assertThat(registry.newNameResolver("[::1]:443", args).getServiceAuthority())
        .isEqualTo("[::1]:443");
  }

  @Test
  void aTargetNamingADnsServerNeedsTernNetty() {
    assertThatThrownBy(() -> registry.newNameResolver("dns://8.8.8.8/example.com:443", args))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("dns://8.8.8.8/example.com:443")
        .hasMessageContaining("names a DNS server (8.8.8.8)")
        .hasMessageContaining("tern-netty");
  }

  @Test
  void malformedTargetsAreRejectedSayingHow() {
    assertThatThrownBy(() -> registry.newNameResolver("dns:example.com", args))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be dns:///host[:port]");
    assertThatThrownBy(() -> registry.newNameResolver("dns:///example.com/extra", args))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'/', '?' or '#'");
    assertThatThrownBy(() -> registry.newNameResolver("dns:///", args))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("names no host");
    assertThatThrownBy(() -> registry.newNameResolver("dns:///example.com:http", args))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("port 'http'");
  }

  @Test
  void minimumIntervalMustNotBeNegative() {
    assertThatThrownBy(() -> new DnsNameResolverProvider(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("minInterval");
  }
}
