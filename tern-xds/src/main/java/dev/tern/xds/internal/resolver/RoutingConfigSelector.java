package dev.tern.xds.internal.resolver;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.ClientInterceptor;
import dev.tern.ConfigSelector;
import dev.tern.ForwardingClientCall;
import dev.tern.ForwardingClientCallListener;
import dev.tern.LoadBalancer;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.xds.XdsRouteConfig;
import dev.tern.xds.XdsRouteConfig.ClusterWeight;
import dev.tern.xds.XdsRouteConfig.RouteAction;
import dev.tern.xds.internal.XdsAttributes;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The per-call routing of one route configuration (gRFC A28): the first route whose path, headers
 * and runtime fraction match the call decides; its action names the cluster (one, one of {@code
 * weighted_clusters} drawn by weight, or the one a request header names), and its method config
 * (timeout, A31; retry policy, A44), parsed once when the routes arrived, applies. The call's
 * interceptor puts {@code "cluster:<name>"} into its options under {@link
 * XdsAttributes#CLUSTER_SELECTION} for the cluster manager's picker, and holds a reference on the
 * cluster until the call commits (response headers) or closes.
 *
 * <p>A new selector is made for every change of routes; each is immutable and thread-safe.
 */
final class RoutingConfigSelector extends ConfigSelector {
  /**
   * A route with what was prepared for it when the routes arrived.
   *
   * @param hash its hash policies (A42), or null when it has none
   * @param filters its HTTP filters' interceptor (A39), or null when they do nothing
   * @param clusterFilters the same for weighted clusters with filter overrides of their own
   */
  record CompiledRoute(
      XdsRouteConfig.Route route,
      Object methodConfig,
      Status error,
      RouteHash hash,
      ClientInterceptor filters,
      Map<String, ClientInterceptor> clusterFilters) {
    CompiledRoute {
      clusterFilters = clusterFilters.isEmpty() ? Map.of() : new HashMap<>(clusterFilters);
    }

    /** A route without hash policies or filters. */
    CompiledRoute(XdsRouteConfig.Route route, Object methodConfig, Status error) {
      this(route, methodConfig, error, null, null, Map.of());
    }

    /** A route with hash policies and without filters. */
    CompiledRoute(XdsRouteConfig.Route route, Object methodConfig, Status error, RouteHash hash) {
      this(route, methodConfig, error, hash, null, Map.of());
    }

    /** The filters' interceptor of this route's calls to {@code cluster}, or null. */
    ClientInterceptor filtersFor(String cluster) {
      return clusterFilters.isEmpty() || !clusterFilters.containsKey(cluster)
          ? filters
          : clusterFilters.get(cluster);
    }
  }

  /** A selector that fails every call with {@code error} (no listener, no routes, ...). */
  static RoutingConfigSelector failing(Status error, ClusterRefs refs) {
    return new RoutingConfigSelector(List.of(), Set.of(), "", error, refs, XdsRandom.DEFAULT);
  }

  private static final int MAX_RESELECTS = 10;

  /** Before a cluster's name, its cluster-manager child name (the service config's key too). */
  static final String CLUSTER_PREFIX = "cluster:";

  private final List<CompiledRoute> routes;

  /**
   * Every cluster the routes name, to its cluster-manager child name ({@code "cluster:<name>"}).
   */
  private final Map<String, String> selections;

  private final String where;
  private final Status error;
  private final ClusterRefs refs;
  private final XdsRandom random;

  /**
   * @param routes the virtual host's routes, in order
   * @param clusters every cluster the routes name (the ones {@code cluster_header} may choose)
   * @param where the virtual host and route configuration, for error messages
   * @param error when not null, every call fails with it
   */
  RoutingConfigSelector(
      List<CompiledRoute> routes,
      Set<String> clusters,
      String where,
      Status error,
      ClusterRefs refs,
      XdsRandom random) {
    this.routes = List.copyOf(routes);
    Map<String, String> named = new HashMap<>();
    for (String cluster : clusters) {
      named.put(cluster, CLUSTER_PREFIX + cluster);
    }
    this.selections = Map.copyOf(named);
    this.where = where;
    this.error = error;
    this.refs = Objects.requireNonNull(refs, "refs");
    this.random = Objects.requireNonNull(random, "random");
  }

  /** The clusters these routes name. */
  Set<String> clusters() {
    return selections.keySet();
  }

  /** The error every call fails with, or null when the selector routes. */
  Status error() {
    return error;
  }

  @Override
  public Result select(LoadBalancer.PickSubchannelArgs call) {
    RoutingConfigSelector selector = this;
    for (int i = 0; i < MAX_RESELECTS; i++) {
      Choice choice = selector.choose(call);
      if (choice.result != null) {
        return choice.result;
      }
      if (refs.retain(choice.cluster)) {
        RouteHash hash = choice.route.hash();
        return Result.forConfig(
            choice.route.methodConfig(),
            new ClusterInterceptor(
                choice.cluster,
                selection(choice.cluster),
                refs,
                hash == null ? null : hash.hash(call.getHeaders()),
                choice.route.filtersFor(choice.cluster)));
      }
      // The routes changed under this call and the cluster is leaving: choose again.
      selector = refs.latest();
      if (selector == null) {
        break;
      }
    }
    return Result.forError(
        Status.UNAVAILABLE.withDescription("xDS routes kept changing while the call chose one"));
  }

  private record Choice(Result result, CompiledRoute route, String cluster) {}

  private Choice choose(LoadBalancer.PickSubchannelArgs call) {
    if (error != null) {
      return new Choice(Result.forError(error), null, null);
    }
    String path = call.getMethodDescriptor().getPath();
    Metadata headers = call.getHeaders();
    for (CompiledRoute compiled : routes) {
      if (!RouteMatcher.matches(compiled.route().match(), path, headers, random)) {
        continue;
      }
      if (compiled.error() != null) {
        return new Choice(Result.forError(compiled.error()), null, null);
      }
      RouteAction action = compiled.route().action();
      String cluster = chooseCluster(action, headers);
      if (cluster == null) {
        String value = RouteMatcher.headerValue(headers, action.clusterHeader());
        return new Choice(
            Result.forError(
                Status.UNAVAILABLE.withDescription(
                    "xDS route's cluster_header \""
                        + action.clusterHeader()
                        + "\" "
                        + (value == null
                            ? "is not in the request"
                            : "names cluster \""
                                + value
                                + "\", which no route of "
                                + where
                                + " names")
                        + " ("
                        + path
                        + ")")),
            null,
            null);
      }
      return new Choice(null, compiled, cluster);
    }
    return new Choice(
        Result.forError(
            Status.UNAVAILABLE.withDescription("no xDS route matched " + path + " in " + where)),
        null,
        null);
  }

  /** The cluster-manager child name of {@code cluster}, made when the routes arrived. */
  private String selection(String cluster) {
    String selection = selections.get(cluster);
    return selection != null ? selection : CLUSTER_PREFIX + cluster;
  }

  private String chooseCluster(RouteAction action, Metadata headers) {
    if (action.cluster() != null) {
      return action.cluster();
    }
    if (!action.weightedClusters().isEmpty()) {
      long total = 0;
      for (ClusterWeight w : action.weightedClusters()) {
        total += w.weight();
      }
      long r = random.nextLong(total);
      for (ClusterWeight w : action.weightedClusters()) {
        r -= w.weight();
        if (r < 0) {
          return w.name();
        }
      }
      throw new AssertionError("weights changed");
    }
    // cluster_header: only a cluster the routes already name (those are in the service config).
    String value = RouteMatcher.headerValue(headers, action.clusterHeader());
    return value != null && selections.containsKey(value) ? value : null;
  }

  @Override
  public String toString() {
    return error != null
        ? "RoutingConfigSelector{error=" + error + "}"
        : "RoutingConfigSelector{" + where + ", routes=" + routes.size() + "}";
  }

  /**
   * Sets the call's cluster (and its ring-hash hash, when its route computed one) in its options
   * and gives the cluster's reference back once the call has committed (its response headers) or
   * closed.
   */
  static final class ClusterInterceptor implements ClientInterceptor {
    private final String cluster;
    private final String selection;
    private final ClusterRefs refs;
    private final Long hash;
    private final ClientInterceptor filters;

    /**
     * @param hash the call's ring-hash hash, or null
     * @param filters the route's HTTP filters' interceptor, run under this one, or null
     */
    ClusterInterceptor(
        String cluster, String selection, ClusterRefs refs, Long hash, ClientInterceptor filters) {
      this.cluster = cluster;
      this.selection = selection;
      this.refs = refs;
      this.hash = hash;
      this.filters = filters;
    }

    String cluster() {
      return cluster;
    }

    @Override
    public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
        MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
      CallOptions options = callOptions.withOption(XdsAttributes.CLUSTER_SELECTION, selection);
      if (hash != null) {
        options = options.withOption(XdsAttributes.RPC_HASH, hash);
      }
      ClientCall<ReqT, RespT> call =
          filters == null
              ? next.newCall(method, options)
              : filters.interceptCall(method, options, next);
      AtomicBoolean released = new AtomicBoolean();
      Runnable release =
          () -> {
            if (released.compareAndSet(false, true)) {
              refs.release(cluster);
            }
          };
      return new ForwardingClientCall.SimpleForwardingClientCall<>(call) {
        @Override
        public void start(Listener<RespT> listener, Metadata headers) {
          try {
            super.start(
                new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
                  @Override
                  public void onHeaders(Metadata responseHeaders) {
                    release.run();
                    super.onHeaders(responseHeaders);
                  }

                  @Override
                  public void onClose(Status status, Metadata trailers) {
                    release.run();
                    super.onClose(status, trailers);
                  }
                },
                headers);
          } catch (RuntimeException | Error e) {
            release.run();
            throw e;
          }
        }
      };
    }

    @Override
    public String toString() {
      return "ClusterInterceptor{" + selection + "}";
    }
  }
}
