package dev.tern.xds;

import dev.tern.Status;
import io.envoyproxy.envoy.config.route.v3.HeaderMatcher;
import io.envoyproxy.envoy.config.route.v3.Route;
import io.envoyproxy.envoy.config.route.v3.RouteAction;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.config.route.v3.RouteMatch;
import io.envoyproxy.envoy.config.route.v3.VirtualHost;
import io.envoyproxy.envoy.config.route.v3.WeightedCluster;
import io.envoyproxy.envoy.type.matcher.v3.StringMatcher;
import io.envoyproxy.envoy.type.v3.FractionalPercent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Validates a RouteConfiguration (A28 routing, A31 timeouts, A44 retries, A42 hash policies) into
 * an {@link XdsRouteConfig}. Stateless.
 */
final class RouteValidator {
  private static final Duration DEFAULT_RETRY_BACKOFF = Duration.ofMillis(25);

  private RouteValidator() {}

  static XdsRouteConfig validate(RouteConfiguration config) throws XdsResourceException {
    return validate(config, "RouteConfiguration \"" + config.getName() + "\": ");
  }

  /** Validates with {@code prefix} before every field path (for a listener's inline routes). */
  static XdsRouteConfig validate(RouteConfiguration config, String prefix)
      throws XdsResourceException {
    List<XdsRouteConfig.VirtualHost> hosts = new ArrayList<>();
    for (int h = 0; h < config.getVirtualHostsCount(); h++) {
      VirtualHost host = config.getVirtualHosts(h);
      String hostField = prefix + "virtual_hosts[" + h + "]";
      List<XdsRouteConfig.Route> routes = new ArrayList<>();
      for (int r = 0; r < host.getRoutesCount(); r++) {
        XdsRouteConfig.Route route = route(host.getRoutes(r), hostField + ".routes[" + r + "]");
        if (route != null) {
          routes.add(route);
        }
      }
      hosts.add(
          new XdsRouteConfig.VirtualHost(
              host.getName(),
              host.getDomainsList(),
              routes,
              HttpFilterConfigs.overrides(host.getTypedPerFilterConfigMap(), hostField)));
    }
    return new XdsRouteConfig(config.getName(), hosts);
  }

  /** The route, or null when it is one a gRPC client skips (A28). */
  private static XdsRouteConfig.Route route(Route route, String field) throws XdsResourceException {
    RouteMatch match = route.getMatch();
    if (match.getQueryParametersCount() > 0) {
      return null; // A28: routes with query parameter matchers are ignored
    }
    boolean caseSensitive = !match.hasCaseSensitive() || match.getCaseSensitive().getValue();
    XdsRouteConfig.PathMatcher path;
    switch (match.getPathSpecifierCase()) {
      case PREFIX ->
          path =
              new XdsRouteConfig.PathMatcher(
                  XdsRouteConfig.PathMatcher.Kind.PREFIX, match.getPrefix(), null, caseSensitive);
      case PATH ->
          path =
              new XdsRouteConfig.PathMatcher(
                  XdsRouteConfig.PathMatcher.Kind.PATH, match.getPath(), null, caseSensitive);
      case SAFE_REGEX -> {
        String regex = match.getSafeRegex().getRegex();
        path =
            new XdsRouteConfig.PathMatcher(
                XdsRouteConfig.PathMatcher.Kind.SAFE_REGEX,
                regex,
                compile(regex, field + ".match.safe_regex"),
                caseSensitive);
      }
      case PATHSPECIFIER_NOT_SET ->
          throw new XdsResourceException(field + ".match: no path specifier");
      default -> {
        return null; // connect_matcher and the path-template matchers do not apply to gRPC
      }
    }
    List<XdsRouteConfig.HeaderMatcher> headers = new ArrayList<>();
    for (int i = 0; i < match.getHeadersCount(); i++) {
      headers.add(header(match.getHeaders(i), field + ".match.headers[" + i + "]"));
    }
    Integer fraction = null;
    if (match.hasRuntimeFraction()) {
      fraction = perMillion(match.getRuntimeFraction().getDefaultValue());
    }
    XdsRouteConfig.RouteMatch routeMatch = new XdsRouteConfig.RouteMatch(path, headers, fraction);
    Map<String, Object> overrides =
        HttpFilterConfigs.overrides(route.getTypedPerFilterConfigMap(), field);
    if (route.getActionCase() != Route.ActionCase.ROUTE) {
      boolean nonForwarding = route.getActionCase() == Route.ActionCase.NON_FORWARDING_ACTION;
      return new XdsRouteConfig.Route(routeMatch, null, overrides, nonForwarding);
    }
    return new XdsRouteConfig.Route(
        routeMatch, action(route.getRoute(), field + ".route"), overrides);
  }

