package dev.tern.xds;

import dev.tern.ManagedChannel;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * An {@link XdsClient}'s link to one control plane (one {@code xds_servers} entry; authorities that
 * list an equal entry share it, A47): the channel, the ADS stream on it, reconnection with
 * back-off, and per type the names last sent and the version and nonce that ACKs and NACKs carry.
 * The client decides what to subscribe here ({@link #subscribe}) and what to answer each response
 * ({@link #ack}, {@link #nack}); this class only keeps the stream's protocol state.
 *
 * <p>A stream is open while some name is subscribed. One that closes is reopened at once if it had
 * received a response, else after the back-off; until a response arrives on a new stream the server
 * counts as unreachable ({@link #unreachable}), which is what makes the client fall back to the
 * next server (A71, with A57's definition of a connectivity failure).
 *
 * <p>Not thread-safe: used only in the client's synchronization context, where the listener is
 * called.
 */
final class ControlPlaneConnection {
  private static final Logger logger = Logger.getLogger(ControlPlaneConnection.class.getName());

  /** What the connection reports to its client, in the synchronization context. */
  interface Listener {
    /** A response arrived; the listener must answer it with {@link #ack} or {@link #nack}. */
    void onResponse(ControlPlaneConnection connection, DiscoveryResponse response);

    /** A request for {@code names} of {@code type} went out (does-not-exist timers start). */
    void onRequestSent(
        ControlPlaneConnection connection, XdsResourceType<?> type, SortedSet<String> names);

    /**
     * The stream closed; {@code connectivityFailure} when it had received no response (A57). The
     * connection reconnects by itself while anything is subscribed.
     */
    void onStreamClosed(
        ControlPlaneConnection connection, Status status, boolean connectivityFailure);
  }

  /** Per type: the names last sent, what the stream last accepted and the last nonce. */
  private static final class TypeState {
    SortedSet<String> names = new TreeSet<>();
    String version = "";
    String nonce = "";
  }

  private final Bootstrap.ServerInfo server;
  private final ManagedChannel channel;
  private final SynchronizationContext syncContext;
  private final ScheduledExecutorService timer;
  private final Backoff backoff;
  private final Node node;
  private final Listener listener;
  private final Map<XdsResourceType<?>, TypeState> types = new LinkedHashMap<>();
  private final AdsStream.Handler handler = new StreamHandler();
  private AdsStream stream;
  private SynchronizationContext.ScheduledHandle reconnect;
  private boolean unreachable;
  private boolean shutdown;

  ControlPlaneConnection(
      Bootstrap.ServerInfo server,
      ManagedChannel channel,
      SynchronizationContext syncContext,
      ScheduledExecutorService timer,
      Backoff backoff,
      Node node,
      Listener listener) {
    this.server = Objects.requireNonNull(server, "server");
    this.channel = Objects.requireNonNull(channel, "channel");
    this.syncContext = syncContext;
    this.timer = timer;
    this.backoff = backoff;
    this.node = node;
    this.listener = listener;
    for (XdsResourceType<?> type : XdsClient.TYPES) {
      types.put(type, new TypeState());
    }
  }

  Bootstrap.ServerInfo server() {
    return server;
  }

  /** The channel to the server (LRS uses it too). */
  ManagedChannel channel() {
    return channel;
  }

  /** Whether the last stream closed before any response and no response has arrived since. */
  boolean unreachable() {
    return unreachable;
  }

  /** Whether a stream is open or a reconnection is pending. */
  boolean active() {
    return stream != null || (reconnect != null && reconnect.isPending());
  }

  /**
   * Makes the server's subscriptions {@code wanted} (types missing: none): sends each type whose
   * names changed, opens a stream if there is none, and ends it (with any pending reconnection) if
   * nothing is wanted any more. Versions are forgotten when the stream ends that way.
   */
  void subscribe(Map<XdsResourceType<?>, SortedSet<String>> wanted) {
    if (shutdown) {
      return;
    }
    boolean any = wanted.values().stream().anyMatch(names -> !names.isEmpty());
    if (!any) {
      stop();
      return;
    }
    List<XdsResourceType<?>> changed = new ArrayList<>();
    for (Map.Entry<XdsResourceType<?>, TypeState> e : types.entrySet()) {
      SortedSet<String> names = wanted.getOrDefault(e.getKey(), new TreeSet<>());
      if (!names.equals(e.getValue().names)) {
        e.getValue().names = new TreeSet<>(names);
        changed.add(e.getKey());
      }
    }
    if (stream == null) {
      if (reconnect == null || !reconnect.isPending()) {
        startStream();
      }
      return; // a new stream asks for everything
    }
    for (XdsResourceType<?> type : changed) {
      send(type, null);
    }
  }

  /** Accepts {@code version} of the type (the response's nonce was kept when it arrived). */
  void ack(XdsResourceType<?> type, String version) {
    types.get(type).version = version;
    send(type, null);
  }

  /** Rejects the type's last response, keeping the version in use. */
  void nack(XdsResourceType<?> type, String detail) {
    send(type, detail);
  }

  /** Ends the stream and any pending reconnection, keeping the channel for a later use. */
  private void stop() {
    if (reconnect != null) {
      reconnect.cancel();
      reconnect = null;
    }
    if (stream != null) {
      stream.cancel("no resource is subscribed from " + server.serverUri() + " any more");
      stream = null;
    }
    for (TypeState state : types.values()) {
      state.names = new TreeSet<>();
      state.version = "";
      state.nonce = "";
    }
    backoff.reset();
    unreachable = false;
  }

  /** Ends everything, the channel included; for {@link XdsClient#close}. */
  void shutdown() {
    stop();
    shutdown = true;
    channel.shutdownNow();
  }

  private void startStream() {
    for (TypeState state : types.values()) {
      state.nonce = "";
    }
    stream = new AdsStream(channel, syncContext, handler);
    stream.start();
    for (Map.Entry<XdsResourceType<?>, TypeState> e : types.entrySet()) {
      if (!e.getValue().names.isEmpty()) {
        send(e.getKey(), null);
      }
    }
  }

  /** Sends the type's names with the accepted version and the last nonce; a NACK if error. */
  private void send(XdsResourceType<?> type, String error) {
    if (stream == null) {
      return; // the next stream asks again
    }
    TypeState state = types.get(type);
    DiscoveryRequest.Builder request =
        DiscoveryRequest.newBuilder()
            .setTypeUrl(type.typeUrl())
            .setVersionInfo(state.version)
            .setResponseNonce(state.nonce)
            .addAllResourceNames(state.names);
    if (!stream.sentNode()) {
      request.setNode(node);
    }
    if (error != null) {
      request.setErrorDetail(
          com.google.rpc.Status.newBuilder()
              .setCode(Status.Code.INVALID_ARGUMENT.value())
              .setMessage(error));
    }
    stream.send(request.build());
    listener.onRequestSent(this, type, state.names);
  }

  private final class StreamHandler implements AdsStream.Handler {
    @Override
    public void onResponse(AdsStream from, DiscoveryResponse response) {
      if (from != stream) {
        return;
      }
      unreachable = false;
      XdsResourceType<?> type = XdsClient.typeOf(response.getTypeUrl());
      if (type == null) {
        logger.log(
            Level.WARNING,
            "ignored a response of unknown type {0} from {1}",
            new Object[] {response.getTypeUrl(), server.serverUri()});
      } else {
        types.get(type).nonce = response.getNonce();
        listener.onResponse(ControlPlaneConnection.this, response);
      }
      from.requestNext();
    }

    @Override
    public void onClosed(AdsStream from, Status status) {
      if (from != stream) {
        return;
      }
      stream = null;
      boolean connectivityFailure = !from.receivedResponse();
      long delay;
      if (connectivityFailure) {
        unreachable = true;
        delay = backoff.nextDelayNanos();
      } else {
        backoff.reset();
        delay = 0;
      }
      reconnect =
          syncContext.schedule(
              ControlPlaneConnection.this::startStream, delay, TimeUnit.NANOSECONDS, timer);
      listener.onStreamClosed(ControlPlaneConnection.this, status, connectivityFailure);
    }
  }
}
