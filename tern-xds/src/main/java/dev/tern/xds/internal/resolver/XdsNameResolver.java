package dev.tern.xds.internal.resolver;

import dev.tern.Attributes;
import dev.tern.ConfigSelector;
import dev.tern.NameResolver;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import dev.tern.xds.Bootstrap;
import dev.tern.xds.ResourceWatcher;
import dev.tern.xds.XdsClient;
import dev.tern.xds.XdsClientPool;
import dev.tern.xds.XdsListener;
import dev.tern.xds.XdsResourceType;
import dev.tern.xds.XdsRouteConfig;
import dev.tern.xds.XdsRouteConfig.ClusterWeight;
import dev.tern.xds.XdsRouteConfig.RouteAction;
import dev.tern.xds.XdsRouteConfig.VirtualHost;
import dev.tern.xds.internal.XdsAttributes;
import dev.tern.xds.internal.filter.FilterContext;
import dev.tern.xds.internal.resolver.RoutingConfigSelector.CompiledRoute;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The resolver of {@code xds:///name} (and {@code xds://authority/name}, A47) targets: watches the
 * Listener the bootstrap's template names, then its RouteConfiguration (by RDS, or inline), picks
 * the virtual host for {@code name}, and publishes a {@link RoutingConfigSelector} with a service
 * config of the cluster manager ({@code xds_cluster_manager_experimental}) holding one {@code
 * cds_experimental} child per cluster in use, no addresses, and the {@link XdsClient} under {@link
 * XdsAttributes#XDS_CLIENT}.
 *
 * <p>A Listener or RouteConfiguration that does not exist (the control plane says so, or the
 * client's does-not-exist timer fires), or routes with no virtual host for the name, publish a
 * selector that fails every call with UNAVAILABLE naming the resource. An error (a broken stream, a
 * NACKed update) after a good configuration keeps it; before one, it is reported to the channel.
 *
 * <p>Threading: every field but {@link #clusterRefs} and {@link #current} is used only in the
 * channel's synchronization context; the client's watcher callbacks are moved there.
 */
final class XdsNameResolver extends NameResolver implements ClusterRefs {
  private static final Logger logger = Logger.getLogger(XdsNameResolver.class.getName());

  static final String CLUSTER_MANAGER_POLICY = "xds_cluster_manager_experimental";
  static final String CDS_POLICY = "cds_experimental";

  private final String targetAuthority;
  private final String name;
  private final Args args;
  private final SynchronizationContext syncContext;
  private final Supplier<Bootstrap> bootstrapSupplier;
  private final XdsClientPool pool;
  private final XdsRandom random;
  private final FilterContext filterContext;

  /** This channel's id for the {@code io.grpc.channel_id} hash policy (A42): random per channel. */
  private final long channelId;

  /** Per cluster, the references of the route config (one) and of uncommitted calls. */
  private final Map<String, AtomicInteger> clusterRefs = new ConcurrentHashMap<>();

  /**
   * The selector a call that must choose again takes ({@link #latest()}): the newest one the
   * channel has taken, so every cluster it routes to is in the channel's balancer already.
   */
  private volatile RoutingConfigSelector current;

  /** The newest selector, published to the channel (perhaps not taken by it yet). */
  private RoutingConfigSelector published;

  private Listener listener;
  private XdsClient client;
  private String listenerName;
  private LdsWatcher ldsWatcher;
  private String rdsName;
  private RdsWatcher rdsWatcher;
  private XdsListener lastListener;
  private XdsRouteConfig lastRoutes;
  private Set<String> configClusters = Set.of();
  private boolean shutdown;

  XdsNameResolver(
      String targetAuthority,
      String name,
      Args args,
      Supplier<Bootstrap> bootstrapSupplier,
      XdsClientPool pool,
      XdsRandom random) {
    this.targetAuthority = targetAuthority;
    this.name = name;
    this.args = args;
    this.syncContext = args.getSynchronizationContext();
    this.bootstrapSupplier = bootstrapSupplier;
    this.pool = pool;
    this.random = random;
    this.channelId = ThreadLocalRandom.current().nextLong();
    this.filterContext = new FilterContext(args.getScheduledExecutorService(), random::nextLong);
  }

  @Override
  public String getServiceAuthority() {
    return name;
  }

  /** The Listener's name this resolver watches (after {@link #start}), for tests. */
  String listenerName() {
    return listenerName;
  }

  @Override
  public void start(Listener listener) {
    this.listener = listener;
    Bootstrap bootstrap;
    try {
      bootstrap = bootstrapSupplier.get();
    } catch (RuntimeException e) {
      listener.onError(
          Status.UNAVAILABLE
              .withDescription("xds resolver for \"" + name + "\": " + e.getMessage())
              .withCause(e));
      return;
    }
    String template;
    if (!targetAuthority.isEmpty()) {
      Bootstrap.Authority authority = bootstrap.authorities().get(targetAuthority);
      if (authority == null) {
        listener.onError(
            Status.UNAVAILABLE.withDescription(
                "xds target authority \""
                    + targetAuthority
                    + "\" is not in the bootstrap's authorities "
                    + new TreeSet<>(bootstrap.authorities().keySet())));
        return;
      }
      template = authority.clientListenerResourceNameTemplate();
    } else {
      template = bootstrap.clientDefaultListenerResourceNameTemplate();
    }
    String resourceName = template.startsWith("xdstp:") ? percentEncodePath(name) : name;
    listenerName = template.replace("%s", resourceName);
    // One client per target (A71): another target's fallback does not move this one.
    client = pool.acquire(bootstrap, "xds://" + targetAuthority + "/" + name);
    client.useMetricRecorder(args.getMetricRecorder());
    ldsWatcher = new LdsWatcher();
    client.watch(XdsResourceType.LISTENER, listenerName, ldsWatcher);
  }

  @Override
  public void shutdown() {
    if (shutdown) {
      return;
    }
    shutdown = true;
    if (client != null) {
      cancelRds();
      client.cancelWatch(XdsResourceType.LISTENER, listenerName, ldsWatcher);
      ldsWatcher = null;
      pool.release(client);
      client = null;
    }
  }

  private void cancelRds() {
    if (rdsWatcher != null) {
      client.cancelWatch(XdsResourceType.ROUTE_CONFIGURATION, rdsName, rdsWatcher);
      rdsWatcher = null;
      rdsName = null;
    }
  }

  // ---- routes -> selector and service config

  private void updateRoutes() {
    VirtualHost host = VirtualHosts.select(lastRoutes.virtualHosts(), name);
    if (host == null) {
      fail(
          "no virtual host of xDS RouteConfiguration \""
              + lastRoutes.name()
              + "\" matches the domain \""
              + name
              + "\"");
      return;
    }
    String where =
        "virtual host \"" + host.name() + "\" of RouteConfiguration \"" + lastRoutes.name() + "\"";
    Duration defaultTimeout = lastListener != null ? lastListener.maxStreamDuration() : null;
    List<XdsListener.HttpFilter> httpFilters =
        lastListener != null ? lastListener.httpFilters() : List.of();
    List<CompiledRoute> compiled = new ArrayList<>();
    Set<String> clusters = new LinkedHashSet<>();
    List<XdsRouteConfig.Route> routes = host.routes();
    for (int i = 0; i < routes.size(); i++) {
      XdsRouteConfig.Route route = routes.get(i);
      RouteAction action = route.action();
      if (action == null) {
        compiled.add(
            new CompiledRoute(
                route,
                null,
                Status.UNAVAILABLE.withDescription(
                    "xDS route " + i + " of " + where + " is not a forwarding route")));
        continue;
      }
      if (action.cluster() != null) {
        clusters.add(action.cluster());
      }
      for (ClusterWeight w : action.weightedClusters()) {
        clusters.add(w.name());
      }
      Map<String, Object> raw = MethodConfigs.forRoute(action, defaultTimeout);
      Object methodConfig = null;
      Status error = null;
      if (!raw.isEmpty()) {
        try {
          methodConfig = args.getServiceConfigParser().parseMethodConfig(raw);
        } catch (RuntimeException e) {
          error =
              Status.UNAVAILABLE.withDescription(
                  "xDS route " + i + " of " + where + ": bad method config: " + e.getMessage());
        }
      }
      compiled.add(
          new CompiledRoute(
              route,
              methodConfig,
              error,
              RouteHash.of(action.hashPolicies(), channelId),
              RouteFilters.forRoute(httpFilters, host, route, filterContext),
              RouteFilters.forClusters(httpFilters, host, route, filterContext)));
    }
    install(new RoutingConfigSelector(compiled, clusters, where, null, this, random));
  }

  private void fail(String description) {
    install(RoutingConfigSelector.failing(Status.UNAVAILABLE.withDescription(description), this));
  }

  /**
   * Publishes {@code selector} with a config holding every cluster it routes to, then, once the
   * channel has taken that config, makes it current and lets go of the clusters it no longer routes
   * to.
   *
   * <p>The order matters: the channel takes a result in a task of the synchronization context that
   * {@code onResult} queues, and the task queued below runs after it. Until then a call of an older
   * selector whose cluster is leaving keeps that cluster (still in the balancer), and a call that
   * must choose again does not take a selector whose new clusters the balancer does not have yet
   * (it would fail "no child for" the cluster).
   */
  private void install(RoutingConfigSelector selector) {
    Set<String> next = selector.clusters();
    for (String cluster : next) {
      if (!configClusters.contains(cluster)) {
        clusterRefs.compute(
            cluster,
            (k, refs) -> {
              if (refs == null) {
                return new AtomicInteger(1);
              }
              refs.incrementAndGet();
              return refs;
            });
      }
    }
    Set<String> previous = configClusters;
    configClusters = next;
    published = selector;
    publish();
    syncContext.execute(() -> taken(selector, previous));
  }

  /** The channel has taken {@code selector}'s config: see {@link #install}. */
  private void taken(RoutingConfigSelector selector, Set<String> previous) {
    if (shutdown) {
      return;
    }
    current = selector;
    boolean removed = false;
    for (String cluster : previous) {
      if (!selector.clusters().contains(cluster)) {
        AtomicInteger refs = clusterRefs.get(cluster);
        if (refs.decrementAndGet() == 0) {
          clusterRefs.remove(cluster);
          removed = true;
        }
      }
    }
    if (removed) {
      publish();
    }
  }

  private void publish() {
    if (shutdown) {
      return;
    }
    Map<String, Object> children = new LinkedHashMap<>();
    for (String cluster : new TreeSet<>(clusterRefs.keySet())) {
      children.put(
          RoutingConfigSelector.CLUSTER_PREFIX + cluster,
          List.of(Map.of(CDS_POLICY, Map.of("cluster", cluster))));
    }
    Map<String, ?> serviceConfig =
        Map.of(
            "loadBalancingConfig",
            List.of(Map.of(CLUSTER_MANAGER_POLICY, Map.of("childPolicy", children))));
    Attributes attributes =
        Attributes.newBuilder()
            .set(XdsAttributes.XDS_CLIENT, client)
            .set(ConfigSelector.KEY, published)
            .build();
    listener.onResult(
        ResolutionResult.newBuilder()
            .setAddresses(List.of())
            .setAttributes(attributes)
            .setServiceConfig(args.getServiceConfigParser().parseServiceConfig(serviceConfig))
            .build());
  }

  // ---- ClusterRefs, for the selectors and their calls (any thread)

  @Override
  public boolean retain(String cluster) {
    AtomicInteger refs = clusterRefs.get(cluster);
    if (refs == null) {
      return false;
    }
    while (true) {
      int n = refs.get();
      if (n == 0) {
        return false;
      }
      if (refs.compareAndSet(n, n + 1)) {
        return true;
      }
    }
  }

  @Override
  public void release(String cluster) {
    AtomicInteger refs = clusterRefs.get(cluster);
    if (refs != null && refs.decrementAndGet() == 0) {
      syncContext.execute(
          () -> {
            if (clusterRefs.get(cluster) == refs && refs.get() == 0) {
              clusterRefs.remove(cluster);
              publish();
            }
          });
    }
  }

  @Override
  public RoutingConfigSelector latest() {
    return current;
  }

  // ---- watchers

  private final class LdsWatcher implements ResourceWatcher<XdsListener> {
    @Override
    public void onChanged(XdsListener resource) {
      syncContext.execute(
          () -> {
            if (ldsWatcher != this) {
              return;
            }
            if (resource.server() != null) {
              cancelRds();
              lastListener = null;
              lastRoutes = null;
              fail(
                  "xDS Listener \"" + listenerName + "\" is a server's listener (no api_listener)");
              return;
            }
            lastListener = resource;
            if (resource.rdsName() != null) {
              if (!resource.rdsName().equals(rdsName)) {
                cancelRds();
                lastRoutes = null;
                rdsName = resource.rdsName();
                rdsWatcher = new RdsWatcher();
                client.watch(XdsResourceType.ROUTE_CONFIGURATION, rdsName, rdsWatcher);
              } else if (lastRoutes != null) {
                updateRoutes(); // the listener's default timeout may have changed
              }
            } else {
              cancelRds();
              lastRoutes = resource.inlineRoutes();
              updateRoutes();
            }
          });
    }

    @Override
    public void onError(Status error) {
      syncContext.execute(
          () -> {
            if (ldsWatcher != this) {
              return;
            }
            onWatchError("Listener \"" + listenerName + "\"", error);
          });
    }

    @Override
    public void onResourceDoesNotExist(String resourceName) {
      syncContext.execute(
          () -> {
            if (ldsWatcher != this) {
              return;
            }
            cancelRds();
            lastListener = null;
            lastRoutes = null;
            fail("xDS Listener \"" + resourceName + "\" does not exist");
          });
    }
  }

  private final class RdsWatcher implements ResourceWatcher<XdsRouteConfig> {
    @Override
    public void onChanged(XdsRouteConfig resource) {
      syncContext.execute(
          () -> {
            if (rdsWatcher != this) {
              return;
            }
            lastRoutes = resource;
            updateRoutes();
          });
    }

    @Override
    public void onError(Status error) {
      syncContext.execute(
          () -> {
            if (rdsWatcher != this) {
              return;
            }
            onWatchError("RouteConfiguration \"" + rdsName + "\"", error);
          });
    }

    @Override
    public void onResourceDoesNotExist(String resourceName) {
      syncContext.execute(
          () -> {
            if (rdsWatcher != this) {
              return;
            }
            lastRoutes = null;
            fail(
                "xDS RouteConfiguration \""
                    + resourceName
                    + "\" (of Listener \""
                    + listenerName
                    + "\") does not exist");
          });
    }
  }

  private void onWatchError(String resource, Status error) {
    RoutingConfigSelector selector = published;
    if (selector != null && selector.error() == null) {
      logger.log(
          Level.FINE,
          "xds resolver for {0}: {1}: {2}; keeping the last good routes",
          new Object[] {name, resource, error});
      return;
    }
    listener.onError(
        Status.UNAVAILABLE
            .withDescription(
                "xDS "
                    + resource
                    + " for \""
                    + name
                    + "\": "
                    + error.getCode()
                    + ": "
                    + error.getDescription())
            .withCause(error.getCause()));
  }

  /** A47: the name in an {@code xdstp:} template is percent-encoded, {@code /} kept. */
  static String percentEncodePath(String s) {
    StringBuilder out = new StringBuilder();
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || "-._~/".indexOf(c) >= 0) {
        out.append(c);
      } else {
        out.append('%').append(String.format("%02X", (int) c));
      }
    }
    return out.toString();
  }
}
