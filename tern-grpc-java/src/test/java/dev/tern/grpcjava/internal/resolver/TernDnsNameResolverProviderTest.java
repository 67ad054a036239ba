package dev.tern.grpcjava.internal.resolver;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.EquivalentAddressGroup;
import io.grpc.NameResolver;
import io.grpc.Status;
import io.grpc.SynchronizationContext;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Tern's DNS resolver as grpc-java's registry offers it when grpc-core is absent: a grpc-java
 * program asking it to resolve gets the addresses, or an UNAVAILABLE naming the host.
 */
class TernDnsNameResolverProviderTest {
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private final TernDnsNameResolverProvider provider = new TernDnsNameResolverProvider();
  private NameResolver resolver;

  @AfterEach
  void stop() {
    if (resolver != null) {
      resolver.shutdown();
    }
    scheduler.shutdownNow();
  }

  @Test
  void offersDnsBelowGrpcCoresProvider() {
    assertThat(provider.getDefaultScheme()).isEqualTo("dns");
    assertThat(provider.getProducedSocketAddressTypes()).containsExactly(InetSocketAddress.class);
    assertThat(provider.newNameResolver(URI.create("unix:///tmp/x"), args())).isNull();
  }

  @Test
  void resolvesAHostToItsAddressesWithTheTargetsPort() throws Exception {
    resolver = provider.newNameResolver(URI.create("dns:///127.0.0.1:4242"), args());
    assertThat(resolver.getServiceAuthority()).isEqualTo("127.0.0.1:4242");
    Recorder recorder = new Recorder();
    resolver.start(recorder);

    Object result = recorder.results.poll(10, TimeUnit.SECONDS);
    assertThat(result).isInstanceOf(List.class);
    List<SocketAddress> addresses = new ArrayList<>();
    for (Object group : (List<?>) result) {
      addresses.addAll(((EquivalentAddressGroup) group).getAddresses());
    }
    assertThat(addresses).containsExactly(new InetSocketAddress("127.0.0.1", 4242));
  }

  @Test
  void aHostThatDoesNotResolveIsUnavailableNamingIt() throws Exception {
    resolver = provider.newNameResolver(URI.create("dns:///no-such-host.invalid:80"), args());
    Recorder recorder = new Recorder();
    resolver.start(recorder);

    Object result = recorder.results.poll(20, TimeUnit.SECONDS);
    assertThat(result).isInstanceOf(Status.class);
    assertThat(((Status) result).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(((Status) result).getDescription()).contains("no-such-host.invalid");
  }

  private NameResolver.Args args() {
    return NameResolver.Args.newBuilder()
        .setDefaultPort(443)
        .setProxyDetector(address -> null)
        .setSynchronizationContext(
            new SynchronizationContext(
                (thread, e) -> {
                  throw new AssertionError(e);
                }))
        .setScheduledExecutorService(scheduler)
        .setOffloadExecutor(Runnable::run)
        .setServiceConfigParser(
            new NameResolver.ServiceConfigParser() {
              @Override
              public NameResolver.ConfigOrError parseServiceConfig(Map<String, ?> raw) {
                return NameResolver.ConfigOrError.fromConfig(raw);
              }
            })
        .build();
  }

  /** Records each result's addresses, or each error. */
  private static final class Recorder extends NameResolver.Listener2 {
    final BlockingQueue<Object> results = new LinkedBlockingQueue<>();

    @Override
    public void onResult(NameResolver.ResolutionResult result) {
      results.add(
          result.getAddressesOrError().hasValue()
              ? result.getAddressesOrError().getValue()
              : result.getAddressesOrError().getStatus());
    }

    @Override
    public void onError(Status error) {
      results.add(error);
    }
  }
}
