package dev.tern.benchmarks.qps;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.Grpc;
import dev.tern.LoadBalancerRegistry;
import dev.tern.ManagedChannel;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.interop.testing.BenchmarkServiceTern;
import dev.tern.interop.testing.SimpleRequest;
import dev.tern.interop.testing.SimpleResponse;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.StreamObserver;
import dev.tern.testtools.cli.CommandLine;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * The qps benchmark client, flag-compatible with grpc-java's {@code AsyncClient}: keeps {@code
 * --outstanding_rpcs} calls in flight on each of {@code --channels} channels for {@code
 * --warmup_duration} and then {@code --duration} seconds, recording each call's latency in an
 * HdrHistogram, and prints the same summary block grpc-java's tool prints. {@code --help} lists the
 * flags.
 *
 * <p>Beyond grpc-java's flags: {@code --target=TARGET} instead of {@code --address} connects each
 * channel to any Tern target (e.g. {@code ipv4:127.0.0.2:P1,127.0.0.3:P2,127.0.0.4:P3}), and {@code
 * --lb_policy=NAME} picks the channels' load-balancing policy (default: the channel's own, {@code
 * pick_first}). With {@code --target} the summary is followed by one {@code Calls answered by
 * HOST:PORT: N} line per server (see {@link CallsByServer}). {@link GrpcJavaBalancedClient} is
 * grpc-java's counterpart for such runs. {@code --unary_method=SERVICE/METHOD} sends the unary
 * calls (the same messages) to another method name: {@code bin/bench-compare}'s client part points
 * it at a path that nghttpd answers with a static gRPC response. A unary call counts (its latency
 * is recorded) only when it ended with status OK.
 *
 * <p>Thread-safety: the loops run on the channels' callback threads and share only {@link
 * ClosedLoops} and {@link CallsByServer}, both thread-safe; everything else belongs to the main
 * thread.
 */
public final class QpsClient {
  /** The flags; {@code --help} prints them. */
  static final CommandLine FLAGS =
      LoadFlags.declare(
              CommandLine.builder(
                      "qps-client",
                      "Tern's qps benchmark client (grpc-java AsyncClient's flags and summary):"
                          + " closed-loop calls to a qps server, then latencies and QPS")
                  .flag("address", "HOST:PORT", "localhost:8080", "the server")
                  .flag(
                      "target",
                      "TARGET",
                      null,
                      "instead of --address: any Tern target, e.g. ipv4:127.0.0.2:P1,127.0.0.3:P2;\n"
                          + "prints calls answered per server after the summary (warm-up"
                          + " included)")
                  .flag(
                      "lb_policy",
                      "NAME",
                      "pick_first",
                      "load-balancing policy: pick_first, round_robin, least_request"))
          .bool("streaming_rpcs", "ping-pong on bidi streams instead of unary calls")
          .bool(
              "heap_per_call",
              "after the summary, 'Client heap bytes per call: N', the heap this JVM's\n"
                  + "threads allocated in the measured window over its calls")
          .flag("transport", Transport.FLAG_VALUES, "nio", Transport.FLAG_HELP)
          .flag(
              "save_histogram", "FILE", null, "write the latency distribution (microseconds) there")
          .note(LoadFlags.EXIT_STATUS)
          .example("bin/qps-client --address=127.0.0.1:8080 --warmup_duration=2 --duration=10");

  /** How long the call that checks the server is there may take. */
  private static final int FIRST_CALL_DEADLINE_SECONDS = 10;

  private final ClosedLoops loops;
  private final MethodDescriptor<SimpleRequest, SimpleResponse> unaryMethod;
  private final CallsByServer callsByServer;
  private final AllocatedBytes heap;
  private final long[] heapWindow = new long[2];

  private QpsClient(
      ClosedLoops loops,
      MethodDescriptor<SimpleRequest, SimpleResponse> unaryMethod,
      CallsByServer callsByServer,
      AllocatedBytes heap) {
    this.loops = loops;
    this.unaryMethod = unaryMethod;
    this.callsByServer = callsByServer;
    this.heap = heap;
  }

