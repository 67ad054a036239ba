package dev.tern.xds.internal.resolver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.ConfigSelector;
import dev.tern.LoadBalancer;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.xds.XdsRouteConfig.HashPolicy;
import dev.tern.xds.XdsRouteConfig.PathMatcher;
import dev.tern.xds.XdsRouteConfig.Route;
import dev.tern.xds.XdsRouteConfig.RouteAction;
import dev.tern.xds.XdsRouteConfig.RouteMatch;
import dev.tern.xds.internal.XdsAttributes;
import dev.tern.xds.internal.XxHash64;
import dev.tern.xds.internal.resolver.RoutingConfigSelector.CompiledRoute;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The route hash policies of gRFC A42 and how the selector hands the hash to the balancer. */
class RouteHashTest {
  private static final long CHANNEL_ID = 12345;

  private static HashPolicy header(String name, boolean terminal) {
    return new HashPolicy(HashPolicy.Kind.HEADER, name, null, null, terminal);
  }

  private static HashPolicy channelId(boolean terminal) {
    return new HashPolicy(HashPolicy.Kind.CHANNEL_ID, null, null, null, terminal);
  }

  private static Metadata headers(String... namesAndValues) {
    Metadata metadata = new Metadata();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      metadata.put(
          Metadata.Key.of(namesAndValues[i], Metadata.ASCII_STRING_MARSHALLER),
          namesAndValues[i + 1]);
    }
    return metadata;
  }

  private static Long hash(List<HashPolicy> policies, Metadata headers) {
    return RouteHash.of(policies, CHANNEL_ID).hash(headers);
  }

  @Test
  void aHeadersValueIsHashedWithXxHash64() {
    assertThat(hash(List.of(header("user", false)), headers("user", "alice")))
        .isEqualTo(XxHash64.hash("alice"));
    // Repeated values are joined with ",".
    assertThat(hash(List.of(header("user", false)), headers("user", "a", "user", "b")))
        .isEqualTo(XxHash64.hash("a,b"));
    // No such header, no hash: the balancer then picks at random.
    assertThat(hash(List.of(header("user", false)), headers("other", "x"))).isNull();
  }

  @Test
  void regexRewriteAppliesBeforeHashing() {
    HashPolicy rewrite =
        new HashPolicy(
            HashPolicy.Kind.HEADER, "session", Pattern.compile("^(\\w+)-\\d+$"), "$1", false);
    assertThat(hash(List.of(rewrite), headers("session", "eu-17")))
        .isEqualTo(hash(List.of(rewrite), headers("session", "eu-99")))
        .isEqualTo(XxHash64.hash("eu"));
  }

  @Test
  void hashesCombineAndATerminalPolicyStopsOnceThereIsAHash() {
    long a = XxHash64.hash("1");
    long b = XxHash64.hash("2");
    Metadata both = headers("a", "1", "b", "2");
    assertThat(hash(List.of(header("a", false), header("b", false)), both))
        .isEqualTo(Long.rotateLeft(a, 1) ^ b);
    assertThat(hash(List.of(header("a", true), header("b", false)), both)).isEqualTo(a);
    // A terminal policy that produced nothing does not stop the walk.
    assertThat(hash(List.of(header("missing", true), header("b", false)), both)).isEqualTo(b);
    assertThat(hash(List.of(channelId(false)), new Metadata()))
        .isEqualTo(XxHash64.hash(CHANNEL_ID));
  }

  @Test
  void noPoliciesMeansNoHasher() {
    assertThat(RouteHash.of(List.of(), CHANNEL_ID)).isNull();
  }

  // ---- through the selector

  private static final ClusterRefs REFS =
      new ClusterRefs() {
        @Override
        public boolean retain(String cluster) {
          return true;
        }

        @Override
        public void release(String cluster) {}

        @Override
        public RoutingConfigSelector latest() {
          return null;
        }
      };

  private static RoutingConfigSelector selector(List<HashPolicy> policies) {
    Route route =
        new Route(
            new RouteMatch(
                new PathMatcher(PathMatcher.Kind.PREFIX, "", null, true), List.of(), null),
            new RouteAction("A", List.of(), null, null, null, policies));
    return new RoutingConfigSelector(
        List.of(new CompiledRoute(route, null, null, RouteHash.of(policies, CHANNEL_ID))),
        Set.of("A"),
        "vh",
        null,
        REFS,
        XdsRandom.DEFAULT);
  }

  /** The options the result's interceptor gives the call. */
  private static CallOptions optionsOf(ConfigSelector.Result result) {
    AtomicReference<CallOptions> seen = new AtomicReference<>();
    Channel next =
        new Channel() {
          @Override
          public <ReqT, RespT> ClientCall<ReqT, RespT> newCall(
              MethodDescriptor<ReqT, RespT> method, CallOptions callOptions) {
            seen.set(callOptions);
            return new RoutingTest.NoopCall<>();
          }

          @Override
          public String authority() {
            return "svc";
          }
        };
    result.getInterceptor().interceptCall(RoutingTest.A_CALL, CallOptions.DEFAULT, next);
    return seen.get();
  }

  private static LoadBalancer.PickSubchannelArgs call(Metadata headers) {
    return RoutingTest.args(RoutingTest.A_CALL, headers);
  }

  @Test
  void theSelectorPutsTheRoutesHashIntoTheCallsOptions() {
    CallOptions options =
        optionsOf(selector(List.of(header("user", false))).select(call(headers("user", "bob"))));
    assertThat(options.getOption(XdsAttributes.RPC_HASH)).isEqualTo(XxHash64.hash("bob"));
    assertThat(options.getOption(XdsAttributes.CLUSTER_SELECTION)).isEqualTo("cluster:A");
  }

  @Test
  void aCallWithoutAHashOrARouteWithoutPoliciesCarriesNone() {
    assertThat(
            optionsOf(selector(List.of(header("user", false))).select(call(new Metadata())))
                .getOption(XdsAttributes.RPC_HASH))
        .isNull();
    assertThat(
            optionsOf(selector(List.of()).select(call(headers("user", "bob"))))
                .getOption(XdsAttributes.RPC_HASH))
        .isNull();
  }
}
