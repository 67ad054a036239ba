package dev.tern.xds;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A validated RouteConfiguration (A28): virtual hosts with their domains and routes, in the control
 * plane's order. Routes a gRPC client cannot use (query-parameter matchers, A28) are left out here
 * rather than NACKed. Immutable (a {@link Pattern} is immutable too).
 */
public record XdsRouteConfig(String name, List<VirtualHost> virtualHosts) {
  public XdsRouteConfig {
    Objects.requireNonNull(name, "name");
    virtualHosts = List.copyOf(virtualHosts);
  }

  /**
   * A virtual host: the domains it serves and its routes, first match wins.
   *
   * @param filterOverrides its {@code typed_per_filter_config}: HTTP filter name to parsed config,
   *     opaque outside tern-xds (A39)
   */
  public record VirtualHost(
      String name, List<String> domains, List<Route> routes, Map<String, Object> filterOverrides) {
    public VirtualHost {
      Objects.requireNonNull(name, "name");
      domains = List.copyOf(domains);
      routes = List.copyOf(routes);
      filterOverrides = Map.copyOf(filterOverrides);
    }

    /** A virtual host without filter overrides. */
    public VirtualHost(String name, List<String> domains, List<Route> routes) {
      this(name, domains, routes, Map.of());
    }
  }

  /**
   * A route: when it matches and where calls go.
   *
   * @param action where calls go, or null for a route whose action is not {@code route} (a
   *     redirect, a direct response, a non-forwarding action): calls that match it fail (A28)
   * @param filterOverrides its {@code typed_per_filter_config} (see {@link VirtualHost})
   * @param nonForwarding whether its action is {@code non_forwarding_action}, the one action a
   *     server's route may have (A36)
   */
  public record Route(
      RouteMatch match,
      RouteAction action,
      Map<String, Object> filterOverrides,
      boolean nonForwarding) {
    public Route {
      Objects.requireNonNull(match, "match");
      filterOverrides = Map.copyOf(filterOverrides);
      if (nonForwarding && action != null) {
        throw new IllegalArgumentException("a non-forwarding route has no route action");
      }
    }

    /** A forwarding route with filter overrides. */
    public Route(RouteMatch match, RouteAction action, Map<String, Object> filterOverrides) {
      this(match, action, filterOverrides, false);
    }

    /** A route without filter overrides. */
    public Route(RouteMatch match, RouteAction action, boolean nonForwarding) {
      this(match, action, Map.of(), nonForwarding);
    }

    /** A route whose action is {@code route} ({@code action} set) or another forwarding one. */
    public Route(RouteMatch match, RouteAction action) {
      this(match, action, Map.of(), false);
    }
  }

  /**
   * What a route matches.
   *
   * @param fractionPerMillion {@code runtime_fraction}'s default value in parts per million, or
   *     null when the route has none
   */
  public record RouteMatch(
      PathMatcher path, List<HeaderMatcher> headers, Integer fractionPerMillion) {
    public RouteMatch {
      Objects.requireNonNull(path, "path");
      headers = List.copyOf(headers);
    }
  }

  /** How a route matches the path (the full method name, {@code /service/method}). */
  public record PathMatcher(Kind kind, String value, Pattern regex, boolean caseSensitive) {
    /** Which of the path specifiers the route has. */
    public enum Kind {
      PREFIX,
      PATH,
      SAFE_REGEX
    }

    public PathMatcher {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(value, "value");
      if ((kind == Kind.SAFE_REGEX) != (regex != null)) {
        throw new IllegalArgumentException("a regex exactly for SAFE_REGEX");
      }
    }
  }

  /**
   * A header matcher.
   *
   * @param value the string to compare ({@code EXACT}, {@code PREFIX}, {@code SUFFIX}, {@code
   *     CONTAINS}, or the regex's text), or empty
   * @param regex the compiled regex of {@code SAFE_REGEX}, else null
   * @param rangeStart {@code RANGE}'s inclusive start, else 0
   * @param rangeEnd {@code RANGE}'s exclusive end, else 0
   * @param present {@code PRESENT}'s value, else false
   */
  public record HeaderMatcher(
      String name,
      Kind kind,
      String value,
      Pattern regex,
      long rangeStart,
      long rangeEnd,
      boolean present,
      boolean invert,
      boolean ignoreCase) {
    /** Which of the header match specifiers it has. */
    public enum Kind {
      EXACT,
      SAFE_REGEX,
      RANGE,
      PRESENT,
      PREFIX,
      SUFFIX,
      CONTAINS
    }

    public HeaderMatcher {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(value, "value");
    }
  }

