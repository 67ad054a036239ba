package dev.tern.internal.resolver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.EquivalentAddressGroup;
import dev.tern.NameResolver;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import dev.tern.testing.FakeClock;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A target written as an IP address is answered at once: no lookup, no offload, no TXT. */
class DnsIpLiteralTest {
  private final FakeClock clock = new FakeClock();
  private final List<Throwable> thrown = new ArrayList<>();
  private final SynchronizationContext sync =
      new SynchronizationContext((thread, error) -> thrown.add(error));
  private final List<String> lookedUp = new ArrayList<>();
  private final List<Runnable> offloaded = new ArrayList<>();
  private final List<List<SocketAddress>> results = new ArrayList<>();
  private final List<Status> errors = new ArrayList<>();

  private AbstractDnsNameResolver resolverFor(String target) {
    return new AbstractDnsNameResolver(
        HostAndPort.parse(target, 443, "dns:///" + target),
        NameResolver.Args.newBuilder()
            .setDefaultPort(443)
            .setSynchronizationContext(sync)
            .setScheduledExecutorService(clock)
            .setOffloadExecutor(offloaded::add)
            .build(),
        TimeUnit.SECONDS.toNanos(30),
        clock::currentTimeNanos,
        /* serviceConfigLookup= */ true) {
      @Override
      protected void lookup(String host, LookupCallback callback) {
        lookedUp.add(host);
      }

      @Override
      protected void lookupTxt(String name, TxtCallback callback) {
        lookedUp.add("TXT " + name);
      }
    };
  }

  private void start(AbstractDnsNameResolver resolver) {
    resolver.start(
        new NameResolver.Listener() {
          @Override
          public void onResult(NameResolver.ResolutionResult result) {
            List<SocketAddress> servers = new ArrayList<>();
            for (EquivalentAddressGroup group : result.getAddresses()) {
              servers.addAll(group.getAddresses());
            }
            results.add(servers);
          }

          @Override
          public void onError(Status error) {
            errors.add(error);
          }
        });
  }

  @Test
  void anIpv4AddressIsTheResolutionWithoutALookup() throws Exception {
    start(resolverFor("10.1.2.3:8443"));

    assertThat(results)
        .containsExactly(List.of(new InetSocketAddress(InetAddress.getByName("10.1.2.3"), 8443)));
    assertThat(lookedUp).isEmpty();
    assertThat(offloaded).isEmpty();
    assertThat(errors).isEmpty();
    assertThat(thrown).isEmpty();
  }

  @Test
  void anIpv6AddressIsTheResolutionWithoutALookup() throws Exception {
    start(resolverFor("[2001:db8::7]:8443"));

    assertThat(results)
        .containsExactly(
            List.of(new InetSocketAddress(InetAddress.getByName("2001:db8::7"), 8443)));
    assertThat(lookedUp).isEmpty();
    assertThat(offloaded).isEmpty();
  }

  @Test
  void aNameIsStillLookedUpWithItsServiceConfig() {
    start(resolverFor("db.example:5432"));

    assertThat(lookedUp).containsExactlyInAnyOrder("db.example", "TXT _grpc_config.db.example");
    assertThat(results).isEmpty();
  }
}
