package dev.tern.interop.xds;

import dev.tern.InsecureServerCredentials;
import dev.tern.Server;
import dev.tern.ServerCredentials;
import dev.tern.ServerInterceptors;
import dev.tern.ServerServiceDefinition;
import dev.tern.interop.TestServiceImpl;
import dev.tern.interop.testing.Empty;
import dev.tern.interop.testing.XdsUpdateHealthServiceTern;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.services.AdminServices;
import dev.tern.services.health.HealthStatusManager;
import dev.tern.services.health.v1.HealthCheckResponse.ServingStatus;
import dev.tern.services.reflection.ProtoReflectionService;
import dev.tern.stub.StreamObserver;
import dev.tern.testtools.cli.CommandLine;
import dev.tern.xds.Bootstrap;
import dev.tern.xds.server.XdsServerBuilder;
import dev.tern.xds.server.XdsServerCredentials;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Tern's xDS interop test server ({@code bin/xds-test-server}, flags in {@link #FLAGS}), as grpc's
 * xDS test descriptions and grpc-java's {@code XdsTestServer} define it: {@code
 * grpc.testing.TestService} that names itself in its answers and obeys {@code rpc-behavior} headers
 * ({@link RpcBehaviorInterceptor}), and on the maintenance port the health service, {@code
 * XdsUpdateHealthService} to flip it, reflection and the admin services.
 *
 * <p>Thread-safety: {@link Running} may be closed from any thread.
 */
public final class XdsTestServer {
  /** The flags; {@code --help} prints them. */
  static final CommandLine FLAGS =
      CommandLine.builder(
              "xds-test-server",
              "Tern's xDS interop test server: TestService with rpc-behavior, plus maintenance")
          .flag("port", "N", "8080", "the TestService port; 0 picks a free one")
          .flag(
              "maintenance_port",
              "N",
              null,
              "the port of health, XdsUpdateHealthService, reflection and channelz;\n"
                  + "when not given, they are served on --port")
          .flag("server_id", "ID", "tern_server", "the server_id in every SimpleResponse")
          .flag(
              "host_name_override",
              "NAME",
              null,
              "the hostname to answer with; when not given, this machine's hostname")
          .flag(
              "bind_host",
              "ADDRESS",
              null,
              "Tern only: the one address to listen on; when not given, every address")
          .bool(
              "secure_mode",
              "serve TestService as an xDS-enabled server (its Listener from the control plane\n"
                  + "of GRPC_XDS_BOOTSTRAP, whose server_listener_resource_name_template names it)\n"
                  + "with XdsServerCredentials: TLS from the Listener's DownstreamTlsContext (A29),\n"
                  + "plaintext for chains without one. Needs a --maintenance_port other than --port")
          .note(
              "Prints 'Tern xDS test server listening on port N, maintenance port M' once"
                  + " listening.")
          .note(
              "Exit status: 1 when it cannot listen (or has no usable xDS bootstrap); 2 for a bad"
                  + " flag.")
          .example("bin/xds-test-server --port=8080 --maintenance_port=8081 --server_id=a");

  private XdsTestServer() {}

  /**
   * What to serve, as the flags say.
   *
   * @param xds whether TestService is an xDS-enabled server ({@code --secure_mode})
   * @param bootstrap the xDS bootstrap of an xDS-enabled server; null: the environment's
   */
  record Config(
      String bindHost,
      int port,
      Integer maintenancePort,
      String serverId,
      String hostname,
      boolean xds,
      Bootstrap bootstrap) {
    /** A plain (not xDS-enabled) server. */
    Config(String bindHost, int port, Integer maintenancePort, String serverId, String hostname) {
      this(bindHost, port, maintenancePort, serverId, hostname, false, null);
    }
  }

  /** Entry point; see {@link #FLAGS}. Exits with {@link #run}'s status. */
  public static void main(String[] args) throws Exception {
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Serves what the flags describe until the JVM is stopped.
   *
   * @return 0 after {@code --help}; 1 after a one-line message if it cannot listen; 2 after a
   *     one-line message for a bad flag (such as {@code --secure_mode=true} without a separate
   *     maintenance port)
   */
  static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
    Config config;
    try {
      CommandLine.Values flags = FLAGS.parse(args);
      boolean xds = flags.bool("secure_mode");
      int port = flags.integer("port", 0);
      Integer maintenance =
          flags.has("maintenance_port") ? flags.integer("maintenance_port", 0) : null;
      if (xds && (maintenance == null || (maintenance == port && port != 0))) {
        throw FLAGS.usageError(
            "--secure_mode=true: needs a --maintenance_port other than --port (the xDS server"
                + " serves only TestService)");
      }
      String hostname = flags.string("host_name_override");
      config =
          new Config(
              flags.string("bind_host"),
              port,
              maintenance,
              flags.string("server_id"),
              hostname != null ? hostname : localHostname(),
              xds,
              null);
    } catch (CommandLine.Exit exit) {
      return exit.report(out, err);
    }
    Running running;
    try {
      running = start(config);
    } catch (IOException e) {
      err.println(FLAGS.program() + ": could not serve on port " + config.port() + ": " + e);
      return 1;
    }
    out.println(
        "Tern xDS test server listening on port "
            + running.port()
            + ", maintenance port "
            + running.maintenancePort());
    out.flush();
    Runtime.getRuntime().addShutdownHook(new Thread(running::close));
    running.awaitTermination();
    return 0;
  }

