package dev.tern.netty.internal.resolver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.LoadBalancerRegistry;
import dev.tern.NameResolver;
import dev.tern.NameResolver.ConfigOrError;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import dev.tern.internal.config.HedgingPolicy;
import dev.tern.internal.config.MethodConfig;
import dev.tern.internal.config.RetryPolicy;
import dev.tern.internal.config.ServiceConfig;
import dev.tern.internal.config.ServiceConfigParser;
import dev.tern.internal.resolver.JndiTxtLookup;
import dev.tern.netty.NettyDnsNameResolverProvider;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.testing.Await;
import dev.tern.testtools.Dnsmasq;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.dns.DefaultDnsRawRecord;
import io.netty.handler.codec.dns.DnsRecord;
import io.netty.handler.codec.dns.DnsRecordType;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Service configs from DNS TXT records (gRFC A2) as the resolvers read them from a real DNS server
 * (dnsmasq): Netty's resolver through {@link NettyDnsNameResolverProvider}, and the JDK resolver's
 * JNDI query pointed at the same server.
 */
class DnsTxtServiceConfigTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();

  private static final String SVC = "svc.tern.test";
  private static final String BAD = "bad.tern.test";
  private static final String TWO = "two.tern.test";
  private static final String PLAIN = "plain.tern.test";

  /** Retries, hedging and a timeout; over 255 bytes, so it is sent as several strings. */
  private static final String SERVICE_CONFIG =
      "{\"methodConfig\": [{\"name\": [{\"service\": \"tern.test.Echo\", \"method\": \"Say\"}],"
          + " \"timeout\": \"1.5s\", \"retryPolicy\": {\"maxAttempts\": 3, \"initialBackoff\":"
          + " \"0.1s\", \"maxBackoff\": \"1s\", \"backoffMultiplier\": 2,"
          + " \"retryableStatusCodes\": [\"UNAVAILABLE\"]}},"
          + " {\"name\": [{\"service\": \"tern.test.Hedged\"}], \"hedgingPolicy\":"
          + " {\"maxAttempts\": 2, \"hedgingDelay\": \"0.5s\"}}]}";

  private static final String SVC_RECORD =
      "grpc_config=[{\"clientLanguage\": [\"go\"], \"serviceConfig\": {}},"
          + " {\"serviceConfig\": "
          + SERVICE_CONFIG
          + "}]";

  private static final String MALFORMED_RECORD =
      "grpc_config=[{\"serviceConfig\": {}, \"weight\": 1}]";

  private static Dnsmasq dns;

  private final List<Throwable> thrown = new ArrayList<>();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  private final ExecutorService offload = Executors.newSingleThreadExecutor();
  private final NameResolver.Args args =
      NameResolver.Args.newBuilder()
          .setDefaultPort(443)
          .setSynchronizationContext(
              new SynchronizationContext((thread, error) -> thrown.add(error)))
          .setScheduledExecutorService(timer)
          .setOffloadExecutor(offload)
          .setServiceConfigParser(new TestParser())
          .build();

  @BeforeAll
  static void startDns() throws Exception {
    List<String> address = List.of("127.0.0.2");
    dns =
        Dnsmasq.start(
            Map.of(SVC, address, BAD, address, TWO, address, PLAIN, address),
            Map.of(
                "_grpc_config." + SVC,
                List.of("v=spf1 -all", SVC_RECORD),
                "_grpc_config." + BAD,
                List.of(MALFORMED_RECORD),
                "_grpc_config." + TWO,
                List.of(
                    "grpc_config=[{\"serviceConfig\": {}}]",
                    "grpc_config=[{\"serviceConfig\": {}}]")));
  }

  @AfterAll
  static void stopDns() {
    if (dns != null) {
      dns.close();
    }
  }

  @AfterEach
  void stopExecutors() throws InterruptedException {
    timer.shutdownNow();
    offload.shutdownNow();
    assertThat(timer.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    assertThat(offload.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    assertThat(thrown).isEmpty();
  }

  @Test
  void theTxtRecordsMethodConfigsReachTheResolutionResult() {
    assertThat(SVC_RECORD.length()).as("a record longer than one string").isGreaterThan(255);

    NameResolver.ResolutionResult result = resolve(enabled(), SVC);

    assertThat(addresses(result)).containsExactly(new InetSocketAddress("127.0.0.2", 443));
    ConfigOrError config = result.getServiceConfig();
    assertThat(config.getError()).isNull();
    ServiceConfig serviceConfig = (ServiceConfig) config.getConfig();
    MethodConfig say = serviceConfig.methodConfig("tern.test.Echo/Say");
    assertThat(say.timeoutNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(1_500));
    assertThat(say.retryPolicy())
        .isEqualTo(
            new RetryPolicy(
                3,
                TimeUnit.MILLISECONDS.toNanos(100),
                TimeUnit.SECONDS.toNanos(1),
                2.0,
                Set.of(Status.Code.UNAVAILABLE)));
    assertThat(serviceConfig.methodConfig("tern.test.Hedged/Any").hedgingPolicy())
        .isEqualTo(new HedgingPolicy(2, TimeUnit.MILLISECONDS.toNanos(500), Set.of()));
    assertThat(dns.queries()).contains("query[TXT] _grpc_config." + SVC + " from 127.0.0.1");
  }

  @Test
  void offByDefaultNoTxtQueryAndNoConfig() {
    assertThat(System.getProperty("dev.tern.dns.enableServiceConfig")).isNull();
    long txtQueriesBefore = txtQueries();

    NameResolver.ResolutionResult result = resolve(new NettyDnsNameResolverProvider(), SVC);

    assertThat(addresses(result)).hasSize(1);
    assertThat(result.getServiceConfig()).isNull();
    assertThat(txtQueries()).isEqualTo(txtQueriesBefore);
  }

  @Test
  void switchedOffExplicitlyNoConfig() {
    NameResolver.ResolutionResult result =
        resolve(new NettyDnsNameResolverProvider().withServiceConfigLookup(false), SVC);

    assertThat(result.getServiceConfig()).isNull();
  }

  @Test
  void theSystemPropertyTurnsThemOnForResolversMadeAfterwards() {
    NettyDnsNameResolverProvider provider = new NettyDnsNameResolverProvider(Duration.ZERO);
    System.setProperty("dev.tern.dns.enableServiceConfig", "true");
    NameResolver resolver;
    try {
      resolver = provider.newNameResolver(target(SVC), args);
    } finally {
      System.clearProperty("dev.tern.dns.enableServiceConfig");
    }

    NameResolver.ResolutionResult result = resolve(resolver);

    assertThat(result.getServiceConfig().getConfig()).isInstanceOf(ServiceConfig.class);
  }

  @Test
  void aMalformedRecordIsAConfigErrorNamingTheProblem() {
    NameResolver.ResolutionResult result = resolve(enabled(), BAD);

    assertThat(addresses(result)).hasSize(1);
    Status error = result.getServiceConfig().getError();
    assertThat(error.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(error.getDescription())
        .isEqualTo("grpc_config TXT record: choice[0] has unknown field \"weight\"");
  }

  @Test
  void twoGrpcConfigRecordsAreAConfigError() {
    NameResolver.ResolutionResult result = resolve(enabled(), TWO);

    assertThat(result.getServiceConfig().getError().getDescription())
        .isEqualTo("more than one grpc_config TXT record");
  }

  /** dnsmasq answers REFUSED for a name it has no record of: no config, the addresses still. */
  @Test
  void noTxtRecordMeansNoConfigAndTheAddressesAreReported() {
    NameResolver.ResolutionResult result = resolve(enabled(), PLAIN);

    assertThat(addresses(result)).containsExactly(new InetSocketAddress("127.0.0.2", 443));
    assertThat(result.getServiceConfig()).isNull();
    assertThat(dns.queries()).contains("query[TXT] _grpc_config." + PLAIN + " from 127.0.0.1");
  }

  @Test
  void jndiQueryReadsTheRecordsWholeFromTheGivenServer() throws Exception {
    List<String> texts = JndiTxtLookup.query("_grpc_config." + SVC, jndiServer());

    assertThat(texts).containsExactlyInAnyOrder("v=spf1 -all", SVC_RECORD);
    assertThat(JndiTxtLookup.query("_grpc_config." + BAD, jndiServer()))
        .containsExactly(MALFORMED_RECORD);
  }

  @Test
  void jndiQueryOfANameTheServerRefusesFails() {
    assertThatThrownBy(() -> JndiTxtLookup.query("_grpc_config." + PLAIN, jndiServer()))
        .isInstanceOf(Exception.class)
        // A NamingException, named by its class name: this module does not read java.naming.
        .satisfies(e -> assertThat(e.getClass().getName()).startsWith("javax.naming."));
  }

  @Test
  void txtRecordsAreReadAndEveryRecordIsReleased() {
    ByteBuf twoStrings = Unpooled.buffer().writeByte(3).writeBytes(bytes("abc"));
    twoStrings.writeByte(2).writeBytes(bytes("de"));
    DnsRecord txt = new DefaultDnsRawRecord("x.", DnsRecordType.TXT, 0, twoStrings);
    DnsRecord cname =
        new DefaultDnsRawRecord("x.", DnsRecordType.CNAME, 0, Unpooled.wrappedBuffer(bytes("y")));

    assertThat(NettyDnsNameResolver.texts(List.of(cname, txt))).containsExactly("abcde");
    assertThat(twoStrings.refCnt()).isZero();
    assertThat(((DefaultDnsRawRecord) cname).refCnt()).isZero();
  }

  @Test
  void aMalformedTxtRecordFailsTheLookupAndEveryRecordIsStillReleased() {
    DnsRecord malformed =
        new DefaultDnsRawRecord(
            "x.", DnsRecordType.TXT, 0, Unpooled.buffer().writeByte(9).writeByte('a'));
    DnsRecord good =
        new DefaultDnsRawRecord(
            "x.", DnsRecordType.TXT, 0, Unpooled.buffer().writeByte(1).writeByte('b'));

    assertThatThrownBy(() -> NettyDnsNameResolver.texts(List.of(malformed, good)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("malformed TXT record");
    assertThat(((DefaultDnsRawRecord) malformed).refCnt()).isZero();
    assertThat(((DefaultDnsRawRecord) good).refCnt()).isZero();
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  private static String jndiServer() {
    return "dns://127.0.0.1:" + dns.port();
  }

  private static URI target(String host) {
    return URI.create("dns://127.0.0.1:" + dns.port() + "/" + host);
  }

  private static NettyDnsNameResolverProvider enabled() {
    return new NettyDnsNameResolverProvider(Duration.ZERO).withServiceConfigLookup(true);
  }

  private long txtQueries() {
    return dns.queries().stream().filter(query -> query.startsWith("query[TXT]")).count();
  }

  private NameResolver.ResolutionResult resolve(
      NettyDnsNameResolverProvider provider, String host) {
    return resolve(provider.newNameResolver(target(host), args));
  }

  /** Starts {@code resolver}, waits for its first result, and shuts it down. */
  private static NameResolver.ResolutionResult resolve(NameResolver resolver) {
    BlockingQueue<Object> outcomes = new LinkedBlockingQueue<>();
    resolver.start(
        new NameResolver.Listener() {
          @Override
          public void onResult(NameResolver.ResolutionResult result) {
            outcomes.add(result);
          }

          @Override
          public void onError(Status error) {
            outcomes.add(error);
          }
        });
    try {
      Object outcome = Await.poll(outcomes, "the resolver's first result");
      assertThat(outcome).isInstanceOf(NameResolver.ResolutionResult.class);
      return (NameResolver.ResolutionResult) outcome;
    } finally {
      resolver.shutdown();
    }
  }

  private static List<SocketAddress> addresses(NameResolver.ResolutionResult result) {
    List<SocketAddress> addresses = new ArrayList<>();
    result.getAddresses().forEach(group -> addresses.addAll(group.getAddresses()));
    return addresses;
  }

  /** The channel's parser, as a resolver gets it: a ServiceConfig, or UNAVAILABLE naming why. */
  private static final class TestParser extends NameResolver.ServiceConfigParser {
    @Override
    public ConfigOrError parseServiceConfig(Map<String, ?> raw) {
      try {
        return ConfigOrError.fromConfig(
            ServiceConfigParser.parse(raw, LoadBalancerRegistry.getDefaultRegistry()));
      } catch (IllegalArgumentException e) {
        return ConfigOrError.fromError(Status.UNAVAILABLE.withDescription(e.getMessage()));
      }
    }
  }
}
