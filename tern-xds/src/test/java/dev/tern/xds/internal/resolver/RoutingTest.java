package dev.tern.xds.internal.resolver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.ConfigSelector;
import dev.tern.LoadBalancer;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.testing.TestMarshallers;
import dev.tern.xds.XdsRouteConfig.ClusterWeight;
import dev.tern.xds.XdsRouteConfig.HeaderMatcher;
import dev.tern.xds.XdsRouteConfig.PathMatcher;
import dev.tern.xds.XdsRouteConfig.RetryPolicy;
import dev.tern.xds.XdsRouteConfig.Route;
import dev.tern.xds.XdsRouteConfig.RouteAction;
import dev.tern.xds.XdsRouteConfig.RouteMatch;
import dev.tern.xds.XdsRouteConfig.VirtualHost;
import dev.tern.xds.internal.XdsAttributes;
import dev.tern.xds.internal.resolver.RoutingConfigSelector.CompiledRoute;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Domain matching, route matching and the selector's choices, without a channel. */
class RoutingTest {
  // ---- domains (A27)

  private static VirtualHost vh(String name, String... domains) {
    return new VirtualHost(name, List.of(domains), List.of());
  }

  @Test
  void domainMatchingTable() {
    List<VirtualHost> hosts =
        List.of(
            vh("any", "*"),
            vh("prefix-short", "foo.*"),
            vh("prefix-long", "foo.bar.*"),
            vh("suffix-short", "*.com"),
            vh("suffix-long", "*.example.com"),
            vh("exact", "svc.example.com", "Other.Example.COM"));
    Object[][] table = {
      {"svc.example.com", "exact"},
      {"SVC.example.com", "exact"},
      {"other.example.com", "exact"},
      {"a.example.com", "suffix-long"},
      {"a.b.com", "suffix-short"},
      // A suffix wildcard beats a prefix wildcard, however long.
      {"foo.bar.com", "suffix-short"},
      {"foo.bar.org", "prefix-long"},
      {"foo.baz.org", "prefix-short"},
      {"svc", "any"},
    };
    for (Object[] row : table) {
      assertThat(VirtualHosts.select(hosts, (String) row[0]).name())
          .as("%s", row[0])
          .isEqualTo(row[1]);
    }
    assertThat(VirtualHosts.select(List.of(vh("x", "a.com", "*.b.com")), "c.com")).isNull();
    assertThat(VirtualHosts.matches("a*b", "ab")).isFalse(); // a star inside never matches
    assertThat(VirtualHosts.matches("", "")).isFalse();
    // The first of equal-length wildcards wins.
    assertThat(
            VirtualHosts.select(List.of(vh("one", "*.a.com"), vh("two", "*.b.com")), "x.a.com")
                .name())
        .isEqualTo("one");
  }

  // ---- path and header matching (A28)

  private static PathMatcher prefix(String p, boolean caseSensitive) {
    return new PathMatcher(PathMatcher.Kind.PREFIX, p, null, caseSensitive);
  }

  private static PathMatcher path(String p, boolean caseSensitive) {
    return new PathMatcher(PathMatcher.Kind.PATH, p, null, caseSensitive);
  }

  private static PathMatcher regex(String r) {
    return new PathMatcher(PathMatcher.Kind.SAFE_REGEX, r, Pattern.compile(r), true);
  }

  @Test
  void pathMatchers() {
    assertThat(RouteMatcher.matchesPath(prefix("", true), "/a.B/C")).isTrue();
    assertThat(RouteMatcher.matchesPath(prefix("/a.B/", true), "/a.B/C")).isTrue();
    assertThat(RouteMatcher.matchesPath(prefix("/a.b/", true), "/a.B/C")).isFalse();
    assertThat(RouteMatcher.matchesPath(prefix("/A.b/", false), "/a.B/C")).isTrue();
    assertThat(RouteMatcher.matchesPath(path("/a.B/C", true), "/a.B/C")).isTrue();
    assertThat(RouteMatcher.matchesPath(path("/a.B/", true), "/a.B/C")).isFalse();
    assertThat(RouteMatcher.matchesPath(path("/A.b/c", true), "/a.B/C")).isFalse();
    assertThat(RouteMatcher.matchesPath(path("/A.b/c", false), "/a.B/C")).isTrue();
    assertThat(RouteMatcher.matchesPath(regex("/a\\.B/.*"), "/a.B/C")).isTrue();
    assertThat(RouteMatcher.matchesPath(regex("/a\\.B"), "/a.B/C")).isFalse(); // a full match
  }