  /** Starts the servers {@code config} describes. */
  static Running start(Config config) throws IOException {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    HealthStatusManager health = new HealthStatusManager();
    Server main = null;
    Server maintenance = null;
    try {
      ServerServiceDefinition testService =
          ServerInterceptors.intercept(
              new TestServiceImpl(scheduler).bindService(),
              new RpcBehaviorInterceptor(config.hostname(), config.serverId(), scheduler));
      boolean shared =
          !config.xds()
              && (config.maintenancePort() == null
                  || (config.maintenancePort() == config.port() && config.port() != 0));
      if (config.xds()) {
        main =
            xdsServer(config.bindHost(), config.port(), config.bootstrap())
                .addService(testService)
                .build()
                .start();
        maintenance =
            addMaintenance(builder(config.bindHost(), config.maintenancePort()), health)
                .build()
                .start();
      } else if (shared) {
        main =
            addMaintenance(
                    builder(config.bindHost(), config.port()).addService(testService), health)
                .build()
                .start();
      } else {
        main = builder(config.bindHost(), config.port()).addService(testService).build().start();
        maintenance =
            addMaintenance(builder(config.bindHost(), config.maintenancePort()), health)
                .build()
                .start();
      }
      return new Running(main, maintenance, scheduler, health);
    } catch (IOException | RuntimeException e) {
      if (main != null) {
        main.shutdownNow();
      }
      scheduler.shutdownNow();
      throw e;
    }
  }

  /**
   * TestService's server as an xDS-enabled one, on every address or on {@code bindHost} alone, with
   * {@link XdsServerCredentials} (TLS from the control plane, else plaintext).
   */
  private static XdsServerBuilder xdsServer(String bindHost, int port, Bootstrap bootstrap) {
    ServerCredentials credentials = XdsServerCredentials.create(InsecureServerCredentials.create());
    XdsServerBuilder builder =
        bindHost == null
            ? XdsServerBuilder.forPort(port, credentials)
            : XdsServerBuilder.forAddress(new InetSocketAddress(bindHost, port), credentials);
    if (bootstrap != null) {
      builder.bootstrap(bootstrap);
    }
    return builder;
  }

  private static NettyServerBuilder builder(String host, int port) {
    return host == null
        ? NettyServerBuilder.forPort(port)
        : NettyServerBuilder.forAddress(new InetSocketAddress(host, port));
  }

  private static NettyServerBuilder addMaintenance(
      NettyServerBuilder builder, HealthStatusManager health) {
    builder
        .addService(health.getHealthService())
        .addService(new HealthUpdater(health))
        .addService(ProtoReflectionService.v1());
    return AdminServices.addTo(builder);
  }

  private static String localHostname() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }

  /** {@code XdsUpdateHealthService}: sets the whole server's health. Thread-safe. */
  private static final class HealthUpdater
      extends XdsUpdateHealthServiceTern.XdsUpdateHealthServiceImplBase {
    private final HealthStatusManager health;

    HealthUpdater(HealthStatusManager health) {
      this.health = health;
    }

    @Override
    public void setServing(Empty request, StreamObserver<Empty> responseObserver) {
      set(ServingStatus.SERVING, responseObserver);
    }

    @Override
    public void setNotServing(Empty request, StreamObserver<Empty> responseObserver) {
      set(ServingStatus.NOT_SERVING, responseObserver);
    }

    private void set(ServingStatus status, StreamObserver<Empty> responseObserver) {
      health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, status);
      responseObserver.onNext(Empty.getDefaultInstance());
      responseObserver.onCompleted();
    }
  }

  /** The started servers. Thread-safe: the servers are; {@link #close} may run more than once. */
  static final class Running implements AutoCloseable {
    private final Server main;
    private final Server maintenance;
    private final ScheduledExecutorService scheduler;
    private final HealthStatusManager health;

    Running(
        Server main,
        Server maintenance,
        ScheduledExecutorService scheduler,
        HealthStatusManager health) {
      this.main = main;
      this.maintenance = maintenance;
      this.scheduler = scheduler;
      this.health = health;
    }

    int port() {
      return main.getPort();
    }

    int maintenancePort() {
      return maintenance != null ? maintenance.getPort() : main.getPort();
    }

    void awaitTermination() throws InterruptedException {
      main.awaitTermination();
    }

    @Override
    public void close() {
      health.enterTerminalState();
      main.shutdownNow();
      if (maintenance != null) {
        maintenance.shutdownNow();
      }
      try {
        main.awaitTermination(5, TimeUnit.SECONDS);
        if (maintenance != null) {
          maintenance.awaitTermination(5, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        scheduler.shutdownNow();
      }
    }
  }
}
