package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;

import io.envoyproxy.envoy.config.route.v3.RouteAction;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.type.matcher.v3.RegexMatchAndSubstitute;
import io.envoyproxy.envoy.type.matcher.v3.RegexMatcher;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The hash policies a route keeps (gRFC A42); the NACKs are in ValidationTest. */
class RouteHashPolicyValidationTest {
  private static List<XdsRouteConfig.HashPolicy> policies(RouteAction.HashPolicy... policies)
      throws XdsResourceException {
    RouteAction.Builder action = RouteAction.newBuilder().setCluster("c");
    for (RouteAction.HashPolicy policy : policies) {
      action.addHashPolicy(policy);
    }
    RouteConfiguration routes =
        Resources.routes("r1", Resources.route("", "c").setRoute(action).build());
    return RouteValidator.validate(routes)
        .virtualHosts()
        .get(0)
        .routes()
        .get(0)
        .action()
        .hashPolicies();
  }

  private static RouteAction.HashPolicy.Builder header(String name) {
    return RouteAction.HashPolicy.newBuilder()
        .setHeader(RouteAction.HashPolicy.Header.newBuilder().setHeaderName(name));
  }

  @Test
  void headerAndChannelIdPoliciesAreKeptInOrder() throws Exception {
    List<XdsRouteConfig.HashPolicy> kept =
        policies(
            header("X-User").setTerminal(true).build(),
            RouteAction.HashPolicy.newBuilder()
                .setFilterState(
                    RouteAction.HashPolicy.FilterState.newBuilder().setKey("io.grpc.channel_id"))
                .build());
    assertThat(kept).hasSize(2);
    assertThat(kept.get(0).kind()).isEqualTo(XdsRouteConfig.HashPolicy.Kind.HEADER);
    assertThat(kept.get(0).headerName()).isEqualTo("x-user");
    assertThat(kept.get(0).terminal()).isTrue();
    assertThat(kept.get(1).kind()).isEqualTo(XdsRouteConfig.HashPolicy.Kind.CHANNEL_ID);
    assertThat(kept.get(1).terminal()).isFalse();
  }

  @Test
  void regexRewriteBecomesAJavaReplacement() throws Exception {
    XdsRouteConfig.HashPolicy policy =
        policies(
                RouteAction.HashPolicy.newBuilder()
                    .setHeader(
                        RouteAction.HashPolicy.Header.newBuilder()
                            .setHeaderName("session")
                            .setRegexRewrite(
                                RegexMatchAndSubstitute.newBuilder()
                                    .setPattern(
                                        RegexMatcher.newBuilder().setRegex("^(\\w+)-(\\d+)$"))
                                    .setSubstitution("\\2/\\1$")))
                    .build())
            .get(0);
    assertThat(policy.regex().matcher("eu-17").replaceAll(policy.substitution()))
        .isEqualTo("17/eu$");
  }

  @Test
  void policiesGrpcDoesNotUseAreLeftOut() throws Exception {
    assertThat(
            policies(
                header("token-bin").build(),
                RouteAction.HashPolicy.newBuilder()
                    .setCookie(RouteAction.HashPolicy.Cookie.newBuilder().setName("c"))
                    .build(),
                RouteAction.HashPolicy.newBuilder()
                    .setFilterState(RouteAction.HashPolicy.FilterState.newBuilder().setKey("other"))
                    .build(),
                RouteAction.HashPolicy.newBuilder()
                    .setConnectionProperties(
                        RouteAction.HashPolicy.ConnectionProperties.newBuilder().setSourceIp(true))
                    .build()))
        .isEmpty();
  }
}