  private static HeaderMatcher header(String name, HeaderMatcher.Kind kind, String value) {
    return header(name, kind, value, false, false);
  }

  private static HeaderMatcher header(
      String name, HeaderMatcher.Kind kind, String value, boolean invert, boolean ignoreCase) {
    Pattern regex = kind == HeaderMatcher.Kind.SAFE_REGEX ? Pattern.compile(value) : null;
    return new HeaderMatcher(name, kind, value, regex, 0, 0, false, invert, ignoreCase);
  }

  private static HeaderMatcher range(String name, long start, long end) {
    return new HeaderMatcher(
        name, HeaderMatcher.Kind.RANGE, "", null, start, end, false, false, false);
  }

  private static HeaderMatcher present(String name, boolean present, boolean invert) {
    return new HeaderMatcher(
        name, HeaderMatcher.Kind.PRESENT, "", null, 0, 0, present, invert, false);
  }

  private static Metadata headers(String... namesAndValues) {
    Metadata m = new Metadata();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      if (namesAndValues[i].endsWith("-bin")) {
        m.put(
            Metadata.Key.of(namesAndValues[i], Metadata.BINARY_BYTE_MARSHALLER),
            namesAndValues[i + 1].getBytes(java.nio.charset.StandardCharsets.UTF_8));
      } else {
        m.put(
            Metadata.Key.of(namesAndValues[i], Metadata.ASCII_STRING_MARSHALLER),
            namesAndValues[i + 1]);
      }
    }
    return m;
  }

  private static boolean matches(HeaderMatcher matcher, Metadata headers) {
    return RouteMatcher.matchesHeader(matcher, RouteMatcher.headerValue(headers, matcher.name()));
  }

  @Test
  void headerMatchersOfEveryKind() {
    Metadata h = headers("x-a", "Hello", "x-n", "42", "x-multi", "one", "x-multi", "two");
    assertThat(matches(header("x-a", HeaderMatcher.Kind.EXACT, "Hello"), h)).isTrue();
    assertThat(matches(header("x-a", HeaderMatcher.Kind.EXACT, "hello"), h)).isFalse();
    assertThat(matches(header("x-a", HeaderMatcher.Kind.EXACT, "hello", false, true), h)).isTrue();
    assertThat(matches(header("X-A", HeaderMatcher.Kind.EXACT, "Hello"), h)).isTrue();
    assertThat(matches(header("x-a", HeaderMatcher.Kind.PREFIX, "He"), h)).isTrue();
    assertThat(matches(header("x-a", HeaderMatcher.Kind.PREFIX, "he"), h)).isFalse();
    assertThat(matches(header("x-a", HeaderMatcher.Kind.SUFFIX, "llo"), h)).isTrue();
    assertThat(matches(header("x-a", HeaderMatcher.Kind.SUFFIX, "LLO", false, true), h)).isTrue();
    assertThat(matches(header("x-a", HeaderMatcher.Kind.CONTAINS, "ell"), h)).isTrue();
    assertThat(matches(header("x-a", HeaderMatcher.Kind.CONTAINS, "xyz"), h)).isFalse();
    assertThat(matches(header("x-a", HeaderMatcher.Kind.SAFE_REGEX, "H.*o"), h)).isTrue();
    assertThat(matches(header("x-a", HeaderMatcher.Kind.SAFE_REGEX, "H.l"), h)).isFalse();
    assertThat(matches(range("x-n", 40, 43), h)).isTrue();
    assertThat(matches(range("x-n", 43, 50), h)).isFalse();
    assertThat(matches(range("x-n", 0, 42), h)).isFalse(); // the end is exclusive
    assertThat(matches(range("x-a", 0, 100), h)).isFalse(); // not a number
    // Repeated headers are joined with ",".
    assertThat(matches(header("x-multi", HeaderMatcher.Kind.EXACT, "one,two"), h)).isTrue();
  }

  @Test
  void inversionPresenceAndAbsentHeaders() {
    Metadata h = headers("x-a", "v");
    assertThat(matches(header("x-a", HeaderMatcher.Kind.EXACT, "v", true, false), h)).isFalse();
    assertThat(matches(header("x-a", HeaderMatcher.Kind.EXACT, "w", true, false), h)).isTrue();
    // An absent header fails every matcher but present, even inverted (A28).
    assertThat(matches(header("x-b", HeaderMatcher.Kind.EXACT, "w", true, false), h)).isFalse();
    assertThat(matches(header("x-b", HeaderMatcher.Kind.EXACT, "w"), h)).isFalse();
    assertThat(matches(present("x-a", true, false), h)).isTrue();
    assertThat(matches(present("x-b", true, false), h)).isFalse();
    assertThat(matches(present("x-b", false, false), h)).isTrue();
    assertThat(matches(present("x-a", false, false), h)).isFalse();
    assertThat(matches(present("x-a", true, true), h)).isFalse();
    assertThat(matches(present("x-b", true, true), h)).isTrue();
  }

  @Test
  void binaryPseudoAndContentTypeHeaders() {
    Metadata h = headers("x-data-bin", "abc");
    // -bin headers look absent, as A28 says.
    assertThat(matches(present("x-data-bin", true, false), h)).isFalse();
    assertThat(matches(header("x-data-bin", HeaderMatcher.Kind.CONTAINS, ""), h)).isFalse();
    // Pseudo-headers are not request metadata: absent.
    assertThat(matches(present(":path", true, false), h)).isFalse();
    assertThat(matches(present(":path", false, false), h)).isTrue();
    // content-type is application/grpc whatever the metadata holds.
    assertThat(matches(header("content-type", HeaderMatcher.Kind.EXACT, "application/grpc"), h))
        .isTrue();
  }

  @Test
  void runtimeFractionDrawsPerCallFromTheRandom() {
    RouteMatch match = new RouteMatch(prefix("", true), List.of(), 250_000); // 25%
    assertThat(RouteMatcher.matches(match, "/s/m", new Metadata(), bound -> 249_999)).isTrue();
    assertThat(RouteMatcher.matches(match, "/s/m", new Metadata(), bound -> 250_000)).isFalse();
    Random seeded = new Random(42);
    int hits = 0;
    for (int i = 0; i < 10_000; i++) {
      if (RouteMatcher.matches(match, "/s/m", new Metadata(), b -> seeded.nextLong(b))) {
        hits++;
      }
    }
    assertThat(hits).isBetween(2_300, 2_700);
    RouteMatch zero = new RouteMatch(prefix("", true), List.of(), 0);
    assertThat(RouteMatcher.matches(zero, "/s/m", new Metadata(), bound -> 0)).isFalse();
  }

  // ---- the selector

  /** Counts references as the resolver does, without its publishing. */
  static final class FakeRefs implements ClusterRefs {
    final Map<String, Integer> refs = new HashMap<>();
    final List<String> released = new ArrayList<>();
    RoutingConfigSelector latest;

    @Override
    public synchronized boolean retain(String cluster) {
      Integer n = refs.get(cluster);
      if (n == null || n == 0) {
        return false;
      }
      refs.put(cluster, n + 1);
      return true;
    }

    @Override
    public synchronized void release(String cluster) {
      refs.merge(cluster, -1, Integer::sum);
      released.add(cluster);
    }

    @Override
    public RoutingConfigSelector latest() {
      return latest;
    }
  }

  static final MethodDescriptor<byte[], byte[]> A_CALL = method("svc.A/Call");
  private static final MethodDescriptor<byte[], byte[]> B_CALL = method("svc.B/Call");

  private static MethodDescriptor<byte[], byte[]> method(String name) {
    return MethodDescriptor.newBuilder(TestMarshallers.bytes(), TestMarshallers.bytes())
        .setFullMethodName(name)
        .setType(MethodDescriptor.MethodType.UNARY)
        .build();
  }

  static LoadBalancer.PickSubchannelArgs args(MethodDescriptor<?, ?> method, Metadata headers) {
    return new LoadBalancer.PickSubchannelArgs() {
      @Override
      public CallOptions getCallOptions() {
        return CallOptions.DEFAULT;
      }

      @Override
      public Metadata getHeaders() {
        return headers;
      }

      @Override
      public MethodDescriptor<?, ?> getMethodDescriptor() {
        return method;
      }
    };
  }

  private static RouteAction cluster(String name) {
    return new RouteAction(name, List.of(), null, null, null);
  }

  private static Route route(RouteMatch match, RouteAction action) {
    return new Route(match, action);
  }

  private static RoutingConfigSelector selector(FakeRefs refs, XdsRandom random, Route... routes) {
    List<CompiledRoute> compiled = new ArrayList<>();
    Set<String> clusters = new LinkedHashSet<>();
    for (Route r : routes) {
      compiled.add(
          new CompiledRoute(
              r,
              r.action() == null ? null : "config-of-" + r.action(),
              r.action() == null
                  ? Status.UNAVAILABLE.withDescription("not a forwarding route")
                  : null));
      if (r.action() != null) {
        if (r.action().cluster() != null) {
          clusters.add(r.action().cluster());
        }
        r.action().weightedClusters().forEach(w -> clusters.add(w.name()));
      }
    }
    clusters.forEach(c -> refs.refs.put(c, 1));
    RoutingConfigSelector s =
        new RoutingConfigSelector(compiled, clusters, "virtual host \"vh\"", null, refs, random);
    refs.latest = s;
    return s;
  }

  /** The cluster the interceptor of {@code result} puts into the call's options. */
  private static String selectedCluster(ConfigSelector.Result result) {
    AtomicReference<String> seen = new AtomicReference<>();
    Channel next =
        new Channel() {
          @Override
          public <ReqT, RespT> ClientCall<ReqT, RespT> newCall(
              MethodDescriptor<ReqT, RespT> method, CallOptions callOptions) {
            seen.set(callOptions.getOption(XdsAttributes.CLUSTER_SELECTION));
            return new NoopCall<>();
          }

          @Override
          public String authority() {
            return "svc";
          }
        };
    result.getInterceptor().interceptCall(A_CALL, CallOptions.DEFAULT, next);
    return seen.get();
  }

  @Test
  void firstMatchingRouteWinsAndTheInterceptorSetsTheCluster() {
    FakeRefs refs = new FakeRefs();
    Route headerRoute =
        route(
            new RouteMatch(
                prefix("", true), List.of(header("x-route", HeaderMatcher.Kind.EXACT, "b")), null),
            cluster("B"));
    Route aRoute = route(new RouteMatch(prefix("/svc.A/", true), List.of(), null), cluster("A"));
    Route rest = route(new RouteMatch(prefix("/svc.", true), List.of(), null), cluster("C"));
    RoutingConfigSelector s = selector(refs, XdsRandom.DEFAULT, headerRoute, aRoute, rest);

    ConfigSelector.Result a = s.select(args(A_CALL, new Metadata()));
    assertThat(a.getError()).isNull();
    assertThat(a.getMethodConfig()).isEqualTo("config-of-" + aRoute.action());
    assertThat(selectedCluster(a)).isEqualTo("cluster:A");
    assertThat(selectedCluster(s.select(args(A_CALL, headers("x-route", "b")))))
        .isEqualTo("cluster:B");
    assertThat(selectedCluster(s.select(args(B_CALL, new Metadata())))).isEqualTo("cluster:C");
    // Each selection holds a reference on its cluster.
    assertThat(refs.refs).containsEntry("A", 2).containsEntry("B", 2).containsEntry("C", 2);
  }

  @Test
  void noRouteAndNonForwardingRoutesFailUnavailable() {
    FakeRefs refs = new FakeRefs();
    Route redirect = route(new RouteMatch(path("/svc.B/Call", true), List.of(), null), null);
    Route aRoute = route(new RouteMatch(prefix("/svc.A/", true), List.of(), null), cluster("A"));
    RoutingConfigSelector s = selector(refs, XdsRandom.DEFAULT, redirect, aRoute);
    ConfigSelector.Result none = s.select(args(method("other.S/M"), new Metadata()));
    assertThat(none.getError().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(none.getError().getDescription())
        .isEqualTo("no xDS route matched /other.S/M in virtual host \"vh\"");
    ConfigSelector.Result nonForwarding = s.select(args(B_CALL, new Metadata()));
    assertThat(nonForwarding.getError().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(nonForwarding.getError().getDescription()).contains("not a forwarding route");
    ConfigSelector.Result failing =
        RoutingConfigSelector.failing(
                Status.UNAVAILABLE.withDescription("xDS Listener \"svc\" does not exist"), refs)
            .select(args(A_CALL, new Metadata()));
    assertThat(failing.getError().getDescription())
        .isEqualTo("xDS Listener \"svc\" does not exist");
  }

  @Test
  void weightedClustersSplitByWeight() {
    FakeRefs refs = new FakeRefs();
    RouteAction split =
        new RouteAction(
            null,
            List.of(
                new ClusterWeight("A", 70), new ClusterWeight("B", 20), new ClusterWeight("C", 10)),
            null,
            null,
            null);
    Random seeded = new Random(7);
    RoutingConfigSelector s =
        selector(
            refs,
            b -> seeded.nextLong(b),
            route(new RouteMatch(prefix("", true), List.of(), null), split));
    Map<String, Integer> counts = new HashMap<>();
    int n = 20_000;
    for (int i = 0; i < n; i++) {
      counts.merge(selectedCluster(s.select(args(A_CALL, new Metadata()))), 1, Integer::sum);
    }
    assertThat(counts.get("cluster:A") / (double) n)
        .isCloseTo(0.70, org.assertj.core.data.Offset.offset(0.015));
    assertThat(counts.get("cluster:B") / (double) n)
        .isCloseTo(0.20, org.assertj.core.data.Offset.offset(0.015));
    assertThat(counts.get("cluster:C") / (double) n)
        .isCloseTo(0.10, org.assertj.core.data.Offset.offset(0.015));
    // The edges of the draw: 0..69 is A, 70..89 B, 90..99 C.
    RoutingConfigSelector fixed69 =
        selector(
            new FakeRefs(),
            b -> 69,
            route(new RouteMatch(prefix("", true), List.of(), null), split));
    assertThat(selectedCluster(fixed69.select(args(A_CALL, new Metadata()))))
        .isEqualTo("cluster:A");
    RoutingConfigSelector fixed70 =
        selector(
            new FakeRefs(),
            b -> 70,
            route(new RouteMatch(prefix("", true), List.of(), null), split));
    assertThat(selectedCluster(fixed70.select(args(A_CALL, new Metadata()))))
        .isEqualTo("cluster:B");
  }

  @Test
  void clusterHeaderNamesAKnownCluster() {
    FakeRefs refs = new FakeRefs();
    Route byHeader =
        route(
            new RouteMatch(prefix("/svc.B/", true), List.of(), null),
            new RouteAction(null, List.of(), "x-cluster", null, null));
    Route aRoute = route(new RouteMatch(prefix("", true), List.of(), null), cluster("A"));
    RoutingConfigSelector s = selector(refs, XdsRandom.DEFAULT, byHeader, aRoute);
    assertThat(selectedCluster(s.select(args(B_CALL, headers("x-cluster", "A")))))
        .isEqualTo("cluster:A");
    ConfigSelector.Result unknown = s.select(args(B_CALL, headers("x-cluster", "Z")));
    assertThat(unknown.getError().getDescription())
        .contains("names cluster \"Z\", which no route of virtual host \"vh\" names");
    assertThat(s.select(args(B_CALL, new Metadata())).getError().getDescription())
        .contains("\"x-cluster\" is not in the request");
  }

  @Test
  void aClusterReleasedUnderTheCallIsChosenAgainWithTheNewestSelector() {
    FakeRefs refs = new FakeRefs();
    RoutingConfigSelector old =
        selector(
            refs,
            XdsRandom.DEFAULT,
            route(new RouteMatch(prefix("", true), List.of(), null), cluster("OLD")));
    RoutingConfigSelector fresh =
        selector(
            refs,
            XdsRandom.DEFAULT,
            route(new RouteMatch(prefix("", true), List.of(), null), cluster("NEW")));
    refs.refs.put("OLD", 0); // the new routes dropped it and no call holds it
    refs.latest = fresh;
    assertThat(selectedCluster(old.select(args(A_CALL, new Metadata())))).isEqualTo("cluster:NEW");
  }

  @Test
  void theInterceptorReleasesOnHeadersOrCloseOnce() {
    FakeRefs refs = new FakeRefs();
    RoutingConfigSelector s =
        selector(
            refs,
            XdsRandom.DEFAULT,
            route(new RouteMatch(prefix("", true), List.of(), null), cluster("A")));
    ConfigSelector.Result result = s.select(args(A_CALL, new Metadata()));
    assertThat(refs.refs).containsEntry("A", 2);
    List<ClientCall.Listener<byte[]>> started = new ArrayList<>();
    Channel next =
        new Channel() {
          @Override
          @SuppressWarnings("unchecked")
          public <ReqT, RespT> ClientCall<ReqT, RespT> newCall(
              MethodDescriptor<ReqT, RespT> method, CallOptions callOptions) {
            return new NoopCall<>() {
              @Override
              public void start(ClientCall.Listener<RespT> listener, Metadata headers) {
                started.add((ClientCall.Listener<byte[]>) listener);
              }
            };
          }

          @Override
          public String authority() {
            return "svc";
          }
        };
    ClientCall<byte[], byte[]> call =
        result.getInterceptor().interceptCall(A_CALL, CallOptions.DEFAULT, next);
    call.start(new ClientCall.Listener<>() {}, new Metadata());
    assertThat(refs.released).isEmpty();
    started.get(0).onHeaders(new Metadata());
    assertThat(refs.released).containsExactly("A");
    started.get(0).onClose(Status.OK, new Metadata());
    assertThat(refs.released).containsExactly("A");
    assertThat(refs.refs).containsEntry("A", 1);
  }

  @Test
  void xdstpNamesArePercentEncodedKeepingSlashes() {
    assertThat(XdsNameResolver.percentEncodePath("svc/a b:c%é"))
        .isEqualTo("svc/a%20b%3Ac%25%C3%A9");
    assertThat(XdsNameResolver.percentEncodePath("Az09-._~")).isEqualTo("Az09-._~");
  }

  // ---- method configs (A31, A44)

  @Test
  void methodConfigsFromTimeoutsAndRetryPolicies() {
    RetryPolicy retry =
        new RetryPolicy(
            Set.of(Status.Code.UNAVAILABLE, Status.Code.CANCELLED),
            3,
            Duration.ofMillis(25),
            Duration.ofMillis(250));
    RouteAction both = new RouteAction("A", List.of(), null, Duration.ofMillis(1500), retry);
    assertThat(MethodConfigs.forRoute(both, Duration.ofSeconds(9)))
        .isEqualTo(
            Map.of(
                "timeout",
                "1.500000000s",
                "retryPolicy",
                Map.of(
                    "maxAttempts",
                    3.0,
                    "initialBackoff",
                    "0.025000000s",
                    "maxBackoff",
                    "0.250000000s",
                    "backoffMultiplier",
                    2.0,
                    "retryableStatusCodes",
                    List.of("CANCELLED", "UNAVAILABLE"))));
    // The listener's max_stream_duration is the default; zero means none.
    assertThat(MethodConfigs.forRoute(cluster("A"), Duration.ofSeconds(9)))
        .isEqualTo(Map.of("timeout", "9.000000000s"));
    assertThat(MethodConfigs.forRoute(cluster("A"), null)).isEmpty();
    assertThat(
            MethodConfigs.forRoute(
                new RouteAction("A", List.of(), null, Duration.ZERO, null), Duration.ofSeconds(9)))
        .isEmpty();
    // A policy that retries nothing Tern knows, or allows no retry, is left out.
    RetryPolicy nothing =
        new RetryPolicy(Set.of(), 3, Duration.ofMillis(25), Duration.ofMillis(250));
    assertThat(MethodConfigs.forRoute(new RouteAction("A", List.of(), null, null, nothing), null))
        .isEmpty();
  }

  /** A call that does nothing. */
  static class NoopCall<ReqT, RespT> extends ClientCall<ReqT, RespT> {
    @Override
    public void start(ClientCall.Listener<RespT> listener, Metadata headers) {}

    @Override
    public void request(int numMessages) {}

    @Override
    public void cancel(String message, Throwable cause) {}

    @Override
    public void halfClose() {}

    @Override
    public void sendMessage(ReqT message) {}
  }
}