  private static XdsRouteConfig.RouteAction action(RouteAction action, String field)
      throws XdsResourceException {
    String cluster = null;
    List<XdsRouteConfig.ClusterWeight> weighted = new ArrayList<>();
    String clusterHeader = null;
    switch (action.getClusterSpecifierCase()) {
      case CLUSTER -> {
        cluster = action.getCluster();
        if (cluster.isEmpty()) {
          throw new XdsResourceException(field + ".cluster: empty");
        }
      }
      case WEIGHTED_CLUSTERS -> {
        WeightedCluster wc = action.getWeightedClusters();
        long total = 0;
        for (int i = 0; i < wc.getClustersCount(); i++) {
          WeightedCluster.ClusterWeight cw = wc.getClusters(i);
          String cwField = field + ".weighted_clusters.clusters[" + i + "]";
          if (cw.getName().isEmpty()) {
            throw new XdsResourceException(cwField + ".name: empty");
          }
          long weight = cw.hasWeight() ? Integer.toUnsignedLong(cw.getWeight().getValue()) : 0;
          total += weight;
          if (weight > 0) {
            weighted.add(
                new XdsRouteConfig.ClusterWeight(
                    cw.getName(),
                    weight,
                    HttpFilterConfigs.overrides(cw.getTypedPerFilterConfigMap(), cwField)));
          }
        }
        if (total == 0) {
          throw new XdsResourceException(field + ".weighted_clusters: the weights sum to 0");
        }
        if (total > 0xFFFF_FFFFL) {
          throw new XdsResourceException(
              field + ".weighted_clusters: the weights sum to more than 2^32-1 (" + total + ")");
        }
      }
      case CLUSTER_HEADER -> {
        clusterHeader = action.getClusterHeader();
        if (clusterHeader.isEmpty()) {
          throw new XdsResourceException(field + ".cluster_header: empty");
        }
      }
      case CLUSTERSPECIFIER_NOT_SET ->
          throw new XdsResourceException(field + ": no cluster specifier");
      default ->
          throw new XdsResourceException(
              field
                  + ": cluster specifier "
                  + action.getClusterSpecifierCase().name().toLowerCase(Locale.ROOT)
                  + " is not supported");
    }
    Duration timeout = null;
    if (action.hasMaxStreamDuration()) {
      RouteAction.MaxStreamDuration max = action.getMaxStreamDuration();
      if (max.hasGrpcTimeoutHeaderMax()) {
        timeout =
            Durations.of(
                max.getGrpcTimeoutHeaderMax(),
                field + ".max_stream_duration.grpc_timeout_header_max");
      } else if (max.hasMaxStreamDuration()) {
        timeout =
            Durations.of(
                max.getMaxStreamDuration(), field + ".max_stream_duration.max_stream_duration");
      }
    }
    XdsRouteConfig.RetryPolicy retry = null;
    if (action.hasRetryPolicy()) {
      retry = retryPolicy(action.getRetryPolicy(), field + ".retry_policy");
    }
    return new XdsRouteConfig.RouteAction(
        cluster, weighted, clusterHeader, timeout, retry, hashPolicies(action, field));
  }

