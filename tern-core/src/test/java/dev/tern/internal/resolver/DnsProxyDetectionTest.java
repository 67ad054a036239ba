package dev.tern.internal.resolver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.EquivalentAddressGroup;
import dev.tern.HttpConnectProxiedSocketAddress;
import dev.tern.NameResolver;
import dev.tern.ProxyDetector;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import dev.tern.internal.proxy.SystemProxyDetector;
import dev.tern.testing.FakeClock;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The DNS resolvers ask the channel's proxy detector before looking a name up (gRFC A1), and look
 * nothing up for a host written as an IP address.
 */
class DnsProxyDetectionTest {
  private static final InetSocketAddress PROXY = new InetSocketAddress("10.9.9.9", 3128);

  private final FakeClock clock = new FakeClock();
  private final List<Throwable> thrown = new ArrayList<>();
  private final SynchronizationContext sync =
      new SynchronizationContext((thread, error) -> thrown.add(error));
  private final List<String> lookedUp = new ArrayList<>();
  private final List<AbstractDnsNameResolver.LookupCallback> lookups = new ArrayList<>();
  private final List<SocketAddress> asked = new ArrayList<>();
  private final List<NameResolver.ResolutionResult> results = new ArrayList<>();
  private final List<Status> errors = new ArrayList<>();

  @AfterEach
  void nothingThrewInTheContext() {
    assertThat(thrown).isEmpty();
  }

  private AbstractDnsNameResolver start(ProxyDetector detector, boolean serviceConfigs) {
    return start(detector, serviceConfigs, "api.example:443", Runnable::run);
  }

  private AbstractDnsNameResolver start(
      ProxyDetector detector, boolean serviceConfigs, String target, Executor offload) {
    AbstractDnsNameResolver resolver =
        new AbstractDnsNameResolver(
            HostAndPort.parse(target, 443, "dns:///" + target),
            NameResolver.Args.newBuilder()
                .setDefaultPort(443)
                .setSynchronizationContext(sync)
                .setScheduledExecutorService(clock)
                .setOffloadExecutor(offload)
                .setProxyDetector(detector)
                .build(),
            TimeUnit.SECONDS.toNanos(30),
            clock::currentTimeNanos,
            serviceConfigs) {
          @Override
          protected void lookup(String host, LookupCallback callback) {
            lookedUp.add(host);
            lookups.add(callback);
          }

          @Override
          protected void lookupTxt(String name, TxtCallback callback) {
            lookedUp.add(name);
          }
        };
    resolver.start(
        new NameResolver.Listener() {
          @Override
          public void onResult(NameResolver.ResolutionResult result) {
            results.add(result);
          }

          @Override
          public void onError(Status error) {
            errors.add(error);
          }
        });
    return resolver;
  }

  private ProxyDetector recording(HttpConnectProxiedSocketAddress answer) {
    return target -> {
      asked.add(target);
      return answer;
    };
  }

  @Test
  void aProxiedTargetIsNotLookedUpAndResolvesToTheProxiedAddress() {
    HttpConnectProxiedSocketAddress proxied =
        HttpConnectProxiedSocketAddress.newBuilder()
            .setProxyAddress(PROXY)
            .setTargetAddress(InetSocketAddress.createUnresolved("api.example", 443))
            .build();

    start(recording(proxied), true);

    assertThat(asked).hasSize(1);
    InetSocketAddress target = (InetSocketAddress) asked.get(0);
    assertThat(target.isUnresolved()).as("asked before any lookup").isTrue();
    assertThat(target.getHostString()).isEqualTo("api.example");
    assertThat(target.getPort()).isEqualTo(443);
    assertThat(lookedUp).as("neither the name nor its TXT record is looked up").isEmpty();
    assertThat(results).hasSize(1);
    assertThat(results.get(0).getAddresses()).containsExactly(new EquivalentAddressGroup(proxied));
    assertThat(results.get(0).getServiceConfig()).isNull();
  }

  @Test
  void aDirectTargetIsLookedUpAsWithoutADetector() throws Exception {
    start(recording(null), false);

    assertThat(asked).hasSize(1);
    assertThat(lookedUp).containsExactly("api.example");
    InetAddress ip = InetAddress.getByAddress(new byte[] {10, 0, 0, 1});
    lookups.get(0).found(List.of(ip));
    assertThat(results).hasSize(1);
    assertThat(results.get(0).getAddresses())
        .containsExactly(new EquivalentAddressGroup(new InetSocketAddress(ip, 443)));
  }

  @Test
  void aDetectorThatFailsFailsTheResolutionWithItsReason() {
    start(
        target -> {
          throw new IOException("HTTPS_PROXY names a socks5:// proxy");
        },
        false);

    assertThat(lookedUp).isEmpty();
    assertThat(results).isEmpty();
    assertThat(errors).hasSize(1);
    assertThat(errors.get(0).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(errors.get(0).getDescription())
        .contains("api.example:443")
        .contains("HTTPS_PROXY names a socks5:// proxy");
  }

  @Test
  void eachResolutionAsksAgain() {
    AbstractDnsNameResolver resolver = start(recording(null), false);
    lookups.get(0).found(List.of());
    resolver.refresh();

    assertThat(asked).hasSize(2);
  }

  @Test
  void theDefaultDetectorIsNotAskedOnABlockingThreadAboutALoopbackTarget() {
    List<Runnable> offloaded = new ArrayList<>();

    // A loopback name: an address (127.0.0.1) is not looked up at all (the tests below).
    start(SystemProxyDetector.getDefault(), false, "localhost:50051", offloaded::add);

    assertThat(offloaded).as("no hop to the offload executor").isEmpty();
    assertThat(lookedUp).containsExactly("localhost");
  }

  @Test
  void withNoDetectorNothingIsAsked() {
    start(ProxyDetector.none(), false);

    assertThat(lookedUp).containsExactly("api.example");
  }

  @Test
  void anIpv4AddressIsTheResolutionWithoutALookup() throws Exception {
    List<Runnable> offloaded = new ArrayList<>();
    start(ProxyDetector.none(), true, "10.1.2.3:8443", offloaded::add);

    assertThat(servers())
        .containsExactly(List.of(new InetSocketAddress(InetAddress.getByName("10.1.2.3"), 8443)));
    assertThat(lookedUp).isEmpty();
    assertThat(offloaded).isEmpty();
    assertThat(errors).isEmpty();
  }

  @Test
  void anIpv6AddressIsTheResolutionWithoutALookup() throws Exception {
    List<Runnable> offloaded = new ArrayList<>();
    start(ProxyDetector.none(), true, "[2001:db8::7]:8443", offloaded::add);

    assertThat(servers())
        .containsExactly(
            List.of(new InetSocketAddress(InetAddress.getByName("2001:db8::7"), 8443)));
    assertThat(lookedUp).isEmpty();
    assertThat(offloaded).isEmpty();
  }

  @Test
  void aNameIsStillLookedUpWithItsServiceConfig() {
    start(ProxyDetector.none(), true, "db.example:5432", Runnable::run);

    assertThat(lookedUp).containsExactlyInAnyOrder("db.example", "_grpc_config.db.example");
    assertThat(results).isEmpty();
  }

  /** Each result's servers, one address each. */
  private List<List<SocketAddress>> servers() {
    List<List<SocketAddress>> all = new ArrayList<>();
    for (NameResolver.ResolutionResult result : results) {
      List<SocketAddress> servers = new ArrayList<>();
      for (EquivalentAddressGroup group : result.getAddresses()) {
        servers.addAll(group.getAddresses());
      }
      all.add(servers);
    }
    return all;
  }
}
