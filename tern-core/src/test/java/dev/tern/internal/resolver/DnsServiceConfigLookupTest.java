package dev.tern.internal.resolver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.EquivalentAddressGroup;
import dev.tern.NameResolver;
import dev.tern.NameResolver.ConfigOrError;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import dev.tern.testing.FakeClock;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A DNS resolver with service configs on: the address and TXT lookups (completed by the test) are
 * reported together, and a TXT lookup that fails never fails the resolution.
 */
class DnsServiceConfigLookupTest {
  private static final String CONFIG_TEXT =
      "grpc_config=[{\"serviceConfig\": {\"loadBalancingConfig\": [{\"round_robin\": {}}]}}]";

  private final FakeClock clock = new FakeClock();
  private final List<Throwable> thrown = new ArrayList<>();
  private final SynchronizationContext sync =
      new SynchronizationContext((thread, error) -> thrown.add(error));
  private final Queue<Runnable> offloaded = new ArrayDeque<>();
  private boolean offloadRejects;
  private final List<AbstractDnsNameResolver.LookupCallback> lookups = new ArrayList<>();
  private final List<String> txtNames = new ArrayList<>();
  private final List<AbstractDnsNameResolver.TxtCallback> txtLookups = new ArrayList<>();
  private final List<NameResolver.ResolutionResult> results = new ArrayList<>();
  private final List<Status> errors = new ArrayList<>();

  private final AbstractDnsNameResolver resolver =
      new AbstractDnsNameResolver(
          HostAndPort.parse("db.example:5432", 443, "dns:///db.example:5432"),
          NameResolver.Args.newBuilder()
              .setDefaultPort(443)
              .setSynchronizationContext(sync)
              .setScheduledExecutorService(clock)
              .setOffloadExecutor(
                  task -> {
                    if (offloadRejects) {
                      throw new RejectedExecutionException("offload executor shut down");
                    }
                    offloaded.add(task);
                  })
              .setServiceConfigParser(
                  new NameResolver.ServiceConfigParser() {
                    @Override
                    public ConfigOrError parseServiceConfig(Map<String, ?> raw) {
                      return ConfigOrError.fromConfig(raw);
                    }
                  })
              .build(),
          TimeUnit.SECONDS.toNanos(30),
          clock::currentTimeNanos,
          true) {
        @Override
        protected void lookup(String host, LookupCallback callback) {
          lookups.add(callback);
        }

        @Override
        protected void lookupTxt(String name, TxtCallback callback) {
          txtNames.add(name);
          txtLookups.add(callback);
        }
      };

  DnsServiceConfigLookupTest() {
    clock.setRethrowTaskFailures(true);
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
  }

  @AfterEach
  void nothingThrewInTheContext() {
    assertThat(thrown).isEmpty();
  }

  private static InetAddress ip(int last) throws UnknownHostException {
    return InetAddress.getByAddress(new byte[] {10, 0, 0, (byte) last});
  }

  private void runOffloaded() {
    for (Runnable task; (task = offloaded.poll()) != null; ) {
      task.run();
    }
  }

  private static List<SocketAddress> addresses(NameResolver.ResolutionResult result) {
    List<SocketAddress> addresses = new ArrayList<>();
    for (EquivalentAddressGroup group : result.getAddresses()) {
      addresses.addAll(group.getAddresses());
    }
    return addresses;
  }

  @Test
  void theTxtRecordsOfGrpcConfigDotHostAreAskedForWithTheAddresses() {
    assertThat(lookups).hasSize(1);
    assertThat(txtNames).containsExactly("_grpc_config.db.example");
  }

  @Test
  void aFailedTxtLookupStillReportsTheAddressesWithoutAConfig() throws Exception {
    txtLookups.get(0).failed(new UnknownHostException("SERVFAIL"));
    lookups.get(0).found(List.of(ip(1)));

    assertThat(errors).isEmpty();
    assertThat(results).hasSize(1);
    assertThat(addresses(results.get(0))).containsExactly(new InetSocketAddress(ip(1), 5432));
    assertThat(results.get(0).getServiceConfig()).isNull();
  }

  @Test
  void theChosenConfigComesWithTheAddressesOnceBothLookupsAreDone() throws Exception {
    lookups.get(0).found(List.of(ip(1), ip(2)));
    assertThat(results).as("waits for the TXT lookup").isEmpty();

    txtLookups.get(0).found(List.of("v=spf1 -all", CONFIG_TEXT));
    assertThat(results).as("the config is chosen on the offload executor").isEmpty();
    runOffloaded();

    assertThat(results).hasSize(1);
    assertThat(addresses(results.get(0))).hasSize(2);
    assertThat(results.get(0).getServiceConfig().getConfig())
        .isEqualTo(Map.of("loadBalancingConfig", List.of(Map.of("round_robin", Map.of()))));
  }

  @Test
  void noGrpcConfigRecordIsNoConfig() throws Exception {
    txtLookups.get(0).found(List.of());
    runOffloaded();
    lookups.get(0).found(List.of(ip(1)));

    assertThat(results).hasSize(1);
    assertThat(results.get(0).getServiceConfig()).isNull();
  }

  @Test
  void aMalformedRecordIsReportedAsAConfigErrorBesideTheAddresses() throws Exception {
    txtLookups.get(0).found(List.of("grpc_config={"));
    runOffloaded();
    lookups.get(0).found(List.of(ip(1)));

    assertThat(errors).isEmpty();
    assertThat(addresses(results.get(0))).hasSize(1);
    Status error = results.get(0).getServiceConfig().getError();
    assertThat(error.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(error.getDescription()).startsWith("grpc_config TXT record: ");
  }

  @Test
  void aFailedAddressLookupIsAnErrorWhateverTheTxtRecordsSay() {
    txtLookups.get(0).found(List.of(CONFIG_TEXT));
    runOffloaded();
    lookups.get(0).failed(new UnknownHostException("db.example"));

    assertThat(results).isEmpty();
    assertThat(errors).hasSize(1);
    assertThat(errors.get(0).getDescription()).contains("db.example");
  }

  @Test
  void aRejectingOffloadExecutorMeansNoConfig() throws Exception {
    offloadRejects = true;
    txtLookups.get(0).found(List.of(CONFIG_TEXT));
    lookups.get(0).found(List.of(ip(1)));

    assertThat(results).hasSize(1);
    assertThat(results.get(0).getServiceConfig()).isNull();
  }

  @Test
  void eachRefreshAsksForTheTxtRecordsAgain() throws Exception {
    lookups.get(0).found(List.of(ip(1)));
    txtLookups.get(0).found(List.of(CONFIG_TEXT));
    runOffloaded();
    clock.forwardTime(30, TimeUnit.SECONDS);

    resolver.refresh();
    assertThat(lookups).hasSize(2);
    assertThat(txtLookups).hasSize(2);
    txtLookups.get(1).found(List.of());
    runOffloaded();
    lookups.get(1).found(List.of(ip(1)));

    assertThat(results).hasSize(2);
    assertThat(results.get(0).getServiceConfig()).isNotNull();
    assertThat(results.get(1).getServiceConfig()).as("the record is gone").isNull();
  }

  @Test
  void aTxtResultAfterShutdownIsDropped() throws Exception {
    lookups.get(0).found(List.of(ip(1)));
    resolver.shutdown();
    txtLookups.get(0).found(List.of(CONFIG_TEXT));
    runOffloaded();

    assertThat(results).isEmpty();
  }
}