  /**
   * The hash policies gRPC uses (A42): {@code header} (not a binary one, which has no text to hash)
   * and {@code filter_state} with key {@code io.grpc.channel_id}; others are ignored.
   */
  private static List<XdsRouteConfig.HashPolicy> hashPolicies(RouteAction action, String field)
      throws XdsResourceException {
    List<XdsRouteConfig.HashPolicy> policies = new ArrayList<>();
    for (int i = 0; i < action.getHashPolicyCount(); i++) {
      RouteAction.HashPolicy policy = action.getHashPolicy(i);
      String policyField = field + ".hash_policy[" + i + "]";
      switch (policy.getPolicySpecifierCase()) {
        case HEADER -> {
          RouteAction.HashPolicy.Header header = policy.getHeader();
          String name = header.getHeaderName().toLowerCase(Locale.ROOT);
          if (name.isEmpty()) {
            throw new XdsResourceException(policyField + ".header.header_name: empty");
          }
          Pattern regex = null;
          String substitution = null;
          if (header.hasRegexRewrite()) {
            String pattern = header.getRegexRewrite().getPattern().getRegex();
            regex = compile(pattern, policyField + ".header.regex_rewrite.pattern");
            substitution = javaReplacement(header.getRegexRewrite().getSubstitution());
          }
          if (!name.endsWith("-bin")) {
            policies.add(
                new XdsRouteConfig.HashPolicy(
                    XdsRouteConfig.HashPolicy.Kind.HEADER,
                    name,
                    regex,
                    substitution,
                    policy.getTerminal()));
          }
        }
        case FILTER_STATE -> {
          if (policy.getFilterState().getKey().equals("io.grpc.channel_id")) {
            policies.add(
                new XdsRouteConfig.HashPolicy(
                    XdsRouteConfig.HashPolicy.Kind.CHANNEL_ID,
                    null,
                    null,
                    null,
                    policy.getTerminal()));
          }
        }
        default -> {} // A42: cookie, connection properties, query parameters are not for gRPC
      }
    }
    return policies;
  }

