package dev.tern.xds.internal.server;

import dev.tern.Status;
import dev.tern.xds.ResourceWatcher;
import dev.tern.xds.XdsClient;
import dev.tern.xds.XdsListener;
import dev.tern.xds.XdsResourceType;
import dev.tern.xds.XdsRouteConfig;
import dev.tern.xds.XdsServerListener;
import dev.tern.xds.XdsServerListener.FilterChain;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Watches the server's Listener and the RouteConfigurations its filter chains name by RDS, and
 * tells the {@link ServingState} when there is a complete, usable configuration (SERVING) and when
 * there is none (NOT_SERVING). A RouteConfiguration that does not exist serves no routes: the
 * chain's calls fail UNAVAILABLE.
 *
 * <p>Thread-safety: the xDS client calls the watchers one at a time in its synchronization context;
 * the fields are touched only there, after {@link #start}, but for {@code routeWatchers}
 * (concurrent), which {@link #close} also empties from any thread: it cancels the watches, and
 * {@code closed} (volatile) silences late callbacks.
 */
final class ServingWatch {
  private static final XdsRouteConfig NO_ROUTES = new XdsRouteConfig("", List.of());

  private final XdsClient client;
  private final String resourceName;
  private final InetAddress serverIp;
  private final int serverPort;
  private final ServingState state;
  private final ListenerWatcher listenerWatcher = new ListenerWatcher();
  private final Map<String, RouteWatcher> routeWatchers = new ConcurrentHashMap<>();
  private final Map<String, XdsRouteConfig> routes = new HashMap<>();
  private XdsServerListener pending;
  private volatile boolean closed;

  ServingWatch(
      XdsClient client,
      String resourceName,
      InetAddress serverIp,
      int serverPort,
      ServingState state) {
    this.client = client;
    this.resourceName = resourceName;
    this.serverIp = serverIp;
    this.serverPort = serverPort;
    this.state = state;
  }

  void start() {
    client.watch(XdsResourceType.LISTENER, resourceName, listenerWatcher);
  }

  void close() {
    closed = true;
    client.cancelWatch(XdsResourceType.LISTENER, resourceName, listenerWatcher);
    for (Map.Entry<String, RouteWatcher> e : routeWatchers.entrySet()) {
      client.cancelWatch(XdsResourceType.ROUTE_CONFIGURATION, e.getKey(), e.getValue());
    }
    routeWatchers.clear();
  }

  private void onListener(XdsListener resource) {
    XdsServerListener listener = resource.server();
    if (listener == null) {
      notServing(
          "Listener \"" + resourceName + "\" is a client's listener (it has an api_listener)");
      return;
    }
    String mismatch = addressMismatch(listener);
    if (mismatch != null) {
      notServing(mismatch);
      return;
    }
    pending = listener;
    Set<String> wanted = new HashSet<>();
    for (FilterChain chain : listener.allFilterChains()) {
      if (chain.connectionManager().rdsName() != null) {
        wanted.add(chain.connectionManager().rdsName());
      }
    }
    for (String name : new ArrayList<>(routeWatchers.keySet())) {
      if (!wanted.contains(name)) {
        client.cancelWatch(XdsResourceType.ROUTE_CONFIGURATION, name, routeWatchers.remove(name));
        routes.remove(name);
      }
    }
    for (String name : wanted) {
      if (!routeWatchers.containsKey(name)) {
        RouteWatcher watcher = new RouteWatcher(name);
        routeWatchers.put(name, watcher);
        client.watch(XdsResourceType.ROUTE_CONFIGURATION, name, watcher);
      }
    }
    maybeServe();
  }

  private void maybeServe() {
    if (pending == null) {
      return;
    }
    for (FilterChain chain : pending.allFilterChains()) {
      String rds = chain.connectionManager().rdsName();
      if (rds != null && !routes.containsKey(rds)) {
        return; // waiting for its routes
      }
    }
    state.serve(
        pending,
        chain -> {
          XdsListener hcm = chain.connectionManager();
          return hcm.rdsName() != null ? routes.get(hcm.rdsName()) : hcm.inlineRoutes();
        });
  }

  private void notServing(String description) {
    pending = null;
    state.stopServing(Status.UNAVAILABLE.withDescription(description));
  }

  /** Why the Listener is not for this server's address, or null if it is. */
  private String addressMismatch(XdsServerListener listener) {
    InetAddress ip;
    try {
      ip = InetAddress.getByName(listener.host()); // validated as an IP literal: no lookup
    } catch (java.net.UnknownHostException e) {
      ip = null;
    }
    boolean ipMatches =
        ip != null
            && (ip.equals(serverIp) || (ip.isAnyLocalAddress() && serverIp.isAnyLocalAddress()));
    if (ipMatches && listener.port() == serverPort) {
      return null;
    }
    return "Listener \""
        + listener.name()
        + "\" is for "
        + listener.host()
        + ":"
        + listener.port()
        + ", but this server listens on "
        + serverIp.getHostAddress()
        + ":"
        + serverPort;
  }

  private final class ListenerWatcher implements ResourceWatcher<XdsListener> {
    @Override
    public void onChanged(XdsListener resource) {
      if (!closed) {
        onListener(resource);
      }
    }

    @Override
    public void onError(Status error) {
      if (!closed && pending == null) {
        // No Listener yet: say why (the last good one, if any, keeps serving otherwise).
        state.reportNotServing(error);
      }
    }

    @Override
    public void onResourceDoesNotExist(String name) {
      if (!closed) {
        notServing("Listener \"" + name + "\" does not exist");
      }
    }
  }

  private final class RouteWatcher implements ResourceWatcher<XdsRouteConfig> {
    private final String name;

    RouteWatcher(String name) {
      this.name = name;
    }

    @Override
    public void onChanged(XdsRouteConfig resource) {
      if (!closed && routeWatchers.get(name) == this) {
        routes.put(name, resource);
        maybeServe();
      }
    }

    @Override
    public void onError(Status error) {
      // The last good routes (if any) stay; without them the server keeps waiting for them.
    }

    @Override
    public void onResourceDoesNotExist(String resourceName) {
      if (!closed && routeWatchers.get(name) == this) {
        routes.put(name, NO_ROUTES);
        maybeServe();
      }
    }
  }
}
