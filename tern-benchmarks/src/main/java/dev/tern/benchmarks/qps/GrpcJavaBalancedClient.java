package dev.tern.benchmarks.qps;

import dev.tern.interop.testing.SimpleRequest;
import dev.tern.interop.testing.SimpleResponse;
import dev.tern.testtools.cli.CommandLine;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.EquivalentAddressGroup;
import io.grpc.Grpc;
import io.grpc.LoadBalancerRegistry;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.NameResolver;
import io.grpc.NameResolverProvider;
import io.grpc.StatusOr;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * grpc-java's side of the load-balancing benchmark ({@code tern-benchmarks/scripts/rr-compare.sh}):
 * {@link QpsClient}'s unary load, {@code --channels} x {@code --outstanding_rpcs} closed loops
 * timed by the same {@link ClosedLoops} and summed up in the same block, sent through grpc-java
 * 1.79 channels that balance over several servers, with grpc-java's public API only. Flags: {@link
 * #FLAGS} ({@code --help}).
 *
 * <p>grpc-java's own {@code AsyncClient} takes a single {@code --address}, and grpc-java has no
 * resolver for gRPC's {@code ipv4:} target scheme, so this client brings one: {@code
 * --target=ipv4:HOST:PORT,HOST:PORT,...} (the syntax {@code QpsClient --target} takes) is resolved
 * once, to one address group per server, by {@link StaticAddressResolverProvider}, handed to each
 * channel alone (nothing global is registered). {@code --lb_policy} names the channels' policy
 * (default grpc-java's {@code pick_first}). After the summary, one {@code Calls answered by
 * HOST:PORT: N} line per server, as {@code QpsClient --target} prints (see {@link CallsByServer}).
 *
 * <p>{@code --target=ipv4:127.0.0.1:PORT} (one server) with {@code --unary_method} is also
 * grpc-java's client in {@code bin/bench-compare}'s client part: grpc-java's {@code AsyncClient}
 * always calls {@code UnaryCall}, which nghttpd's static answer cannot serve with a gRPC
 * content-type (it takes that from the path's extension), so this client, set up as {@code
 * AsyncClient} is, calls a method name that has one.
 *
 * <p>Threads and calls as grpc-java's {@code AsyncClient} sets them up ({@code
 * io.grpc.benchmarks.Utils.newClientChannel}): each channel has its own NIO event loop group of
 * Netty's default size, and unless {@code --directexecutor} the channels share a {@link
 * ForkJoinPool} in FIFO mode with one thread per core; messages go through grpc-java's protobuf
 * marshaller, as with its generated stubs.
 *
 * <p>Thread-safety: the loops run on the channels' callback threads and share only {@link
 * ClosedLoops} and {@link CallsByServer}, both thread-safe; everything else belongs to the main
 * thread.
 */
public final class GrpcJavaBalancedClient {
  /** The flags; {@code --help} prints them. */
  static final CommandLine FLAGS =
      LoadFlags.declare(
              CommandLine.builder(
                      "GrpcJavaBalancedClient",
                      "grpc-java's side of the load-balancing benchmark: QpsClient's unary load"
                          + " through grpc-java channels that balance over several servers")
                  .flag(
                      "target",
                      "ipv4:HOST:PORT,HOST:PORT,...",
                      null,
                      "the servers (IPv4 literals with ports), resolved once; needed")
                  .flag(
                      "lb_policy",
                      "NAME",
                      "pick_first",
                      "load-balancing policy: pick_first," + " round_robin"))
          .usage(
              "java -cp \"$TERN_CP\" dev.tern.benchmarks.qps.GrpcJavaBalancedClient"
                  + " --target=ipv4:HOST:PORT,HOST:PORT,... [FLAGS]")
          .note(
              "Prints QpsClient's summary block, then calls answered per server (warm-up"
                  + " included).")
          .note(LoadFlags.EXIT_STATUS)
          .example(
              "java -cp \"$TERN_CP\" dev.tern.benchmarks.qps.GrpcJavaBalancedClient"
                  + " --target=ipv4:127.0.0.2:8080,127.0.0.3:8080 --lb_policy=round_robin");

  /** The benchmark service's {@code UnaryCall}, with protobuf's marshallers. */
  static final MethodDescriptor<SimpleRequest, SimpleResponse> UNARY_CALL =
      unaryMethod(LoadFlags.UNARY_CALL);

