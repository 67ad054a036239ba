package dev.tern.interop.xds;

import dev.tern.Grpc;
import dev.tern.InsecureChannelCredentials;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.interop.testing.ClientConfigureRequest.RpcType;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.testtools.cli.CommandLine;
import dev.tern.xds.client.XdsChannelCredentials;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Tern's xDS interop test client ({@code bin/xds-test-client}, flags in {@link #FLAGS}), as grpc's
 * xDS test descriptions and grpc-java's {@code XdsTestClient} define it: sends TestService RPCs at
 * a constant rate ({@link RpcSender}) to {@code --server} (any target; {@code xds:///} through
 * tern-xds's resolver, a dependency of this module), and serves {@code LoadBalancerStatsService}
 * and {@code XdsUpdateClientConfigureService} on {@code --stats_port} ({@link ClientServices}).
 *
 * <p>Thread-safety: {@link Running} may be closed from any thread.
 */
public final class XdsTestClient {
  /** The flags; {@code --help} prints them. */
  static final CommandLine FLAGS =
      CommandLine.builder(
              "xds-test-client",
              "Tern's xDS interop test client: constant-rate RPCs, peers counted for test drivers")
          .flag("server", "TARGET", "localhost:8080", "the target, e.g. xds:///svc or dns:///h:80")
          .flag("stats_port", "N", "8081", "the port of LoadBalancerStatsService and Configure")
          .flag("qps", "N", "1", "RPCs of each type per second, per channel")
          .flag("rpc", "NAME[,NAME]", "UnaryCall", "the RPCs to send: UnaryCall, EmptyCall")
          .flag(
              "metadata",
              "RPC:KEY:VALUE[,...]",
              "",
              "headers to send, e.g. EmptyCall:rpc-behavior:keep-open,UnaryCall:k:v")
          .flag("num_channels", "N", "1", "channels to the target, each sending --qps")
          .flag("rpc_timeout_sec", "N", "20", "every RPC's deadline, in seconds")
          .bool("fail_on_failed_rpcs", "exit 1 when an RPC fails after one succeeded")
          .bool("print_response", "print a line for every RPC that ended")
          .bool(
              "secure_mode",
              "TLS from the control plane (A29): XdsChannelCredentials, plaintext to clusters\n"
                  + "without an UpstreamTlsContext")
          .note("Prints 'Tern xDS test client sending to TARGET, stats on port N' once started.")
          .note("Exit status: 1 after a failed RPC with --fail_on_failed_rpcs; 2 for a bad flag.")
          .example(
              "bin/xds-test-client --server=xds:///svc --stats_port=8081 --qps=100"
                  + " --rpc=UnaryCall,EmptyCall --metadata=EmptyCall:rpc-behavior:sleep-1");

  private XdsTestClient() {}

  /** What the flags ask for. */
  record Settings(
      String target,
      int statsPort,
      int qps,
      int numChannels,
      ClientConfig config,
      boolean failOnFailedRpcs,
      boolean printResponse,
      boolean secureMode) {
    /** Settings without xDS security. */
    Settings(
        String target,
        int statsPort,
        int qps,
        int numChannels,
        ClientConfig config,
        boolean failOnFailedRpcs,
        boolean printResponse) {
      this(target, statsPort, qps, numChannels, config, failOnFailedRpcs, printResponse, false);
    }
  }

  /** Entry point; see {@link #FLAGS}. Exits with {@link #run}'s status. */
  public static void main(String[] args) throws Exception {
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Sends and serves the stats until the JVM is stopped, or until an RPC fails with {@code
   * --fail_on_failed_rpcs}.
   *
   * @return 0 after {@code --help}; 1 after a failed RPC with {@code --fail_on_failed_rpcs} or if
   *     the stats port cannot be served; 2 after a one-line message for a bad flag
   */
  static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
    Settings settings;
    try {
      settings = parse(FLAGS.parse(args));
    } catch (CommandLine.Exit exit) {
      return exit.report(out, err);
    }
    Running running;
    try {
      running = start(settings, out);
    } catch (IOException e) {
      err.println(FLAGS.program() + ": could not serve stats on port " + settings.statsPort());
      return 1;
    }
    out.println(
        "Tern xDS test client sending to "
            + settings.target()
            + ", stats on port "
            + running.statsPort());
    out.flush();
    Runtime.getRuntime().addShutdownHook(new Thread(running::close));
    String failure = running.failure().get();
    running.close();
    err.println(FLAGS.program() + ": " + failure);
    return 1;
  }

  private static Settings parse(CommandLine.Values flags) {
    int timeout = flags.integer("rpc_timeout_sec", 1);
    ClientConfig config;
    try {
      config =
          new ClientConfig(
              ClientConfig.parseTypes(flags.string("rpc")),
              ClientConfig.parseMetadata(flags.string("metadata")),
              timeout);
    } catch (IllegalArgumentException e) {
      throw FLAGS.usageError(e.getMessage());
    }
    return new Settings(
        flags.string("server"),
        flags.integer("stats_port", 0),
        flags.integer("qps", 1),
        flags.integer("num_channels", 1),
        config,
        flags.bool("fail_on_failed_rpcs"),
        flags.bool("print_response"),
        flags.bool("secure_mode"));
  }

  /**
   * Starts the stats server, then the RPCs; lines for {@code --print_response} go to {@code out}.
   */
  static Running start(Settings settings, PrintStream out) throws IOException {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    AtomicReference<ClientConfig> config = new AtomicReference<>(settings.config());
    ClientStats stats = new ClientStats();
    Server statsServer;
    try {
      statsServer =
          NettyServerBuilder.forAddress(new InetSocketAddress(settings.statsPort()))
              .addService(new ClientServices.Stats(stats, scheduler))
              .addService(new ClientServices.Configure(config, settings.config().timeoutSec()))
              .build()
              .start();
    } catch (IOException | RuntimeException e) {
      scheduler.shutdownNow();
      throw e;
    }
    List<ManagedChannel> channels = new ArrayList<>();
    for (int i = 0; i < settings.numChannels(); i++) {
      channels.add(
          settings.secureMode()
              ? Grpc.newChannelBuilder(
                      settings.target(),
                      XdsChannelCredentials.create(InsecureChannelCredentials.create()))
                  .build()
              : NettyChannelBuilder.forTarget(settings.target()).usePlaintext().build());
    }
    CompletableFuture<String> failure = new CompletableFuture<>();
    AtomicBoolean succeeded = new AtomicBoolean();
    RpcSender.Observer observer =
        (type, status, peer) -> {
          if (settings.printResponse()) {
            out.println(describe(type, status, peer));
          }
          if (status.isOk()) {
            succeeded.set(true);
          } else if (settings.failOnFailedRpcs() && succeeded.get()) {
            failure.complete(
                "an RPC failed after one succeeded (--fail_on_failed_rpcs): "
                    + describe(type, status, peer));
          }
        };
    RpcSender sender =
        new RpcSender(channels, settings.qps(), scheduler, config::get, stats, observer);
    sender.start();
    return new Running(statsServer, channels, scheduler, sender, failure);
  }

  private static String describe(RpcType type, Status status, String peer) {
    String method = ClientConfig.methodName(type);
    return status.isOk()
        ? method + " to " + (peer == null ? "(no hostname)" : peer) + ": OK"
        : method + ": " + status.getCode() + ": " + status.getDescription();
  }

  /** A started client. Thread-safe: {@link #close} may run more than once, from any thread. */
  static final class Running implements AutoCloseable {
    private final Server statsServer;
    private final List<ManagedChannel> channels;
    private final ScheduledExecutorService scheduler;
    private final RpcSender sender;
    private final CompletableFuture<String> failure;

    Running(
        Server statsServer,
        List<ManagedChannel> channels,
        ScheduledExecutorService scheduler,
        RpcSender sender,
        CompletableFuture<String> failure) {
      this.statsServer = statsServer;
      this.channels = channels;
      this.scheduler = scheduler;
      this.sender = sender;
      this.failure = failure;
    }

    int statsPort() {
      return statsServer.getPort();
    }

    /** Completes with a description of the RPC that failed under {@code --fail_on_failed_rpcs}. */
    CompletableFuture<String> failure() {
      return failure;
    }

    @Override
    public void close() {
      sender.stop();
      scheduler.shutdownNow();
      channels.forEach(ManagedChannel::shutdownNow);
      statsServer.shutdownNow();
      try {
        for (ManagedChannel channel : channels) {
          channel.awaitTermination(5, TimeUnit.SECONDS);
        }
        statsServer.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
