package dev.tern.xds;

import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.MetricInstruments;
import dev.tern.MetricRecorder;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import dev.tern.xds.internal.lrs.LoadStatsRegistry;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * An xDS client (gRFC A27): ADS streams, state of the world, to the control planes of the
 * bootstrap, shared by every watcher of every resource. Watchers subscribe by ({@link
 * XdsResourceType}, name); the client sends each control plane the names it serves, validates what
 * it sends back into Tern's model, ACKs or NACKs each response, caches the last good value of every
 * resource for new watchers and while a stream is down or a newer version is NACKed, tells watchers
 * when a resource does not exist, and reconnects a broken stream with exponential back-off, asking
 * again for everything with the versions it has.
 *
 * <p>Which control planes: a resource named {@code xdstp://authority/...} belongs to that entry of
 * the bootstrap's {@code authorities} and is asked of its {@code xds_servers}, or of the top-level
 * ones when it has none (A47); any other name is asked of the top-level {@code xds_servers}. Each
 * list is tried in order (A71, {@link AuthorityServers}): the client moves to the next server when
 * the one in use cannot be reached and some watched resource of that authority is not cached, and
 * back up when a higher one answers again. Servers listed by several authorities share one {@link
 * ControlPlaneConnection} (one channel, one stream).
 *
 * <p>Processes normally share one client per bootstrap and channel target through {@link
 * XdsClientPool}.
 *
 * <p>Thread-safety: every method may be called from any thread. All state (the cache, the
 * authorities' positions, every connection and stream) lives in one {@link SynchronizationContext}
 * and is touched only by its tasks; watchers are called from there, one at a time, with no lock
 * held (see {@link ResourceWatcher}).
 */
public final class XdsClient implements AutoCloseable {
  private static final Logger logger = Logger.getLogger(XdsClient.class.getName());

  /** The types in the order a reconnected stream asks for them again. */
  static final List<XdsResourceType<?>> TYPES =
      List.of(
          XdsResourceType.LISTENER,
          XdsResourceType.ROUTE_CONFIGURATION,
          XdsResourceType.CLUSTER,
          XdsResourceType.ENDPOINTS);

  private static final Map<String, XdsResourceType<?>> TYPES_BY_URL = new LinkedHashMap<>();

  static {
    for (XdsResourceType<?> type : TYPES) {
      TYPES_BY_URL.put(type.typeUrl(), type);
    }
  }

  private static final String XDSTP = "xdstp://";

  /**
   * Settings with defaults for production; tests shorten the timers.
   *
   * @param doesNotExistTimeout how long a subscribed resource may take to arrive before its
   *     watchers hear it does not exist (A27: 15 s)
   * @param initialBackoff the first reconnection delay after a stream that received nothing
   * @param maxBackoff the longest reconnection delay
   * @param channelFactory makes the channel to a control plane
   */
  public record Options(
      Duration doesNotExistTimeout,
      Duration initialBackoff,
      Duration maxBackoff,
      Function<Bootstrap.ServerInfo, ManagedChannel> channelFactory) {
    public Options {
      Objects.requireNonNull(doesNotExistTimeout, "doesNotExistTimeout");
      Objects.requireNonNull(initialBackoff, "initialBackoff");
      Objects.requireNonNull(maxBackoff, "maxBackoff");
      Objects.requireNonNull(channelFactory, "channelFactory");
    }

    /** 15 s does-not-exist timeout, back-off from 1 s to 30 s, {@link #defaultChannel}. */
    public static Options defaults() {
      return new Options(
          Duration.ofSeconds(15),
          Duration.ofSeconds(1),
          Duration.ofSeconds(30),
          XdsClient::defaultChannel);
    }

    public Options withDoesNotExistTimeout(Duration timeout) {
      return new Options(timeout, initialBackoff, maxBackoff, channelFactory);
    }

    public Options withBackoff(Duration initial, Duration max) {
      return new Options(doesNotExistTimeout, initial, max, channelFactory);
    }

    public Options withChannelFactory(Function<Bootstrap.ServerInfo, ManagedChannel> factory) {
      return new Options(doesNotExistTimeout, initialBackoff, maxBackoff, factory);
    }
  }

  /**
   * A channel to {@code server_uri}: plaintext for {@code insecure} credentials, TLS with the
   * platform's trust for {@code google_default} (Google's call credentials are not added yet), and
   * for {@code tls} (A65) TLS with the config's client certificate and roots, re-read from their
   * files every {@code refresh_interval}.
   */
  public static ManagedChannel defaultChannel(Bootstrap.ServerInfo server) {
    if (server.channelCredsType().equals(ControlPlaneTls.TYPE)) {
      return ControlPlaneTls.channel(server);
    }
    ManagedChannelBuilder<?> builder = ManagedChannelBuilder.forTarget(server.serverUri());
    if (server.channelCredsType().equals("insecure")) {
      builder.usePlaintext();
    } else {
      builder.useTransportSecurity();
    }
    return builder.build();
  }

  private final Bootstrap bootstrap;
  private final String scope;
  private final Options options;
  private final ScheduledExecutorService timer;
  private final SynchronizationContext syncContext;
  private final Map<XdsResourceType<?>, Map<String, ResourceState<?>>> resources =
      new LinkedHashMap<>();

  /** Old-style names' control planes: the top-level {@code xds_servers}. */
  private final AuthorityServers topLevel;

  /** The {@code authorities} entries that some watched name has used, by authority name. */
  private final Map<String, AuthorityServers> authorities = new HashMap<>();

  private final Map<Bootstrap.ServerInfo, ControlPlaneConnection> connections =
      new LinkedHashMap<>();
  private final ControlPlaneConnection.Listener connectionListener = new ConnectionListener();
  private final Clock clock = Clock.systemUTC();
  private final boolean fallback;
  private final LoadStatsRegistry loadStats;
  private LoadReportClient loadReports; // made when a cluster first reports load
  private boolean flushQueued;
  private boolean closed;

  /** Where A78's counters go: the sinks of the first channel with any that shares this client. */
  private volatile MetricRecorder metricRecorder = MetricRecorder.none();

  /** A78's gauges, once {@link #metricRecorder} has sinks; null before. */
  private XdsClientGauges gauges;

  private XdsClient(Bootstrap bootstrap, String scope, Options options, boolean fallback) {
    this.bootstrap = Objects.requireNonNull(bootstrap, "bootstrap");
    this.scope = Objects.requireNonNull(scope, "scope");
    this.options = Objects.requireNonNull(options, "options");
    this.fallback = fallback;
    this.syncContext =
        new SynchronizationContext(
            (t, e) -> logger.log(Level.SEVERE, "xDS client task failed (a bug)", e));
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, "tern-xds-timer");
              thread.setDaemon(true);
              return thread;
            });
    for (XdsResourceType<?> type : TYPES) {
      resources.put(type, new LinkedHashMap<>());
    }
    this.topLevel = new AuthorityServers("(top level)", bootstrap.xdsServers(), fallback);
    this.loadStats =
        new LoadStatsRegistry(() -> syncContext.execute(this::updateLoadReports), System::nanoTime);
  }

  /**
   * Records gRFC A78's counters ({@code grpc.xds_client.server_failure}, {@code
   * grpc.xds_client.resource_updates_valid}, {@code ..._invalid}) into {@code recorder} from now
   * on, and has its sinks read A78's gauges ({@code grpc.xds_client.connected}, {@code
   * grpc.xds_client.resources}) until the client closes, labelled with its channel's target, unless
   * a recorder with sinks was given before (a client shared by several channels reports through the
   * first one that has sinks, as grpc-java's does).
   */
  public void useMetricRecorder(MetricRecorder recorder) {
    Objects.requireNonNull(recorder, "recorder");
    synchronized (this) {
      if (metricRecorder.isEmpty()) {
        metricRecorder = recorder;
      }
    }
    syncContext.execute(
        () -> {
          MetricRecorder adopted = metricRecorder;
          if (!closed && gauges == null && !adopted.isEmpty()) {
            gauges = new XdsClientGauges(adopted);
            publishGauges();
          }
        });
  }

  /** Gives the gauges the current values, if there are gauges; after each change. */
  private void publishGauges() {
    if (gauges != null && !closed) {
      gauges.publish(connections.values(), resources.values());
    }
  }

  /** A client of its own for {@code bootstrap} (most code shares one through the pool). */
  public static XdsClient create(Bootstrap bootstrap) {
    return create(bootstrap, Options.defaults());
  }

  /** A client of its own with {@code options}. */
  public static XdsClient create(Bootstrap bootstrap, Options options) {
    return create(bootstrap, "", options);
  }

  /** A client for {@code scope} (see {@link #scope}); the pool makes them. */
  static XdsClient create(Bootstrap bootstrap, String scope, Options options) {
    return new XdsClient(bootstrap, scope, options, XdsFeatures.current().fallback());
  }

  /**
   * A client whose fallback between control planes is on or off regardless of {@code
   * GRPC_EXPERIMENTAL_XDS_FALLBACK} (tests).
   */
  static XdsClient create(Bootstrap bootstrap, Options options, boolean fallback) {
    return new XdsClient(bootstrap, "", options, fallback);
  }

  public Bootstrap bootstrap() {
    return bootstrap;
  }

  /**
   * What the client serves (A71): the channel target whose channels share it ({@code xds:///svc}),
   * {@link XdsClientPool#SERVER_SCOPE} for xDS-enabled servers, or empty; CSDS reports it as {@code
   * client_scope}.
   */
  public String scope() {
    return scope;
  }

  /** The type whose type URL this is, or null. */
  static XdsResourceType<?> typeOf(String typeUrl) {
    return TYPES_BY_URL.get(typeUrl);
  }

  /**
   * The load statistics of the clusters that report load to this client's control plane ({@code
   * lrs_server: self}); for Tern's cluster_impl balancer. Taking the first lease opens the LRS
   * stream (to the first top-level server), releasing the last closes it. (Its type is in a package
   * the module does not export: this is for the module's own balancers, not for users.)
   */
  @SuppressWarnings("exports")
  public LoadStatsRegistry loadStats() {
    return loadStats;
  }

  private void updateLoadReports() {
    if (closed) {
      return;
    }
    if (loadReports == null) {
      Bootstrap.ServerInfo server = bootstrap.xdsServers().get(0);
      loadReports =
          new LoadReportClient(
              connection(server).channel(),
              server.serverUri(),
              syncContext,
              timer,
              bootstrap.node().toProto(),
              new Backoff(options.initialBackoff(), options.maxBackoff()),
              loadStats);
    }
    loadReports.update();
  }

  /**
   * What the client holds for each subscribed resource, as CSDS reports it (gRFC A40), whichever
   * control plane it came from: read in the client's synchronization context, so the future
   * completes once the task running there (if any) is done. Empty after {@link #close}.
   */
  public CompletableFuture<List<XdsResourceStatus>> resourceStatuses() {
    CompletableFuture<List<XdsResourceStatus>> result = new CompletableFuture<>();
    syncContext.execute(
        () -> {
          List<XdsResourceStatus> statuses = new ArrayList<>();
          for (Map<String, ResourceState<?>> byName : resources.values()) {
            for (ResourceState<?> resource : byName.values()) {
              statuses.add(resource.status());
            }
          }
          result.complete(List.copyOf(statuses));
        });
    return result;
  }

  /**
   * Subscribes {@code watcher} to the resource; it hears the cached value at once if there is one.
   * The first watcher of a name makes the client ask the control plane for it. A name {@code
   * xdstp://authority/...} whose authority the bootstrap does not list is an error to the watcher
   * ({@code onError}, INVALID_ARGUMENT), and nothing is asked.
   */
  public <T> void watch(XdsResourceType<T> type, String name, ResourceWatcher<T> watcher) {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(watcher, "watcher");
    syncContext.execute(
        () -> {
          if (closed) {
            return;
          }
          Map<String, ResourceState<?>> byName = resources.get(type);
          @SuppressWarnings("unchecked")
          ResourceState<T> resource = (ResourceState<T>) byName.get(name);
          if (resource == null) {
            AuthorityServers authority = authorityOf(name);
            if (authority == null) {
              watcher.onError(
                  Status.INVALID_ARGUMENT.withDescription(
                      type.typeName()
                          + " \""
                          + name
                          + "\": its authority is not in the bootstrap's authorities "
                          + new TreeSet<>(bootstrap.authorities().keySet())));
              return;
            }
            resource = new ResourceState<>(type, name, authority);
            byName.put(name, resource);
            fallBackIfNeeded(authority);
            markDirty();
          }
          resource.addWatcher(watcher);
        });
  }

  /** Unsubscribes {@code watcher}; the last watcher of a name makes the client stop asking. */
  public <T> void cancelWatch(XdsResourceType<T> type, String name, ResourceWatcher<T> watcher) {
    syncContext.execute(
        () -> {
          Map<String, ResourceState<?>> byName = resources.get(type);
          @SuppressWarnings("unchecked")
          ResourceState<T> resource = (ResourceState<T>) byName.get(name);
          if (resource != null && resource.removeWatcher(watcher)) {
            resource.cancelTimer();
            byName.remove(name);
            markDirty();
          }
        });
  }

  /** Ends the streams and the channels; watchers hear nothing more. Idempotent. */
  @Override
  public void close() {
    syncContext.execute(
        () -> {
          if (closed) {
            return;
          }
          closed = true;
          if (gauges != null) {
            gauges.close();
          }
          if (loadReports != null) {
            loadReports.shutdown();
          }
          connections.values().forEach(ControlPlaneConnection::shutdown);
          for (Map<String, ResourceState<?>> byName : resources.values()) {
            byName.values().forEach(ResourceState::cancelTimer);
            byName.clear();
          }
          timer.shutdownNow();
        });
  }

  /**
   * The control planes of a resource name (A47): an {@code xdstp:} name's authority's, an old-style
   * name's top-level ones; null for an authority the bootstrap does not list.
   */
  private AuthorityServers authorityOf(String name) {
    String authorityName = authorityName(name);
    if (authorityName == null) {
      return topLevel;
    }
    Bootstrap.Authority authority = bootstrap.authorities().get(authorityName);
    if (authority == null) {
      return null;
    }
    return authorities.computeIfAbsent(
        authorityName,
        a ->
            new AuthorityServers(
                "authority \"" + a + "\"",
                authority.xdsServers().isEmpty() ? bootstrap.xdsServers() : authority.xdsServers(),
                fallback));
  }

  /** The authority of an {@code xdstp:} name; null for an old-style name. */
  static String authorityName(String name) {
    if (!name.startsWith(XDSTP)) {
      return null;
    }
    int slash = name.indexOf('/', XDSTP.length());
    return name.substring(XDSTP.length(), slash < 0 ? name.length() : slash);
  }

  private ControlPlaneConnection connection(Bootstrap.ServerInfo server) {
    return connections.computeIfAbsent(
        server,
        s ->
            new ControlPlaneConnection(
                s,
                options.channelFactory().apply(s),
                syncContext,
                timer,
                new Backoff(options.initialBackoff(), options.maxBackoff()),
                bootstrap.node().toProto(),
                connectionListener));
  }

  /**
   * A71: when the authority's current server cannot be reached and one of its watched resources is
   * not cached (a value, or known not to exist), the next server is used too; true if it moved.
   */
  private boolean fallBackIfNeeded(AuthorityServers authority) {
    ControlPlaneConnection current = connections.get(authority.current());
    if (current == null || !current.unreachable() || !hasUncached(authority)) {
      return false;
    }
    Bootstrap.ServerInfo from = authority.current();
    if (!authority.fallBack()) {
      return false;
    }
    logger.log(
        Level.WARNING,
        "{0}: {1} cannot be reached and some resources are not cached; falling back to {2}",
        new Object[] {authority.label, from.serverUri(), authority.current().serverUri()});
    markDirty();
    return true;
  }

  private boolean hasUncached(AuthorityServers authority) {
    for (Map<String, ResourceState<?>> byName : resources.values()) {
      for (ResourceState<?> resource : byName.values()) {
        if (resource.authority == authority && !resource.cached()) {
          return true;
        }
      }
    }
    return false;
  }

  private void markDirty() {
    if (!flushQueued) {
      flushQueued = true;
      // Runs after the tasks already queued: changes made together go out in one request.
      syncContext.executeLater(this::flush);
    }
  }

  /** Gives every control plane the names it should serve now; unused ones end their streams. */
  private void flush() {
    flushQueued = false;
    if (closed) {
      return;
    }
    Map<Bootstrap.ServerInfo, Map<XdsResourceType<?>, SortedSet<String>>> wanted =
        new LinkedHashMap<>();
    for (Map.Entry<XdsResourceType<?>, Map<String, ResourceState<?>>> e : resources.entrySet()) {
      for (ResourceState<?> resource : e.getValue().values()) {
        for (Bootstrap.ServerInfo server : resource.authority.inUse()) {
          wanted
              .computeIfAbsent(server, s -> new LinkedHashMap<>())
              .computeIfAbsent(e.getKey(), t -> new TreeSet<>())
              .add(resource.name);
        }
      }
    }
    wanted.keySet().forEach(this::connection);
    for (ControlPlaneConnection connection : new ArrayList<>(connections.values())) {
      connection.subscribe(wanted.getOrDefault(connection.server(), Map.of()));
    }
    publishGauges();
  }

  /** The resources whose authority takes them from {@code server} now. */
  private List<ResourceState<?>> servedBy(Bootstrap.ServerInfo server, XdsResourceType<?> type) {
    List<ResourceState<?>> served = new ArrayList<>();
    for (ResourceState<?> resource : resources.get(type).values()) {
      if (resource.authority.current().equals(server)) {
        served.add(resource);
      }
    }
    return served;
  }

  private List<AuthorityServers> authoritiesInUse() {
    List<AuthorityServers> all = new ArrayList<>();
    all.add(topLevel);
    all.addAll(authorities.values());
    return all;
  }

  private final class ConnectionListener implements ControlPlaneConnection.Listener {
    @Override
    public void onResponse(ControlPlaneConnection connection, DiscoveryResponse response) {
      Bootstrap.ServerInfo server = connection.server();
      for (AuthorityServers authority : authoritiesInUse()) {
        Bootstrap.ServerInfo was = authority.current();
        if (authority.answeredBy(server)) {
          // A71: a higher-priority server answers again; the lower ones are let go.
          logger.log(
              Level.INFO,
              "{0}: {1} answers again; {2} is no longer used",
              new Object[] {authority.label, server.serverUri(), was.serverUri()});
          markDirty();
        }
      }
      handleResponse(connection, typeOf(response.getTypeUrl()), response);
    }

    @Override
    public void onRequestSent(
        ControlPlaneConnection connection, XdsResourceType<?> type, SortedSet<String> names) {
      Map<String, ResourceState<?>> byName = resources.get(type);
      for (String name : names) {
        ResourceState<?> resource = byName.get(name);
        // Only the server the resource is taken from starts its timer: a higher one still being
        // retried may never answer, and the timer must not run while no stream is up (A57).
        if (resource != null
            && resource.authority.current().equals(connection.server())
            && resource.needsTimer()) {
          resource.startTimer(
              syncContext.schedule(
                  () -> {
                    resource.onDoesNotExist(clock.millis());
                    publishGauges();
                  },
                  options.doesNotExistTimeout().toNanos(),
                  TimeUnit.NANOSECONDS,
                  timer));
        }
      }
    }

    @Override
    public void onStreamClosed(
        ControlPlaneConnection connection, Status status, boolean connectivityFailure) {
      if (closed) {
        return;
      }
      Bootstrap.ServerInfo server = connection.server();
      MetricRecorder recorder = metricRecorder;
      if (connectivityFailure && !recorder.isEmpty()) {
        // A57's unhealthy server: the stream failed before any response.
        recorder.addLongCounter(
            MetricInstruments.XDS_CLIENT_SERVER_FAILURE,
            1,
            List.of(recorder.target(), server.serverUri()),
            List.of());
      }
      logger.log(
          Level.WARNING,
          connectivityFailure
              ? "ADS stream to {0} closed before any response (cannot be reached): {1}"
              : "ADS stream to {0} closed: {1}; reconnecting",
          new Object[] {server.serverUri(), status});
      Status error =
          Status.UNAVAILABLE
              .withDescription(
                  "ADS stream to "
                      + server.serverUri()
                      + " closed: "
                      + status.getCode()
                      + " "
                      + status.getDescription())
              .withCause(status.getCause());
      for (AuthorityServers authority : authoritiesInUse()) {
        if (!authority.current().equals(server)) {
          continue; // a higher-priority server still being retried, or another authority's
        }
        List<ResourceState<?>> affected = new ArrayList<>();
        for (XdsResourceType<?> type : TYPES) {
          affected.addAll(servedBy(server, type));
        }
        affected.removeIf(r -> r.authority != authority);
        affected.forEach(ResourceState::cancelTimer); // restarted when a request goes out again
        if (connectivityFailure && fallBackIfNeeded(authority)) {
          continue; // A71: watchers hear of it only once no server is left to try
        }
        for (ResourceState<?> resource : affected) {
          resource.onError(error);
        }
      }
      publishGauges();
    }
  }

  /** A78's counts of the resources a response carried, valid and not, by server and type. */
  private void recordUpdates(
      Bootstrap.ServerInfo server, XdsResourceType<?> type, int valid, int invalid) {
    MetricRecorder recorder = metricRecorder;
    if (recorder.isEmpty()) {
      return;
    }
    List<String> labels =
        List.of(recorder.target(), server.serverUri(), XdsClientGauges.typeLabel(type));
    if (valid > 0) {
      recorder.addLongCounter(
          MetricInstruments.XDS_CLIENT_RESOURCE_UPDATES_VALID, valid, labels, List.of());
    }
    if (invalid > 0) {
      recorder.addLongCounter(
          MetricInstruments.XDS_CLIENT_RESOURCE_UPDATES_INVALID, invalid, labels, List.of());
    }
  }

  private <T> void handleResponse(
      ControlPlaneConnection connection, XdsResourceType<T> type, DiscoveryResponse response) {
    Bootstrap.ServerInfo server = connection.server();
    ParsedResponse<T> parsed =
        ParsedResponse.parse(type, response, bootstrap.certificateProviders().keySet());
    recordUpdates(server, type, parsed.valid().size(), parsed.invalid().size());
    Instant now = Instant.ofEpochMilli(clock.millis());
    for (ResourceState<?> state : servedBy(server, type)) {
      @SuppressWarnings("unchecked")
      ResourceState<T> resource = (ResourceState<T>) state;
      String name = resource.name;
      T value = parsed.valid().get(name);
      if (value != null) {
        resource.onValue(
            value, parsed.raws().get(name), response.getVersionInfo(), now.toEpochMilli());
      } else if (parsed.invalid().containsKey(name)) {
        resource.onNack(
            new XdsResourceStatus.Failure(
                response.getVersionInfo(),
                parsed.invalid().get(name),
                now,
                parsed.raws().get(name)));
      } else if (type.allInEveryResponse() && !resource.timerPending()) {
        // Left out of a state-of-the-world response (unless asked for too recently to tell).
        if (resource.hasValue() && server.ignoreResourceDeletion()) {
          logger.log(
              Level.WARNING,
              "{0} \"{1}\" left out of version {2}; kept (ignore_resource_deletion)",
              new Object[] {type.typeName(), name, response.getVersionInfo()});
        } else {
          resource.onDoesNotExist(now.toEpochMilli());
        }
      }
    }
    if (parsed.errors().isEmpty()) {
      connection.ack(type, response.getVersionInfo());
    } else {
      String detail = String.join("; ", parsed.errors());
      logger.log(
          Level.WARNING,
          "NACK of {0} version {1} from {2}: {3}",
          new Object[] {type.typeName(), response.getVersionInfo(), server.serverUri(), detail});
      connection.nack(type, detail);
    }
    publishGauges();
  }
}
