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
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AddressListNameResolverProviderTest {
  private final NameResolverRegistry registry = new NameResolverRegistry();
  private final NameResolver.Args args =
      NameResolver.Args.newBuilder()
          .setDefaultPort(443)
          .setSynchronizationContext(new SynchronizationContext((thread, error) -> {}))
          .setScheduledExecutorService(new FakeClock())
          .setOffloadExecutor(Runnable::run)
          .build();

  AddressListNameResolverProviderTest() {
    registry.register(new AddressListNameResolverProvider.Ipv4());
    registry.register(new AddressListNameResolverProvider.Ipv6());
  }

  /** The addresses the resolver for {@code target} reports, one list per server. */
  private List<List<SocketAddress>> resolve(String target) {
    NameResolver resolver = registry.newNameResolver(target, args);
    List<List<SocketAddress>> servers = new ArrayList<>();
    resolver.start(
        new NameResolver.Listener() {
          @Override
          public void onResult(NameResolver.ResolutionResult result) {
            for (EquivalentAddressGroup group : result.getAddresses()) {
              servers.add(group.getAddresses());
            }
          }

          @Override
          public void onError(Status error) {
            throw new AssertionError("unexpected error " + error);
          }
        });
    return servers;
  }

  private static SocketAddress inet(String literal, int port) throws Exception {
    return new InetSocketAddress(InetAddress.getByName(literal), port);
  }

  @Test
  void ipv4ListIsOneServerPerAddress() throws Exception {
    assertThat(resolve("ipv4:10.0.0.1:50051,10.0.0.2"))
        .containsExactly(List.of(inet("10.0.0.1", 50051)), List.of(inet("10.0.0.2", 443)));
    assertThat(registry.newNameResolver("ipv4:10.0.0.1:50051,10.0.0.2", args).getServiceAuthority())
        .isEqualTo("10.0.0.1:50051");
  }

  @Test
  void ipv6ListTakesBracketedAddressesWithPortsAndBareOnesWithout() throws Exception {
    assertThat(resolve("ipv6:[::1]:50051,[2001:db8::2],2001:db8::3"))
        .containsExactly(
            List.of(inet("::1", 50051)),
            List.of(inet("2001:db8::2", 443)),
            List.of(inet("2001:db8::3", 443)));
    assertThat(registry.newNameResolver("ipv6:[::1]:50051", args).getServiceAuthority())
        .isEqualTo("[::1]:50051");
  }

  @Test
  void badLiteralsAreRejectedNamingTheElement() {
    for (String target :
        List.of(
            "ipv4:10.0.0",
            "ipv4:256.0.0.1",
            "ipv4:10.0.0.1.5",
            "ipv4:010.0.0.1",
            "ipv4:example.com:80")) {
      assertThatThrownBy(() -> registry.newNameResolver(target, args))
          .as(target)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("is not an ipv4 literal");
    }
    assertThatThrownBy(() -> registry.newNameResolver("ipv6:[::g]:80", args))
        .hasMessageContaining("'::g' is not an ipv6 literal");
    assertThatThrownBy(() -> registry.newNameResolver("ipv4:10.0.0.1:99999", args))
        .hasMessageContaining("'10.0.0.1:99999'")
        .hasMessageContaining("beyond 65535");
  }

  @Test
  void addressesOfTheOtherFamilyAreRejected() {
    assertThatThrownBy(() -> registry.newNameResolver("ipv4:[::1]:80", args))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'::1' is not an ipv4 literal");
    assertThatThrownBy(() -> registry.newNameResolver("ipv6:10.0.0.1", args))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'10.0.0.1'")
        .hasMessageContaining("not an IPv6 address");
  }

  @Test
  void emptyListsAndEmptyElementsAreRejected() {
    assertThatThrownBy(() -> registry.newNameResolver("ipv4:", args))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> registry.newNameResolver("ipv4:10.0.0.1,", args))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("names no host");
    assertThatThrownBy(() -> registry.newNameResolver("ipv4://10.0.0.1", args))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be ipv4:address[:port]");
  }
}
