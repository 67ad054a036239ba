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
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Rate limiting and reporting of the DNS resolvers, with a lookup the test completes. */
class AbstractDnsNameResolverTest {
  private static final long MIN_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(30);

  private final FakeClock clock = new FakeClock();
  private final List<Throwable> thrown = new ArrayList<>();
  private final SynchronizationContext sync =
      new SynchronizationContext((thread, error) -> thrown.add(error));
  private final List<AbstractDnsNameResolver.LookupCallback> lookups = new ArrayList<>();
  private final List<String> lookedUp = new ArrayList<>();
  private final List<List<SocketAddress>> results = new ArrayList<>();
  private final List<Status> errors = new ArrayList<>();
  private final AbstractDnsNameResolver resolver =
      new AbstractDnsNameResolver(
          HostAndPort.parse("db.example:5432", 443, "dns:///db.example:5432"),
          NameResolver.Args.newBuilder()
              .setDefaultPort(443)
              .setSynchronizationContext(sync)
              .setScheduledExecutorService(clock)
              .setOffloadExecutor(Runnable::run)
              .build(),
          MIN_INTERVAL_NANOS,
          clock::currentTimeNanos) {
        @Override
        protected void lookup(String host, LookupCallback callback) {
          lookedUp.add(host);
          lookups.add(callback);
        }

        @Override
        protected void lookupTxt(String name, TxtCallback callback) {
          throw new AssertionError("service configs are off; looked up TXT of " + name);
        }
      };

  AbstractDnsNameResolverTest() {
    clock.setRethrowTaskFailures(true);
  }

  @AfterEach
  void nothingThrewInTheContext() {
    assertThat(thrown).isEmpty();
  }

  private void start() {
    resolver.start(
        new NameResolver.Listener() {
          @Override
          public void onResult(NameResolver.ResolutionResult result) {
            List<SocketAddress> servers = new ArrayList<>();
            for (EquivalentAddressGroup group : result.getAddresses()) {
              assertThat(group.getAddresses()).hasSize(1);
              servers.add(group.getAddresses().get(0));
            }
            results.add(servers);
          }

          @Override
          public void onError(Status error) {
            errors.add(error);
          }
        });
  }

  private AbstractDnsNameResolver.LookupCallback lastLookup() {
    return lookups.get(lookups.size() - 1);
  }

  private static InetAddress ip(int last) throws UnknownHostException {
    return InetAddress.getByAddress(new byte[] {10, 0, 0, (byte) last});
  }

  @Test
  void startLooksUpTheHostAndReportsEveryAddressAsAServer() throws Exception {
    start();

    assertThat(lookedUp).containsExactly("db.example");
    lastLookup().found(List.of(ip(1), ip(2)));

    assertThat(results)
        .containsExactly(
            List.of(new InetSocketAddress(ip(1), 5432), new InetSocketAddress(ip(2), 5432)));
    assertThat(resolver.getServiceAuthority()).isEqualTo("db.example:5432");
  }

  @Test
  void refreshSoonerThanTheMinimumIntervalIsDeferredToItsEnd() throws Exception {
    start();
    lastLookup().found(List.of(ip(1)));
    clock.forwardTime(10, TimeUnit.SECONDS);

    resolver.refresh();
    resolver.refresh();
    clock.forwardNanos(TimeUnit.SECONDS.toNanos(20) - 1);
    assertThat(lookups).hasSize(1);
    clock.forwardNanos(1);

    assertThat(lookups).as("one deferred lookup for both refreshes").hasSize(2);
    lastLookup().found(List.of(ip(2)));
    assertThat(results).hasSize(2);
  }

  @Test
  void refreshAfterTheMinimumIntervalLooksUpAtOnce() throws Exception {
    start();
    lastLookup().found(List.of(ip(1)));
    clock.forwardTime(30, TimeUnit.SECONDS);

    resolver.refresh();

    assertThat(lookups).hasSize(2);
  }

  @Test
  void refreshDuringALookupIsNotDoubled() throws Exception {
    start();

    resolver.refresh();
    resolver.refresh();
    assertThat(lookups).hasSize(1);
    lastLookup().found(List.of(ip(1)));

    clock.forwardTime(1, TimeUnit.MINUTES);
    assertThat(lookups).hasSize(1);
    assertThat(results).hasSize(1);
  }

  @Test
  void lookupErrorsReachTheListenerAsUnavailableNamingTheHost() {
    start();
    UnknownHostException cause = new UnknownHostException("db.example: Name or service not known");

    lastLookup().failed(cause);

    assertThat(errors).hasSize(1);
    assertThat(errors.get(0).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(errors.get(0).getDescription())
        .isEqualTo("unable to resolve host db.example: db.example: Name or service not known");
    assertThat(errors.get(0).getCause()).isSameAs(cause);
    assertThat(results).isEmpty();
  }

  @Test
  void afterAFailedLookupTheChannelsRetryLooksUpAtOnce() throws Exception {
    start();
    lastLookup().failed(new UnknownHostException("SERVFAIL"));
    clock.forwardTime(1, TimeUnit.SECONDS); // the channel's first re-resolution back-off

    resolver.refresh();

    assertThat(lookups).as("a failure does not start the minimum interval").hasSize(2);
    lastLookup().found(List.of(ip(1)));
    resolver.refresh();
    assertThat(lookups).as("a success does").hasSize(2);
  }

  @Test
  void noAddressesIsAnError() {
    start();

    lastLookup().found(List.of());

    assertThat(errors).hasSize(1);
    assertThat(errors.get(0).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(errors.get(0).getDescription())
        .isEqualTo("unable to resolve host db.example: no addresses");
  }

  @Test
  void shutdownCancelsADeferredLookupAndDropsALateResult() throws Exception {
    start();
    lastLookup().found(List.of(ip(1)));
    resolver.refresh(); // deferred by 30 s

    resolver.shutdown();
    clock.forwardTime(1, TimeUnit.MINUTES);

    assertThat(lookups).hasSize(1);
    assertThat(clock.numPendingTasks()).isZero();
  }

  @Test
  void resultOfALookupInFlightAtShutdownIsDropped() throws Exception {
    start();

    resolver.shutdown();
    lastLookup().found(List.of(ip(1)));

    assertThat(results).isEmpty();
  }
}
