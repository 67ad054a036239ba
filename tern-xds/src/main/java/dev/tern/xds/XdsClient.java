package dev.tern.xds;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import dev.tern.xds.internal.lrs.LoadStatsRegistry;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.Resource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * An xDS client (gRFC A27): one ADS stream, state of the world, to the bootstrap's first control
 * plane, shared by every watcher of every resource. Watchers subscribe by ({@link XdsResourceType},
 * name); the client sends the control plane the names subscribed, validates what it sends back into
 * Tern's model, ACKs or NACKs each response, caches the last good value of every resource for new
 * watchers and while the stream is down or a newer version is NACKed, tells watchers when a
 * resource does not exist, and reconnects a broken stream with exponential back-off, asking again
 * for everything with the versions it has.
 *
 * <p>Processes normally share one client per bootstrap through {@link XdsClientPool}.
 *
 * <p>Thread-safety: every method may be called from any thread. All state lives in one {@link
 * SynchronizationContext} and is touched only by its tasks; watchers are called from there, one at
 * a time, with no lock held (see {@link ResourceWatcher}).
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

  private static final String WRAPPED_RESOURCE_TYPE_URL =
      "type.googleapis.com/envoy.service.discovery.v3.Resource";

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
   * platform's trust for {@code google_default} (Google's call credentials are not added yet).
   */
  public static ManagedChannel defaultChannel(Bootstrap.ServerInfo server) {
    ManagedChannelBuilder<?> builder = ManagedChannelBuilder.forTarget(server.serverUri());
    if (server.channelCredsType().equals("insecure")) {
      builder.usePlaintext();
    } else {
      builder.useTransportSecurity();
    }
    return builder.build();
  }

  /** Per type: what the stream last accepted and the last response's nonce. */
  private static final class TypeState {
    String version = "";
    String nonce = "";
    final Map<String, ResourceState<?>> resources = new LinkedHashMap<>();
  }

  private final Bootstrap bootstrap;
  private final Bootstrap.ServerInfo server;
  private final Options options;
  private final ManagedChannel channel;
  private final ScheduledExecutorService timer;
  private final SynchronizationContext syncContext;
  private final Backoff backoff;
  private final Map<XdsResourceType<?>, TypeState> types = new LinkedHashMap<>();
  private final Map<String, XdsResourceType<?>> typesByUrl = new LinkedHashMap<>();
  private final Set<XdsResourceType<?>> dirty = new LinkedHashSet<>();
  private final AdsStream.Handler handler = new StreamHandler();
  private final Clock clock = Clock.systemUTC();
  private final LoadStatsRegistry loadStats;
  private LoadReportClient loadReports; // made when a cluster first reports load
  private boolean flushQueued;
  private AdsStream stream;
  private SynchronizationContext.ScheduledHandle reconnect;
  private boolean closed;

  private XdsClient(Bootstrap bootstrap, Options options) {
    this.bootstrap = Objects.requireNonNull(bootstrap, "bootstrap");
    this.server = bootstrap.xdsServers().get(0);
    this.options = Objects.requireNonNull(options, "options");
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
    this.backoff = new Backoff(options.initialBackoff(), options.maxBackoff());
    for (XdsResourceType<?> type : TYPES) {
      types.put(type, new TypeState());
      typesByUrl.put(type.typeUrl(), type);
    }
    this.channel = options.channelFactory().apply(server);
    this.loadStats =
        new LoadStatsRegistry(() -> syncContext.execute(this::updateLoadReports), System::nanoTime);
  }

  /** A client of its own for {@code bootstrap} (most code shares one through the pool). */
  public static XdsClient create(Bootstrap bootstrap) {
    return new XdsClient(bootstrap, Options.defaults());
  }

  /** A client of its own with {@code options}. */
  public static XdsClient create(Bootstrap bootstrap, Options options) {
    return new XdsClient(bootstrap, options);
  }

  public Bootstrap bootstrap() {
    return bootstrap;
  }

  /**
   * The load statistics of the clusters that report load to this client's control plane ({@code
   * lrs_server: self}); for Tern's cluster_impl balancer. Taking the first lease opens the LRS
   * stream, releasing the last closes it. (Its type is in a package the module does not export:
   * this is for the module's own balancers, not for users.)
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
      loadReports =
          new LoadReportClient(
              channel,
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
   * What the client holds for each subscribed resource, as CSDS reports it (gRFC A40): read in the
   * client's synchronization context, so the future completes once the task running there (if any)
   * is done. Empty after {@link #close}.
   */
  public CompletableFuture<List<XdsResourceStatus>> resourceStatuses() {
    CompletableFuture<List<XdsResourceStatus>> result = new CompletableFuture<>();
    syncContext.execute(
        () -> {
          List<XdsResourceStatus> statuses = new ArrayList<>();
          for (TypeState state : types.values()) {
            for (ResourceState<?> resource : state.resources.values()) {
              statuses.add(resource.status());
            }
          }
          result.complete(List.copyOf(statuses));
        });
    return result;
  }

  /**
   * Subscribes {@code watcher} to the resource; it hears the cached value at once if there is one.
   * The first watcher of a name makes the client ask the control plane for it.
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
          TypeState state = types.get(type);
          @SuppressWarnings("unchecked")
          ResourceState<T> resource = (ResourceState<T>) state.resources.get(name);
          if (resource == null) {
            resource = new ResourceState<>(type, name);
            state.resources.put(name, resource);
            markDirty(type);
          }
          resource.addWatcher(watcher);
        });
  }

  /** Unsubscribes {@code watcher}; the last watcher of a name makes the client stop asking. */
  public <T> void cancelWatch(XdsResourceType<T> type, String name, ResourceWatcher<T> watcher) {
    syncContext.execute(
        () -> {
          TypeState state = types.get(type);
          @SuppressWarnings("unchecked")
          ResourceState<T> resource = (ResourceState<T>) state.resources.get(name);
          if (resource != null && resource.removeWatcher(watcher)) {
            resource.cancelTimer();
            state.resources.remove(name);
            markDirty(type);
          }
        });
  }

  /** Ends the stream and the channel; watchers hear nothing more. Idempotent. */
  @Override
  public void close() {
    syncContext.execute(
        () -> {
          if (closed) {
            return;
          }
          closed = true;
          if (stream != null) {
            stream.cancel("xDS client closed");
            stream = null;
          }
          if (reconnect != null) {
            reconnect.cancel();
          }
          if (loadReports != null) {
            loadReports.shutdown();
          }
          for (TypeState state : types.values()) {
            state.resources.values().forEach(ResourceState::cancelTimer);
            state.resources.clear();
          }
          channel.shutdownNow();
          timer.shutdownNow();
        });
  }

  private void markDirty(XdsResourceType<?> type) {
    dirty.add(type);
    if (!flushQueued) {
      flushQueued = true;
      // Runs after the tasks already queued: changes made together go out in one request.
      syncContext.executeLater(this::flush);
    }
  }

  private void flush() {
    flushQueued = false;
    if (closed) {
      return;
    }
    if (stream == null) {
      if (reconnect == null || !reconnect.isPending()) {
        startStream();
      }
      return; // a new stream asks for everything
    }
    for (XdsResourceType<?> type : new ArrayList<>(dirty)) {
      sendRequest(type, null);
    }
    dirty.clear();
  }

  private void startStream() {
    dirty.clear();
    boolean any = types.values().stream().anyMatch(s -> !s.resources.isEmpty());
    if (!any) {
      return;
    }
    for (TypeState state : types.values()) {
      state.nonce = "";
    }
    stream = new AdsStream(channel, syncContext, handler);
    stream.start();
    for (XdsResourceType<?> type : TYPES) {
      if (!types.get(type).resources.isEmpty()) {
        sendRequest(type, null);
      }
    }
  }

  /** Sends the type's subscription with the accepted version and last nonce; a NACK if error. */
  private void sendRequest(XdsResourceType<?> type, String error) {
    TypeState state = types.get(type);
    DiscoveryRequest.Builder request =
        DiscoveryRequest.newBuilder()
            .setTypeUrl(type.typeUrl())
            .setVersionInfo(state.version)
            .setResponseNonce(state.nonce)
            .addAllResourceNames(new TreeSet<>(state.resources.keySet()));
    if (!stream.sentNode()) {
      request.setNode(bootstrap.node().toProto());
    }
    if (error != null) {
      request.setErrorDetail(
          com.google.rpc.Status.newBuilder()
              .setCode(Status.Code.INVALID_ARGUMENT.value())
              .setMessage(error));
    }
    stream.send(request.build());
    for (ResourceState<?> resource : state.resources.values()) {
      if (resource.needsTimer()) {
        resource.startTimer(
            syncContext.schedule(
                () -> resource.onDoesNotExist(clock.millis()),
                options.doesNotExistTimeout().toNanos(),
                TimeUnit.NANOSECONDS,
                timer));
      }
    }
  }

  private final class StreamHandler implements AdsStream.Handler {
    @Override
    public void onResponse(AdsStream from, DiscoveryResponse response) {
      if (from != stream) {
        return;
      }
      handleResponse(response);
      from.requestNext();
    }

    @Override
    public void onClosed(AdsStream from, Status status) {
      if (from != stream) {
        return;
      }
      stream = null;
      if (closed) {
        return;
      }
      logger.log(
          Level.WARNING,
          "ADS stream to {0} closed: {1}; reconnecting",
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
      for (TypeState state : types.values()) {
        for (ResourceState<?> resource : new ArrayList<>(state.resources.values())) {
          resource.cancelTimer(); // restarted when the request goes out again
          resource.onError(error);
        }
      }
      long delay;
      if (from.receivedResponse()) {
        backoff.reset();
        delay = 0;
      } else {
        delay = backoff.nextDelayNanos();
      }
      reconnect =
          syncContext.schedule(XdsClient.this::startStream, delay, TimeUnit.NANOSECONDS, timer);
    }
  }

  private void handleResponse(DiscoveryResponse response) {
    XdsResourceType<?> type = typesByUrl.get(response.getTypeUrl());
    if (type == null) {
      logger.log(Level.WARNING, "ignored a response of unknown type {0}", response.getTypeUrl());
      return;
    }
    handleResponse(type, response);
  }

  private <T> void handleResponse(XdsResourceType<T> type, DiscoveryResponse response) {
    TypeState state = types.get(type);
    state.nonce = response.getNonce();
    List<String> errors = new ArrayList<>();
    Map<String, Message> raws = new LinkedHashMap<>();
    Map<String, T> valid = new LinkedHashMap<>();
    Map<String, String> invalid = new LinkedHashMap<>();
    for (Any any : response.getResourcesList()) {
      Message message;
      try {
        message = type.unpack(unwrap(any, type));
      } catch (XdsResourceException e) {
        errors.add(e.getMessage());
        continue;
      }
      String name = type.name(message);
      if (valid.containsKey(name) || invalid.containsKey(name)) {
        String duplicate = type.typeName() + " \"" + name + "\": sent twice in one response";
        errors.add(duplicate);
        valid.remove(name);
        invalid.put(name, duplicate);
        continue;
      }
      raws.put(name, message);
      try {
        valid.put(name, type.validate(message, bootstrap.certificateProviders().keySet()));
      } catch (XdsResourceException e) {
        errors.add(e.getMessage());
        invalid.put(name, e.getMessage());
      }
    }
    for (Map.Entry<String, T> e : valid.entrySet()) {
      @SuppressWarnings("unchecked")
      ResourceState<T> resource = (ResourceState<T>) state.resources.get(e.getKey());
      if (resource != null) {
        resource.onValue(
            e.getValue(), raws.get(e.getKey()), response.getVersionInfo(), clock.millis());
      }
    }
    for (Map.Entry<String, String> e : invalid.entrySet()) {
      ResourceState<?> resource = state.resources.get(e.getKey());
      if (resource != null) {
        resource.onNack(
            new XdsResourceStatus.Failure(
                response.getVersionInfo(),
                e.getValue(),
                Instant.ofEpochMilli(clock.millis()),
                raws.get(e.getKey())));
      }
    }
    if (type.allInEveryResponse()) {
      for (ResourceState<?> resource : new ArrayList<>(state.resources.values())) {
        if (valid.containsKey(resource.name) || invalid.containsKey(resource.name)) {
          continue;
        }
        if (resource.timerPending()) {
          continue; // asked for too recently to conclude it is gone
        }
        if (resource.hasValue() && server.ignoreResourceDeletion()) {
          logger.log(
              Level.WARNING,
              "{0} \"{1}\" left out of version {2}; kept (ignore_resource_deletion)",
              new Object[] {type.typeName(), resource.name, response.getVersionInfo()});
          continue;
        }
        resource.onDoesNotExist(clock.millis());
      }
    }
    if (errors.isEmpty()) {
      state.version = response.getVersionInfo();
      sendRequest(type, null);
    } else {
      String detail = String.join("; ", errors);
      logger.log(
          Level.WARNING,
          "NACK of {0} version {1} from {2}: {3}",
          new Object[] {type.typeName(), response.getVersionInfo(), server.serverUri(), detail});
      sendRequest(type, detail);
    }
  }

  /** A resource wrapped in {@code envoy.service.discovery.v3.Resource} (A27), unwrapped. */
  private static Any unwrap(Any any, XdsResourceType<?> type) throws XdsResourceException {
    if (!any.getTypeUrl().equals(WRAPPED_RESOURCE_TYPE_URL)) {
      return any;
    }
    try {
      return Resource.parseFrom(any.getValue()).getResource();
    } catch (InvalidProtocolBufferException e) {
      throw new XdsResourceException(
          type.typeName() + ": a wrapped resource cannot be decoded: " + e.getMessage());
    }
  }
}