  /** The unary method at {@code fullName} ({@code --unary_method}), with protobuf's marshallers. */
  static MethodDescriptor<SimpleRequest, SimpleResponse> unaryMethod(String fullName) {
    return MethodDescriptor.<SimpleRequest, SimpleResponse>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(fullName)
        .setRequestMarshaller(ProtoUtils.marshaller(SimpleRequest.getDefaultInstance()))
        .setResponseMarshaller(ProtoUtils.marshaller(SimpleResponse.getDefaultInstance()))
        .build();
  }

  private GrpcJavaBalancedClient() {}

  /**
   * Resolves {@code ipv4:HOST:PORT,HOST:PORT,...} to those addresses, once, one address group per
   * server (so a balancer sees each server as its own endpoint). Registered with one channel
   * builder only. Thread-safe: immutable.
   */
  static final class StaticAddressResolverProvider extends NameResolverProvider {
    static final String SCHEME = "ipv4";

    @Override
    protected boolean isAvailable() {
      return true;
    }

    @Override
    protected int priority() {
      return 5; // the middle of grpc-java's 0-10 scale; the only provider of its registry anyway
    }

    @Override
    public String getDefaultScheme() {
      return SCHEME;
    }

    @Override
    public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
      if (!SCHEME.equals(targetUri.getScheme())) {
        return null;
      }
      List<InetSocketAddress> servers = parseServers(targetUri.getSchemeSpecificPart());
      List<EquivalentAddressGroup> groups = new ArrayList<>();
      for (InetSocketAddress server : servers) {
        groups.add(new EquivalentAddressGroup(server));
      }
      String authority = servers.get(0).getHostString() + ":" + servers.get(0).getPort();
      return new NameResolver() {
        @Override
        public String getServiceAuthority() {
          return authority;
        }

        @Override
        public void start(Listener2 listener) {
          listener.onResult(
              ResolutionResult.newBuilder()
                  .setAddressesOrError(StatusOr.fromValue(groups))
                  .build());
        }

        @Override
        public void shutdown() {}
      };
    }
  }

  /**
   * The servers of {@code HOST:PORT,HOST:PORT,...}, each host an IPv4 literal.
   *
   * @throws IllegalArgumentException naming the flag and the part that is wrong
   */
  static List<InetSocketAddress> parseServers(String servers) {
    List<InetSocketAddress> parsed = new ArrayList<>();
    for (String server : servers.split(",", -1)) {
      int colon = server.lastIndexOf(':');
      String host = colon < 0 ? "" : server.substring(0, colon);
      if (!host.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
        throw new IllegalArgumentException(
            "--target must be ipv4:HOST:PORT,HOST:PORT,... with IPv4 literals, got '"
                + server
                + "'");
      }
      try {
        parsed.add(new InetSocketAddress(host, Integer.parseInt(server.substring(colon + 1))));
      } catch (IllegalArgumentException e) { // also NumberFormatException
        throw new IllegalArgumentException("--target: bad port in '" + server + "'");
      }
    }
    return parsed;
  }

  /**
   * One closed loop: a call, its answer, the next call, until the run stops. A call counts (its
   * latency is recorded) only once it ended with status OK, in {@link #onCompleted}.
   */
  private static final class UnaryLoop implements StreamObserver<SimpleResponse> {
    private final ManagedChannel channel;
    private final MethodDescriptor<SimpleRequest, SimpleResponse> method;
    private final SimpleRequest request;
    private final ClosedLoops loops;
    private final CallsByServer callsByServer;
    private ClientCall<SimpleRequest, SimpleResponse> call;
    private long startNanos;

    UnaryLoop(
        ManagedChannel channel,
        MethodDescriptor<SimpleRequest, SimpleResponse> method,
        SimpleRequest request,
        ClosedLoops loops,
        CallsByServer callsByServer) {
      this.channel = channel;
      this.method = method;
      this.request = request;
      this.loops = loops;
      this.callsByServer = callsByServer;
    }

    void next() {
      startNanos = System.nanoTime();
      call = channel.newCall(method, CallOptions.DEFAULT);
      ClientCalls.asyncUnaryCall(call, request, this);
    }

    @Override
    public void onNext(SimpleResponse value) {}

    @Override
    public void onError(Throwable t) {
      loops.failed(t);
    }

    @Override
    public void onCompleted() {
      loops.recordLatency(startNanos);
      callsByServer.record(call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
      if (loops.running()) {
        next();
      } else {
        loops.ended();
      }
    }
  }

  /** Entry point; see {@link #FLAGS}. Exits with {@link #run}'s status. */
  public static void main(String[] args) throws Exception {
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Runs the benchmark the flags describe and prints the summary block and the calls answered per
   * server to {@code out}, or the help for {@code --help}.
   *
   * @return 0 when every call succeeded (or after {@code --help}); 1 after a one-line report to
   *     {@code err} when any call failed or none succeeded; 2 after a one-line message naming the
   *     flag to {@code err} if a flag is bad
   */
  static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
    String target;
    String lbPolicy;
    LoadFlags load;
    try {
      CommandLine.Values flags = FLAGS.parse(args);
      target = flags.string("target");
      if (target == null || !target.startsWith(StaticAddressResolverProvider.SCHEME + ":")) {
        throw FLAGS.usageError("--target=ipv4:HOST:PORT,HOST:PORT,... is needed, got " + target);
      }
      try {
        parseServers(target.substring(StaticAddressResolverProvider.SCHEME.length() + 1));
      } catch (IllegalArgumentException e) {
        throw FLAGS.usageError(e.getMessage());
      }
      lbPolicy = flags.string("lb_policy");
      if (LoadBalancerRegistry.getDefaultRegistry().getProvider(lbPolicy) == null) {
        throw FLAGS.usageError("--lb_policy=" + lbPolicy + " is not registered with grpc-java");
      }
      load = LoadFlags.of(FLAGS, flags);
    } catch (CommandLine.Exit exit) {
      return exit.report(out, err);
    }

    ForkJoinPool appExecutor = AppExecutors.newForkJoinPool("grpc-client-app-");
    List<NioEventLoopGroup> groups = new ArrayList<>();
    List<ManagedChannel> channels = new ArrayList<>();
    CallsByServer callsByServer = new CallsByServer();
    ClosedLoops loops;
    Histogram histogram;
    try {
      for (int i = 0; i < load.channels(); i++) {
        NioEventLoopGroup group =
            new NioEventLoopGroup(0, new DefaultThreadFactory("grpc-client-elg-", true));
        groups.add(group);
        channels.add(
            newChannel(target, lbPolicy, group, load.directExecutor() ? null : appExecutor));
      }
      SimpleRequest request = load.request();
      MethodDescriptor<SimpleRequest, SimpleResponse> method = unaryMethod(load.unaryMethod());
      loops = new ClosedLoops(load.loops());
      for (ManagedChannel channel : channels) {
        for (int i = 0; i < load.outstanding(); i++) {
          new UnaryLoop(channel, method, request, loops, callsByServer).next();
        }
      }
      histogram = loops.measure(load.warmupSeconds(), load.durationSeconds());
    } finally {
      for (ManagedChannel channel : channels) {
        channel.shutdownNow();
      }
      for (ManagedChannel channel : channels) {
        channel.awaitTermination(5, TimeUnit.SECONDS);
      }
      for (NioEventLoopGroup group : groups) {
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
      }
      appExecutor.shutdownNow();
    }
    ClosedLoops.printSummary(
        out,
        load.channels(),
        load.outstanding(),
        load.serverPayload(),
        load.clientPayload(),
        histogram,
        histogram.getEndTimeStamp());
    callsByServer.print(out);
    return QpsClient.exitStatus(loops, histogram, err);
  }

  // nameResolverFactory is deprecated in favour of the global NameResolverRegistry, but grpc-java
  // 1.79's builder has no per-channel registry, and a global registration would change the
  // resolution of every channel in the JVM (the in-JVM test runs beside other grpc-java users).
  @SuppressWarnings("deprecation")
  private static ManagedChannel newChannel(
      String target, String lbPolicy, NioEventLoopGroup group, ForkJoinPool appExecutor) {
    NettyChannelBuilder builder =
        NettyChannelBuilder.forTarget(target)
            .nameResolverFactory(new StaticAddressResolverProvider())
            .eventLoopGroup(group)
            .channelType(NioSocketChannel.class)
            .usePlaintext();
    if (lbPolicy != null) {
      builder.defaultLoadBalancingPolicy(lbPolicy);
    }
    if (appExecutor == null) {
      builder.directExecutor();
    } else {
      builder.executor(appExecutor);
    }
    return builder.build();
  }
}