  /**
   * Where a route sends calls: exactly one of {@code cluster}, {@code weightedClusters} (not empty)
   * and {@code clusterHeader}.
   *
   * @param timeout {@code max_stream_duration}'s {@code grpc_timeout_header_max} or else its {@code
   *     max_stream_duration}, or null (A31)
   * @param retryPolicy the route's retry policy, or null (A44)
   * @param hashPolicies the route's {@code hash_policy} entries gRPC uses, in order (A42)
   */
  public record RouteAction(
      String cluster,
      List<ClusterWeight> weightedClusters,
      String clusterHeader,
      Duration timeout,
      RetryPolicy retryPolicy,
      List<HashPolicy> hashPolicies) {
    /** An action without hash policies. */
    public RouteAction(
        String cluster,
        List<ClusterWeight> weightedClusters,
        String clusterHeader,
        Duration timeout,
        RetryPolicy retryPolicy) {
      this(cluster, weightedClusters, clusterHeader, timeout, retryPolicy, List.of());
    }

    public RouteAction {
      weightedClusters = List.copyOf(weightedClusters);
      hashPolicies = List.copyOf(hashPolicies);
      int set =
          (cluster != null ? 1 : 0)
              + (weightedClusters.isEmpty() ? 0 : 1)
              + (clusterHeader != null ? 1 : 0);
      if (set != 1) {
        throw new IllegalArgumentException(
            "exactly one of cluster, weightedClusters and clusterHeader");
      }
    }
  }

  /**
   * One of a route's {@code hash_policy} entries that gRPC uses (A42): a request header's value
   * (after an optional regex rewrite), or the channel's id (filter state {@code
   * io.grpc.channel_id}).
   *
   * @param headerName for {@code HEADER}, the header's name (lower case), else null
   * @param regex for {@code HEADER}, {@code regex_rewrite}'s pattern, or null
   * @param substitution {@code regex_rewrite}'s substitution, or null without a regex
   * @param terminal stop at this policy when a hash has been computed by then
   */
  public record HashPolicy(
      Kind kind, String headerName, Pattern regex, String substitution, boolean terminal) {
    /** What the policy hashes. */
    public enum Kind {
      HEADER,
      CHANNEL_ID
    }

    public HashPolicy {
      Objects.requireNonNull(kind, "kind");
      if ((kind == Kind.HEADER) != (headerName != null)) {
        throw new IllegalArgumentException("a header name exactly for HEADER");
      }
      if ((regex == null) != (substitution == null)) {
        throw new IllegalArgumentException("a substitution exactly with a regex");
      }
    }
  }

  /**
   * A cluster of {@code weighted_clusters} and its weight.
   *
   * @param filterOverrides its {@code typed_per_filter_config} (see {@link VirtualHost})
   */
  public record ClusterWeight(String name, long weight, Map<String, Object> filterOverrides) {
    public ClusterWeight {
      Objects.requireNonNull(name, "name");
      filterOverrides = Map.copyOf(filterOverrides);
    }

    /** A weighted cluster without filter overrides. */
    public ClusterWeight(String name, long weight) {
      this(name, weight, Map.of());
    }
  }

  /**
   * A route's retry policy (A44).
   *
   * @param retryOn the gRPC status codes of {@code retry_on} that Tern retries (other entries are
   *     ignored)
   * @param maxAttempts {@code num_retries} + 1
   */
  public record RetryPolicy(
      Set<dev.tern.Status.Code> retryOn,
      int maxAttempts,
      Duration initialBackoff,
      Duration maxBackoff) {
    public RetryPolicy {
      retryOn = Set.copyOf(retryOn);
      Objects.requireNonNull(initialBackoff, "initialBackoff");
      Objects.requireNonNull(maxBackoff, "maxBackoff");
    }
  }
}
