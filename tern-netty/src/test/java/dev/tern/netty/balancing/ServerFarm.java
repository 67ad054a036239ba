package dev.tern.netty.balancing;

import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.testing.TernCleanupExtension;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Three Tern servers (plaintext, serving {@link ServerNameService}) on 127.0.0.2, 127.0.0.3 and
 * 127.0.0.4 and one port, as three replicas behind one DNS name: the OS picks a free port on the
 * first address and the others bind the same one; if one of them finds it taken, everything bound
 * so far is released and another port is tried. Servers run in this JVM, registered with the test's
 * {@link TernCleanupExtension}, except those asked to run in a {@link ServerProcess} of their own;
 * {@link #close()} kills those (call it from {@code @AfterEach}).
 *
 * <p>Not thread-safe: made and closed by the test thread.
 */
final class ServerFarm implements AutoCloseable {
  static final String HOST_2 = "127.0.0.2";
  static final String HOST_3 = "127.0.0.3";
  static final String HOST_4 = "127.0.0.4";
  static final List<String> HOSTS = List.of(HOST_2, HOST_3, HOST_4);

  /** Ports to try before giving up: another process would have to take each one in between. */
  private static final int PORT_ATTEMPTS = 10;

  private final int port;
  private final Map<String, Server> servers;
  private final Map<String, ServerProcess> processes;

  private ServerFarm(int port, Map<String, Server> servers, Map<String, ServerProcess> processes) {
    this.port = port;
    this.servers = servers;
    this.processes = processes;
  }

  /**
   * Starts the three servers; those on {@code inChildProcess} (not {@link #HOST_2}, which picks the
   * port) run in child processes.
   */
  static ServerFarm start(TernCleanupExtension cleanup, Set<String> inChildProcess)
      throws IOException {
    return start(cleanup, inChildProcess, ServerNameService::definition);
  }

  /**
   * Starts the three servers, those in this JVM serving what {@code services} gives for their host
   * (child processes always serve {@link ServerNameService}).
   */
  static ServerFarm start(
      TernCleanupExtension cleanup,
      Set<String> inChildProcess,
      Function<String, ServerServiceDefinition> services)
      throws IOException {
    if (inChildProcess.contains(HOST_2)) {
      throw new IllegalArgumentException(HOST_2 + " picks the port and runs in this JVM");
    }
    BindException last = null;
    for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
      Map<String, Server> servers = new LinkedHashMap<>();
      Map<String, ServerProcess> processes = new LinkedHashMap<>();
      try {
        Server first = startServer(HOST_2, 0, services);
        servers.put(HOST_2, first);
        int port = ((InetSocketAddress) first.getListenSockets().get(0)).getPort();
        for (String host : HOSTS.subList(1, HOSTS.size())) {
          if (inChildProcess.contains(host)) {
            processes.put(host, ServerProcess.start(host, port));
          } else {
            servers.put(host, startServer(host, port, services));
          }
        }
        servers.values().forEach(cleanup::register);
        return new ServerFarm(port, servers, processes);
      } catch (BindException e) {
        last = e;
        release(servers.values(), processes.values());
      } catch (IOException | RuntimeException | Error e) {
        release(servers.values(), processes.values());
        throw e;
      }
    }
    throw new IOException(
        "no port free on all of " + HOSTS + " in " + PORT_ATTEMPTS + " tries", last);
  }

  /** The port every server listens on. */
  int port() {
    return port;
  }

  /** The server on {@code host}, running in this JVM. */
  Server server(String host) {
    Server server = servers.get(host);
    if (server == null) {
      throw new IllegalArgumentException("no in-JVM server on " + host);
    }
    return server;
  }

  /** The server on {@code host}, running in a child process. */
  ServerProcess process(String host) {
    ServerProcess process = processes.get(host);
    if (process == null) {
      throw new IllegalArgumentException("no server process on " + host);
    }
    return process;
  }

  /** Kills the child processes; the in-JVM servers are left to the cleanup extension. */
  @Override
  public void close() {
    for (ServerProcess process : processes.values()) {
      process.close();
    }
  }

  private static Server startServer(
      String host, int port, Function<String, ServerServiceDefinition> services)
      throws IOException {
    Server server =
        NettyServerBuilder.forAddress(new InetSocketAddress(host, port))
            .addService(services.apply(host))
            .build();
    try {
      return server.start();
    } catch (BindException e) {
      BindException taken = new BindException(host + ":" + port + ": " + e.getMessage());
      taken.initCause(e);
      throw taken;
    }
  }

  private static void release(Iterable<Server> servers, Iterable<ServerProcess> processes) {
    for (ServerProcess process : processes) {
      process.close();
    }
    List<Server> started = new ArrayList<>();
    servers.forEach(started::add);
    for (Server server : started) {
      server.shutdownNow();
    }
    for (Server server : started) {
      try {
        server.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
