package dev.tern.xds.internal.server;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.ServerTransportFilter;
import dev.tern.Status;
import dev.tern.xds.XdsRouteConfig;
import dev.tern.xds.XdsServerListener;
import dev.tern.xds.XdsServerListener.FilterChain;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Whether the server serves (A36), with which filter chains, and their connections. {@link #serve}
 * (a valid Listener with all its routes) makes it SERVING; {@link #stopServing} makes it
 * NOT_SERVING: every connection is drained and new ones are closed when accepted ({@link
 * #isServing}, asked by the transport before it writes a byte). A chain that changes or goes away
 * has its connections drained; an unchanged one keeps them, with its routes updated in place.
 *
 * <p>Thread-safety: {@link #serve} and {@link #stopServing} come from the xDS client's
 * synchronization context, {@link #admit} and {@link #release} from transport threads; one lock
 * guards the chains and their connections, so a connection is admitted either before a change (and
 * drained by it) or after (and given the new chains). Connections are drained and the
 * serving-status callbacks called outside the lock. (The builder's default callbacks log the
 * changes.)
 */
final class ServingState {
  private final Runnable onServing;
  private final Consumer<Throwable> onNotServing;
  private final long drainGraceNanos;
  private final Object lock = new Object();

  @GuardedBy("lock")
  private XdsServerListener listener;

  @GuardedBy("lock")
  private Map<FilterChain, ChainConfig> chains = Map.of();

  @GuardedBy("lock")
  private Status notServing;

  /** The TLS of the chains (A29); set when the server starts. */
  @GuardedBy("lock")
  private ChainSecurity security;

  /** Whether onServing / onNotServing was last called (null: neither yet). */
  @GuardedBy("lock")
  private Boolean reported;

  ServingState(Runnable onServing, Consumer<Throwable> onNotServing, long drainGraceNanos) {
    this.onServing = onServing;
    this.onNotServing = onNotServing;
    this.drainGraceNanos = drainGraceNanos;
    this.notServing = Status.UNAVAILABLE.withDescription("xDS server not started");
  }

  /** The server started and waits for its Listener {@code resourceName}. */
  void waitFor(String resourceName, ChainSecurity security) {
    synchronized (lock) {
      this.security = security;
      if (reported == null) {
        notServing =
            Status.UNAVAILABLE.withDescription(
                "xDS server not serving yet: waiting for Listener \"" + resourceName + "\"");
      }
    }
  }

  /** Serves {@code next}: each chain with its routes ({@code routesOf} a chain). */
  void serve(XdsServerListener next, Function<FilterChain, XdsRouteConfig> routesOf) {
    List<ServerTransportFilter.Connection> toDrain = new ArrayList<>();
    boolean report;
    synchronized (lock) {
      Map<FilterChain, ChainConfig> nextChains = new LinkedHashMap<>();
      for (FilterChain chain : next.allFilterChains()) {
        ChainConfig config = chains.get(chain);
        if (config == null) {
          config =
              new ChainConfig(chain, routesOf.apply(chain), security.credentialsFor(chain.tls()));
        } else {
          config.setRoutes(routesOf.apply(chain));
        }
        nextChains.put(chain, config);
      }
      for (ChainConfig old : chains.values()) {
        if (nextChains.get(old.chain) != old) {
          toDrain.addAll(old.connections);
        }
      }
      listener = next;
      chains = nextChains;
      notServing = null;
      report = !Boolean.TRUE.equals(reported);
      reported = Boolean.TRUE;
    }
    drain(toDrain);
    if (report) {
      onServing.run();
    }
  }

  /** Stops serving: drains every connection, refuses new ones with {@code reason}. */
  void stopServing(Status reason) {
    List<ServerTransportFilter.Connection> toDrain = new ArrayList<>();
    boolean report;
    synchronized (lock) {
      for (ChainConfig config : chains.values()) {
        toDrain.addAll(config.connections);
      }
      listener = null;
      chains = Map.of();
      notServing = reason;
      report = !Boolean.FALSE.equals(reported);
      reported = Boolean.FALSE;
    }
    drain(toDrain);
    if (report) {
      onNotServing.accept(reason.asException());
    }
  }

  /**
   * Tells the serving-status listener of a problem while not serving yet (it stays not serving),
   * unless it was told already.
   */
  void reportNotServing(Status reason) {
    synchronized (lock) {
      if (reported != null) {
        return;
      }
      notServing = reason;
      reported = Boolean.FALSE;
    }
    onNotServing.accept(reason.asException());
  }

  /** Whether it serves now: a Listener with all its routes, and not stopped since. */
  boolean isServing() {
    synchronized (lock) {
      return notServing == null;
    }
  }

  /**
   * The chain a connection accepted now would get, before its handshake; null if none (not serving,
   * or no chain matches). It is not admitted yet: see {@link #admit}.
   */
  ChainConfig select(InetAddress destination, InetAddress source, int sourcePort) {
    synchronized (lock) {
      if (notServing != null) {
        return null;
      }
      FilterChain chain = FilterChainSelector.select(listener, destination, source, sourcePort);
      return chain == null ? null : chains.get(chain);
    }
  }

  /**
   * The chain of a new connection, which is then tracked for draining; or null after refusing it
   * (not serving, or no chain matches).
   *
   * @param accepted the chain {@link #select} chose when the connection was accepted (its TLS was
   *     that chain's), or null if the connection's security did not depend on a chain
   * @param chainRequired whether a connection must have been given its chain when accepted (the
   *     server's TLS comes from its chains)
   */
  ChainConfig admit(
      ServerTransportFilter.Connection connection,
      InetAddress destination,
      InetAddress source,
      int sourcePort,
      ChainConfig accepted,
      boolean chainRequired) {
    Status refusal;
    synchronized (lock) {
      if (notServing == null) {
        FilterChain chain = FilterChainSelector.select(listener, destination, source, sourcePort);
        if (chain != null && !chainRequired && chains.get(chain).tls == null) {
          ChainConfig config = chains.get(chain);
          config.connections.add(connection);
          return config;
        }
        if (chain != null && accepted != null && chains.get(accepted.chain) == accepted) {
          accepted.connections.add(connection);
          return accepted;
        }
        if (chain != null) {
          refusal =
              Status.UNAVAILABLE.withDescription(
                  !chainRequired
                      ? "xDS server: filter chain "
                          + chains.get(chain).describe()
                          + " asks for TLS from the control plane, which this server (not built"
                          + " with XdsServerCredentials) cannot give"
                      : accepted == null
                          ? "xDS server: the connection was accepted while the server was not serving"
                          : "xDS server: the filter chain "
                              + accepted.describe()
                              + " of the connection changed during its handshake");
        } else {
          refusal =
              Status.UNAVAILABLE.withDescription(
                  "No filter chain of Listener \""
                      + listener.name()
                      + "\" matches a connection from "
                      + source.getHostAddress()
                      + ":"
                      + sourcePort
                      + " to "
                      + destination.getHostAddress());
        }
      } else {
        refusal = notServing;
      }
    }
    connection.refuse(refusal);
    return null;
  }

  /** A connection of {@code config} is gone. */
  void release(ChainConfig config, ServerTransportFilter.Connection connection) {
    synchronized (lock) {
      config.connections.remove(connection);
    }
  }

  private void drain(List<ServerTransportFilter.Connection> connections) {
    for (ServerTransportFilter.Connection connection : connections) {
      connection.drain(drainGraceNanos, TimeUnit.NANOSECONDS);
    }
  }
}