  /**
   * RE2's substitution (a backslash and a digit for a group) as a {@link java.util.regex.Matcher}
   * one.
   */
  private static String javaReplacement(String substitution) {
    StringBuilder out = new StringBuilder(substitution.length());
    for (int i = 0; i < substitution.length(); i++) {
      char c = substitution.charAt(i);
      if (c == '\\' && i + 1 < substitution.length()) {
        char next = substitution.charAt(++i);
        out.append(Character.isDigit(next) ? "$" : "\\").append(next);
      } else if (c == '$' || c == '\\') {
        out.append('\\').append(c);
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  private static XdsRouteConfig.RetryPolicy retryPolicy(
      io.envoyproxy.envoy.config.route.v3.RetryPolicy policy, String field)
      throws XdsResourceException {
    Set<Status.Code> codes = EnumSet.noneOf(Status.Code.class);
    for (String on : policy.getRetryOn().split(",", -1)) {
      switch (on.trim()) {
        case "cancelled" -> codes.add(Status.Code.CANCELLED);
        case "deadline-exceeded" -> codes.add(Status.Code.DEADLINE_EXCEEDED);
        case "internal" -> codes.add(Status.Code.INTERNAL);
        case "resource-exhausted" -> codes.add(Status.Code.RESOURCE_EXHAUSTED);
        case "unavailable" -> codes.add(Status.Code.UNAVAILABLE);
        default -> {} // A44: other conditions are ignored
      }
    }
    int retries = policy.hasNumRetries() ? policy.getNumRetries().getValue() : 1;
    if (retries < 0) {
      throw new XdsResourceException(field + ".num_retries: out of range");
    }
    Duration initial = DEFAULT_RETRY_BACKOFF;
    Duration max = DEFAULT_RETRY_BACKOFF.multipliedBy(10);
    if (policy.hasRetryBackOff()) {
      var backOff = policy.getRetryBackOff();
      if (!backOff.hasBaseInterval()) {
        throw new XdsResourceException(field + ".retry_back_off.base_interval: missing");
      }
      initial = Durations.of(backOff.getBaseInterval(), field + ".retry_back_off.base_interval");
      if (initial.isZero()) {
        throw new XdsResourceException(field + ".retry_back_off.base_interval: must be positive");
      }
      max =
          backOff.hasMaxInterval()
              ? Durations.of(backOff.getMaxInterval(), field + ".retry_back_off.max_interval")
              : initial.multipliedBy(10);
      if (max.compareTo(initial) < 0) {
        throw new XdsResourceException(
            field + ".retry_back_off.max_interval: less than base_interval");
      }
    }
    return new XdsRouteConfig.RetryPolicy(codes, Math.addExact(retries, 1), initial, max);
  }

  @SuppressWarnings("deprecation") // the *_match fields A28 still supports
  private static XdsRouteConfig.HeaderMatcher header(HeaderMatcher h, String field)
      throws XdsResourceException {
    String name = h.getName();
    if (name.isEmpty()) {
      throw new XdsResourceException(field + ".name: empty");
    }
    boolean invert = h.getInvertMatch();
    XdsRouteConfig.HeaderMatcher.Kind kind;
    String value = "";
    Pattern regex = null;
    long start = 0;
    long end = 0;
    boolean present = false;
    boolean ignoreCase = false;
    switch (h.getHeaderMatchSpecifierCase()) {
      case EXACT_MATCH -> {
        kind = XdsRouteConfig.HeaderMatcher.Kind.EXACT;
        value = h.getExactMatch();
      }
      case SAFE_REGEX_MATCH -> {
        kind = XdsRouteConfig.HeaderMatcher.Kind.SAFE_REGEX;
        value = h.getSafeRegexMatch().getRegex();
        regex = compile(value, field + ".safe_regex_match");
      }
      case RANGE_MATCH -> {
        kind = XdsRouteConfig.HeaderMatcher.Kind.RANGE;
        start = h.getRangeMatch().getStart();
        end = h.getRangeMatch().getEnd();
        if (start > end) {
          throw new XdsResourceException(field + ".range_match: start " + start + " > end " + end);
        }
      }
      case PRESENT_MATCH -> {
        kind = XdsRouteConfig.HeaderMatcher.Kind.PRESENT;
        present = h.getPresentMatch();
      }
      case PREFIX_MATCH -> {
        kind = XdsRouteConfig.HeaderMatcher.Kind.PREFIX;
        value = h.getPrefixMatch();
      }
      case SUFFIX_MATCH -> {
        kind = XdsRouteConfig.HeaderMatcher.Kind.SUFFIX;
        value = h.getSuffixMatch();
      }
      case CONTAINS_MATCH -> {
        kind = XdsRouteConfig.HeaderMatcher.Kind.CONTAINS;
        value = h.getContainsMatch();
      }
      case STRING_MATCH -> {
        StringMatcher s = h.getStringMatch();
        ignoreCase = s.getIgnoreCase();
        switch (s.getMatchPatternCase()) {
          case EXACT -> {
            kind = XdsRouteConfig.HeaderMatcher.Kind.EXACT;
            value = s.getExact();
          }
          case PREFIX -> {
            kind = XdsRouteConfig.HeaderMatcher.Kind.PREFIX;
            value = s.getPrefix();
          }
          case SUFFIX -> {
            kind = XdsRouteConfig.HeaderMatcher.Kind.SUFFIX;
            value = s.getSuffix();
          }
          case CONTAINS -> {
            kind = XdsRouteConfig.HeaderMatcher.Kind.CONTAINS;
            value = s.getContains();
          }
          case SAFE_REGEX -> {
            kind = XdsRouteConfig.HeaderMatcher.Kind.SAFE_REGEX;
            value = s.getSafeRegex().getRegex();
            regex = compile(value, field + ".string_match.safe_regex");
          }
          default ->
              throw new XdsResourceException(
                  field + ".string_match: " + s.getMatchPatternCase() + " is not supported");
        }
      }
      default -> throw new XdsResourceException(field + ": no header match specifier");
    }
    return new XdsRouteConfig.HeaderMatcher(
        name, kind, value, regex, start, end, present, invert, ignoreCase);
  }

  static Pattern compile(String regex, String field) throws XdsResourceException {
    try {
      return Pattern.compile(regex);
    } catch (PatternSyntaxException e) {
      throw new XdsResourceException(
          field + ": invalid regex \"" + regex + "\": " + e.getDescription());
    }
  }

  /** A FractionalPercent in parts per million, at most a million. */
  static int perMillion(FractionalPercent fraction) {
    long numerator = Integer.toUnsignedLong(fraction.getNumerator());
    long scaled =
        switch (fraction.getDenominator()) {
          case HUNDRED -> numerator * 10_000;
          case TEN_THOUSAND -> numerator * 100;
          default -> numerator;
        };
    return (int) Math.min(scaled, 1_000_000);
  }
}
