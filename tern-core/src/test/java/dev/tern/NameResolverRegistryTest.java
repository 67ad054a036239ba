package dev.tern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.testing.FakeClock;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.junit.jupiter.api.Test;

class NameResolverRegistryTest {
  private final NameResolverRegistry registry = new NameResolverRegistry();
  private final NameResolver.Args args =
      NameResolver.Args.newBuilder()
          .setDefaultPort(443)
          .setSynchronizationContext(new SynchronizationContext((thread, error) -> {}))
          .setScheduledExecutorService(new FakeClock())
          .setOffloadExecutor(Runnable::run)
          .build();

  @Test
  void plainHostAndPortTargetsUseTheDnsScheme() {
    registry.register(new FakeProvider("dns", 5));

    assertThat(registry.targetUri("example.com:443"))
        .isEqualTo(URI.create("dns:///example.com:443"));
    assertThat(registry.targetUri("localhost:8080").getPath()).isEqualTo("/localhost:8080");
    assertThat(registry.targetUri("10.0.0.1:50051").getPath()).isEqualTo("/10.0.0.1:50051");
    assertThat(registry.targetUri("[::1]:443").getPath()).isEqualTo("/[::1]:443");
    assertThat(registry.getDefaultScheme()).isEqualTo("dns");
  }

  @Test
  void targetsWithAKnownSchemeAreUsedAsTheyAre() {
    registry.register(new FakeProvider("dns", 5));
    registry.register(new FakeProvider("ipv4", 5));

    URI dns = registry.targetUri("dns://8.8.8.8/example.com:443");
    assertThat(dns.getAuthority()).isEqualTo("8.8.8.8");
    assertThat(dns.getPath()).isEqualTo("/example.com:443");
    URI ipv4 = registry.targetUri("IPV4:10.0.0.1:1,10.0.0.2:2");
    assertThat(ipv4.getScheme()).isEqualTo("ipv4");
    assertThat(ipv4.getSchemeSpecificPart()).isEqualTo("10.0.0.1:1,10.0.0.2:2");
  }

  @Test
  void malformedOrUnknownTargetsAreRejectedSayingWhy() {
    registry.register(new FakeProvider("dns", 5));
    registry.register(new FakeProvider("ipv4", 5));

    assertThatThrownBy(() -> registry.targetUri(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty");
    assertThatThrownBy(() -> registry.targetUri("nope://host/path"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'nope'")
        .hasMessageContaining("[dns, ipv4]");
    assertThatThrownBy(() -> registry.targetUri("ipv4:"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ipv4:");
  }

  @Test
  void withoutADnsProviderAPlainTargetHasNoScheme() {
    registry.register(new FakeProvider("ipv4", 5));

    assertThatThrownBy(() -> registry.targetUri("example.com:443"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("example.com:443")
        .hasMessageContaining("[ipv4]");
  }

  @Test
  void providersOfASchemeComeHighestPriorityFirstAndOnlyWhenAvailable() {
    FakeProvider low = new FakeProvider("dns", 1);
    FakeProvider high = new FakeProvider("dns", 9);
    FakeProvider unavailable = new FakeProvider("dns", 10);
    unavailable.available = false;
    registry.register(low);
    registry.register(unavailable);
    registry.register(high);
    registry.register(new FakeProvider("ipv4", 10));

    assertThat(registry.providersFor("DNS")).containsExactly(high, low);
    assertThat(registry.providerForTarget("example.com")).isSameAs(high);

    registry.deregister(high);
    assertThat(registry.providersFor("dns")).containsExactly(low);
  }

  @Test
  void newNameResolverAsksTheNextProviderWhenOneDeclines() {
    FakeProvider declining = new FakeProvider("dns", 9);
    declining.accepts = false;
    FakeProvider accepting = new FakeProvider("dns", 1);
    registry.register(declining);
    registry.register(accepting);

    NameResolver resolver = registry.newNameResolver("example.com:443", args);

    assertThat(resolver.getServiceAuthority()).isEqualTo("from " + accepting);
    assertThat(declining.asked).containsExactly(URI.create("dns:///example.com:443"));
    assertThat(accepting.asked).containsExactly(URI.create("dns:///example.com:443"));
  }

  @Test
  void newNameResolverFailsWhenNoProviderAcceptsTheTarget() {
    FakeProvider declining = new FakeProvider("dns", 5);
    declining.accepts = false;
    registry.register(declining);

    assertThatThrownBy(() -> registry.newNameResolver("example.com", args))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no name resolver accepts target 'example.com'");
  }

  @Test
  void providerForTargetIsNullForATargetNoProviderHandles() {
    registry.register(new FakeProvider("ipv4", 5));

    assertThat(registry.providerForTarget("example.com:443")).isNull();
    assertThat(registry.providerForTarget("")).isNull();
  }

  @Test
  void schemesMustBeNonEmptyLowerCase() {
    assertThatThrownBy(() -> registry.register(new FakeProvider("DNS", 5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'DNS'");
    assertThatThrownBy(() -> registry.register(new FakeProvider("", 5)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void defaultRegistryHasTheBuiltInSchemes() {
    NameResolverRegistry defaults = NameResolverRegistry.getDefaultRegistry();

    for (String scheme : List.of("dns", "ipv4", "ipv6", "inprocess")) {
      assertThat(defaults.providersFor(scheme)).as(scheme).isNotEmpty();
    }
    assertThat(NameResolverRegistry.getDefaultRegistry()).isSameAs(defaults);
  }

  /** A provider that records the targets it is asked about. */
  private static final class FakeProvider extends NameResolverProvider {
    private final String scheme;
    private final int priority;
    final List<URI> asked = new ArrayList<>();
    boolean available = true;
    boolean accepts = true;

    FakeProvider(String scheme, int priority) {
      this.scheme = scheme;
      this.priority = priority;
    }

    @Override
    public boolean isAvailable() {
      return available;
    }

    @Override
    public int priority() {
      return priority;
    }

    @Override
    public String getScheme() {
      return scheme;
    }

    @Override
    public Collection<Class<? extends SocketAddress>> getProducedSocketAddressTypes() {
      return List.of(InetSocketAddress.class);
    }

    @Override
    public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
      asked.add(targetUri);
      if (!accepts) {
        return null;
      }
      String authority = "from " + this;
      return new NameResolver() {
        @Override
        public String getServiceAuthority() {
          return authority;
        }

        @Override
        public void start(Listener listener) {}

        @Override
        public void shutdown() {}
      };
    }
  }
}