  /**
   * Counts the call's server if this run counts them (that is, with {@code --target}): the remote
   * address of the transport that carried {@code call}.
   */
  private void countServer(ClientCall<?, ?> call) {
    if (callsByServer != null) {
      callsByServer.record(call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
    }
  }

  /**
   * The unary method at {@code fullName} ({@code --unary_method}): the benchmark service's {@code
   * UnaryCall}, under another name if asked.
   */
  static MethodDescriptor<SimpleRequest, SimpleResponse> unaryMethod(String fullName) {
    MethodDescriptor<SimpleRequest, SimpleResponse> unaryCall =
        BenchmarkServiceTern.getUnaryCallMethod();
    return fullName.equals(unaryCall.getFullMethodName())
        ? unaryCall
        : unaryCall.toBuilder().setFullMethodName(fullName).build();
  }

  /**
   * One closed loop: a call, its answer, the next call, until the run stops. Each call is made as
   * the generated stub makes it, keeping the {@link ClientCall} so that its server can be counted.
   * A call counts (its latency is recorded) only once it ended with status OK, in {@link
   * #onCompleted}: an answer followed by an error status is a failure, not a call.
   */
  private final class UnaryLoop implements StreamObserver<SimpleResponse> {
    private final BenchmarkServiceTern.BenchmarkServiceStub stub;
    private final SimpleRequest request;
    private ClientCall<SimpleRequest, SimpleResponse> call;
    private long startNanos;

    UnaryLoop(BenchmarkServiceTern.BenchmarkServiceStub stub, SimpleRequest request) {
      this.stub = stub;
      this.request = request;
    }

    void next() {
      startNanos = System.nanoTime();
      call = stub.getChannel().newCall(unaryMethod, stub.getCallOptions());
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
      countServer(call);
      if (loops.running()) {
        next();
      } else {
        loops.ended();
      }
    }
  }

  /** One ping-pong stream: a request, its answer, the next request, until the run stops. */
  private final class StreamingLoop implements StreamObserver<SimpleResponse> {
    private final SimpleRequest request;
    private ClientCall<SimpleRequest, SimpleResponse> call;
    private StreamObserver<SimpleRequest> requests;
    private long startNanos;

    StreamingLoop(SimpleRequest request) {
      this.request = request;
    }

    void start(BenchmarkServiceTern.BenchmarkServiceStub stub) {
      call =
          stub.getChannel()
              .newCall(BenchmarkServiceTern.getStreamingCallMethod(), stub.getCallOptions());
      requests = ClientCalls.asyncBidiStreamingCall(call, this);
      startNanos = System.nanoTime();
      requests.onNext(request);
    }

    @Override
    public void onNext(SimpleResponse value) {
      loops.recordLatency(startNanos);
      countServer(call);
      if (loops.running()) {
        startNanos = System.nanoTime();
        requests.onNext(request);
      } else {
        requests.onCompleted();
      }
    }

    @Override
    public void onError(Throwable t) {
      loops.failed(t);
    }

    @Override
    public void onCompleted() {
      loops.ended();
    }
  }

  private Histogram run(
      List<ManagedChannel> channels,
      int outstanding,
      SimpleRequest request,
      boolean streaming,
      int warmupSeconds,
      int durationSeconds)
      throws InterruptedException {
    for (ManagedChannel channel : channels) {
      BenchmarkServiceTern.BenchmarkServiceStub stub = BenchmarkServiceTern.newStub(channel);
      for (int i = 0; i < outstanding; i++) {
        if (streaming) {
          new StreamingLoop(request).start(stub);
        } else {
          new UnaryLoop(stub, request).next();
        }
      }
    }
    return loops.measure(
        warmupSeconds,
        durationSeconds,
        () -> heapWindow[0] = heap == null ? 0 : heap.total(),
        () -> heapWindow[1] = heap == null ? 0 : heap.total());
  }

  /**
   * Runs {@code calls} ping-pong streams of {@code request} on {@code channel} into {@code loops},
   * as {@code --streaming_rpcs} does, and returns the measured window's latencies ({@link
   * ClosedLoops#measure}); for {@link LossProbe}.
   */
  static Histogram pingPongs(
      ClosedLoops loops,
      ManagedChannel channel,
      int calls,
      SimpleRequest request,
      int warmupSeconds,
      int durationSeconds)
      throws InterruptedException {
    return new QpsClient(loops, BenchmarkServiceTern.getUnaryCallMethod(), null, null)
        .run(List.of(channel), calls, request, true, warmupSeconds, durationSeconds);
  }

  /** Entry point; see {@link #FLAGS}. Exits with {@link #run}'s status. */
  public static void main(String[] args) throws Exception {
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Runs the benchmark the flags describe and prints the summary block to {@code out} (followed,
   * with {@code --target}, by the calls answered per server), or the help for {@code --help}.
   *
   * @return 0 when every call succeeded (or after {@code --help}); 1 after a one-line report to
   *     {@code err} when the first call could not reach the server, or when any call failed or none
   *     succeeded; 2 after a one-line message naming the flag to {@code err} if a flag is bad
   */
  static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
    CommandLine.Values flags;
    LoadFlags load;
    String target;
    Transport transport;
    try {
      flags = FLAGS.parse(args);
      if (flags.has("address") && flags.has("target")) {
        throw FLAGS.usageError("--address and --target exclude each other");
      }
      target = flags.has("target") ? flags.string("target") : null;
      InetSocketAddress address = target == null ? parseAddress(flags.string("address")) : null;
      String lbPolicy = flags.string("lb_policy");
      if (LoadBalancerRegistry.getDefaultRegistry().getProvider(lbPolicy) == null) {
        throw FLAGS.usageError(
            "--lb_policy="
                + lbPolicy
                + " is not a registered policy; known: "
                + LoadBalancerRegistry.getDefaultRegistry().policyNames());
      }
      load = LoadFlags.of(FLAGS, flags);
      transport = transport(flags.string("transport"));
      List<ManagedChannel> channels = new ArrayList<>();
      try {
        for (int i = 0; i < load.channels(); i++) {
          NettyChannelBuilder builder =
              transport
                  .configure(
                      target != null
                          ? NettyChannelBuilder.forTarget(target)
                          : NettyChannelBuilder.forAddress(
                              address.getHostString(), address.getPort()))
                  .usePlaintext()
                  .defaultLoadBalancingPolicy(lbPolicy);
          if (load.directExecutor()) {
            builder.directExecutor();
          }
          try {
            channels.add(builder.build());
          } catch (IllegalArgumentException e) { // a target no resolver accepts
            throw FLAGS.usageError("--target: " + e.getMessage());
          }
        }
        String server = target != null ? target : flags.string("address");
        return measure(
            channels, load, flags.bool("streaming_rpcs"), server, target != null, flags, out, err);
      } finally {
        for (ManagedChannel channel : channels) {
          channel.shutdownNow();
        }
        for (ManagedChannel channel : channels) {
          channel.awaitTermination(5, TimeUnit.SECONDS);
        }
        transport.close();
      }
    } catch (CommandLine.Exit exit) {
      return exit.report(out, err);
    }
  }

  /**
   * Checks with one call that {@code server} answers, runs the loops and prints the summary.
   * Returns the exit status {@link #run} describes.
   */
  private static int measure(
      List<ManagedChannel> channels,
      LoadFlags load,
      boolean streaming,
      String server,
      boolean countServers,
      CommandLine.Values flags,
      PrintStream out,
      PrintStream err)
      throws Exception {
    SimpleRequest request = load.request();
    MethodDescriptor<SimpleRequest, SimpleResponse> unaryMethod = unaryMethod(load.unaryMethod());
    try {
      ClientCalls.blockingUnaryCall(
          channels.get(0),
          unaryMethod,
          CallOptions.DEFAULT.withDeadlineAfter(FIRST_CALL_DEADLINE_SECONDS, TimeUnit.SECONDS),
          request);
    } catch (StatusRuntimeException e) {
      Status status = e.getStatus();
      err.println(FLAGS.callFailure(server, status.getCode().name(), details(status)));
      return 1;
    }
    CallsByServer callsByServer = countServers ? new CallsByServer() : null;
    ClosedLoops loops = new ClosedLoops(load.loops());
    QpsClient client =
        new QpsClient(
            loops,
            unaryMethod,
            callsByServer,
            flags.bool("heap_per_call") ? new AllocatedBytes() : null);
    Histogram histogram =
        client.run(
            channels,
            load.outstanding(),
            request,
            streaming,
            load.warmupSeconds(),
            load.durationSeconds());
    ClosedLoops.printSummary(
        out,
        load.channels(),
        load.outstanding(),
        load.serverPayload(),
        load.clientPayload(),
        histogram,
        histogram.getEndTimeStamp());
    if (client.heap != null) {
      AllocatedBytes.printPerCall(
          out, "Client", client.heapWindow[1] - client.heapWindow[0], histogram.getTotalCount());
    }
    if (callsByServer != null) {
      callsByServer.print(out);
    }
    String histogramFile = flags.string("save_histogram");
    if (histogramFile != null) {
      saveHistogram(histogram, histogramFile);
    }
    return exitStatus(loops, histogram, err);
  }

  /**
   * 0 when calls succeeded and none failed; else 1, after {@link ClosedLoops#reportFailures} or a
   * line saying that no call succeeded. Shared with {@link GrpcJavaBalancedClient}.
   */
  static int exitStatus(ClosedLoops loops, Histogram histogram, PrintStream err) {
    boolean failed = loops.reportFailures(FLAGS.program(), err);
    if (histogram.getTotalCount() == 0) {
      err.println(FLAGS.program() + ": no call succeeded in the measured window");
      return 1;
    }
    return failed ? 1 : 0;
  }

  /** The status's description, and its cause's message if it has one. */
  private static String details(Status status) {
    String text = status.getDescription();
    if (status.getCause() != null && status.getCause().getMessage() != null) {
      text += " (" + status.getCause().getMessage() + ")";
    }
    return text;
  }

  private static InetSocketAddress parseAddress(String address) {
    try {
      return Transport.parseAddress(address);
    } catch (IllegalArgumentException e) {
      throw FLAGS.usageError(e.getMessage());
    }
  }

  private static Transport transport(String name) {
    try {
      return Transport.named(name);
    } catch (IllegalArgumentException e) {
      throw FLAGS.usageError(e.getMessage());
    }
  }

  private static void saveHistogram(Histogram histogram, String file) throws IOException {
    try (PrintStream out = new PrintStream(new FileOutputStream(file), true, "UTF-8")) {
      histogram.outputPercentileDistribution(out, 1000.0);
    }
  }
}
