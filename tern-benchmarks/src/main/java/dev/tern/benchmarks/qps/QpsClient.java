package dev.tern.benchmarks.qps;

import com.google.protobuf.ByteString;
import dev.tern.ClientCall;
import dev.tern.Grpc;
import dev.tern.LoadBalancerRegistry;
import dev.tern.ManagedChannel;
import dev.tern.interop.testing.BenchmarkServiceTern;
import dev.tern.interop.testing.Payload;
import dev.tern.interop.testing.SimpleRequest;
import dev.tern.interop.testing.SimpleResponse;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.StreamObserver;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
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
 * grpc-java's counterpart for such runs.
 *
 * <p>Thread-safety: the loops run on the channels' callback threads and share only {@link
 * ClosedLoops} and {@link CallsByServer}, both thread-safe; everything else belongs to the main
 * thread.
 */
public final class QpsClient {
  /** What {@code --help} prints. */
  static final String USAGE =
      String.join(
          "\n",
          "Usage: bin/qps-client [FLAGS]   (flags as grpc-java's AsyncClient, plus --target and"
              + " --lb_policy)",
          "  --address=HOST:PORT      the server (default localhost:8080)",
          "  --target=TARGET          instead of --address: any Tern target, e.g."
              + " ipv4:127.0.0.2:P1,127.0.0.3:P2;",
          "                           prints calls answered per server after the summary",
          "                           (warm-up included)",
          "  --lb_policy=NAME         load-balancing policy: pick_first (default), round_robin,",
          "                           least_request",
          "  --channels=N             channels (default 4)",
          "  --outstanding_rpcs=N     calls in flight per channel (default 10)",
          "  --client_payload=BYTES   request payload (default 0)",
          "  --server_payload=BYTES   response payload (default 0)",
          "  --warmup_duration=S      seconds before measuring (default 10)",
          "  --duration=S             measured seconds (default 60)",
          "  --streaming_rpcs         ping-pong on bidi streams instead of unary calls",
          "  --directexecutor         run callbacks on the event loops",
          "  " + Transport.FLAG_HELP,
          "  --save_histogram=FILE    write the latency distribution (microseconds)",
          "  --help                   print this and exit",
          "");

  private final ClosedLoops loops;
  private final CallsByServer callsByServer;

  private QpsClient(ClosedLoops loops, CallsByServer callsByServer) {
    this.loops = loops;
    this.callsByServer = callsByServer;
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
   * One closed loop: a call, its answer, the next call, until the run stops. Each call is made as
   * the generated stub makes it, keeping the {@link ClientCall} so that its server can be counted.
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
      call =
          stub.getChannel()
              .newCall(BenchmarkServiceTern.getUnaryCallMethod(), stub.getCallOptions());
      ClientCalls.asyncUnaryCall(call, request, this);
    }

    @Override
    public void onNext(SimpleResponse value) {
      loops.recordLatency(startNanos);
    }

    @Override
    public void onError(Throwable t) {
      loops.failed("call", t);
    }

    @Override
    public void onCompleted() {
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
      loops.failed("stream", t);
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
    return loops.measure(warmupSeconds, durationSeconds);
  }

  static void printSummary(
      PrintStream out,
      int channels,
      int outstanding,
      int serverPayload,
      int clientPayload,
      Histogram histogram,
      long elapsedMillis) {
    long qps = Math.round(histogram.getTotalCount() * 1000.0 / Math.max(1, elapsedMillis));
    out.printf("Channels:                       %d%n", channels);
    out.printf("Outstanding RPCs per Channel:   %d%n", outstanding);
    out.printf("Server Payload Size:            %d%n", serverPayload);
    out.printf("Client Payload Size:            %d%n", clientPayload);
    out.printf("50%%ile Latency (in micros):     %d%n", micros(histogram.getValueAtPercentile(50)));
    out.printf("90%%ile Latency (in micros):     %d%n", micros(histogram.getValueAtPercentile(90)));
    out.printf("95%%ile Latency (in micros):     %d%n", micros(histogram.getValueAtPercentile(95)));
    out.printf("99%%ile Latency (in micros):     %d%n", micros(histogram.getValueAtPercentile(99)));
    out.printf(
        "99.9%%ile Latency (in micros):   %d%n", micros(histogram.getValueAtPercentile(99.9)));
    out.printf("Maximum Latency (in micros):    %d%n", micros(histogram.getMaxValue()));
    out.printf("QPS:                            %d%n", qps);
  }

  private static long micros(long nanos) {
    return TimeUnit.NANOSECONDS.toMicros(nanos);
  }

  /** Entry point; see the class doc for flags. Exits with status 2 on a bad flag. */
  public static void main(String[] args) throws Exception {
    int status = run(args, System.out, System.err);
    if (status != 0) {
      System.exit(status);
    }
  }

  /**
   * Runs the benchmark the flags describe and prints the summary block to {@code out} (followed,
   * with {@code --target}, by the calls answered per server), or the usage for {@code --help}.
   *
   * @return 0 (also after printing {@link #USAGE} for {@code --help}), or 2 after printing a
   *     message naming the flag to {@code err} if a flag is bad
   */
  static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
    if (List.of(args).contains("--help")) {
      out.print(USAGE);
      return 0;
    }
    Flags flags;
    String target;
    InetSocketAddress address;
    String lbPolicy;
    int channelCount;
    int outstanding;
    int clientPayload;
    int serverPayload;
    int warmupSeconds;
    int durationSeconds;
    boolean direct;
    boolean streaming;
    String transportName;
    try {
      flags =
          Flags.parse(
              args,
              Set.of(
                  "address",
                  "target",
                  "lb_policy",
                  "channels",
                  "outstanding_rpcs",
                  "client_payload",
                  "server_payload",
                  "duration",
                  "warmup_duration",
                  "directexecutor",
                  "streaming_rpcs",
                  "transport",
                  "save_histogram",
                  "help"));
      if (flags.has("address") && flags.has("target")) {
        throw new IllegalArgumentException("--address and --target exclude each other");
      }
      target = flags.string("target", null);
      address =
          target == null ? Transport.parseAddress(flags.string("address", "localhost:8080")) : null;
      lbPolicy = flags.string("lb_policy", null);
      if (lbPolicy != null
          && LoadBalancerRegistry.getDefaultRegistry().getProvider(lbPolicy) == null) {
        throw new IllegalArgumentException(
            "--lb_policy="
                + lbPolicy
                + " is not a registered policy; known: "
                + LoadBalancerRegistry.getDefaultRegistry().policyNames());
      }
      channelCount = positive(flags, "channels", 4);
      outstanding = positive(flags, "outstanding_rpcs", 10);
      clientPayload = notNegative(flags, "client_payload", 0);
      serverPayload = notNegative(flags, "server_payload", 0);
      warmupSeconds = notNegative(flags, "warmup_duration", 10);
      durationSeconds = positive(flags, "duration", 60);
      direct = flags.bool("directexecutor");
      streaming = flags.bool("streaming_rpcs");
      transportName = flags.string("transport", "nio");
    } catch (IllegalArgumentException e) {
      err.println(e.getMessage());
      return 2;
    }
    Transport transport;
    try {
      transport = Transport.named(transportName);
    } catch (IllegalArgumentException e) {
      err.println(e.getMessage());
      return 2;
    }

    List<ManagedChannel> channels = new ArrayList<>();
    CallsByServer callsByServer = target != null ? new CallsByServer() : null;
    Histogram histogram;
    try {
      for (int i = 0; i < channelCount; i++) {
        NettyChannelBuilder builder =
            transport
                .configure(
                    target != null
                        ? NettyChannelBuilder.forTarget(target)
                        : NettyChannelBuilder.forAddress(
                            address.getHostString(), address.getPort()))
                .usePlaintext();
        if (lbPolicy != null) {
          builder.defaultLoadBalancingPolicy(lbPolicy);
        }
        if (direct) {
          builder.directExecutor();
        }
        try {
          channels.add(builder.build());
        } catch (IllegalArgumentException e) { // a target no resolver accepts
          err.println("--target: " + e.getMessage());
          return 2;
        }
      }
      SimpleRequest request =
          SimpleRequest.newBuilder()
              .setResponseSize(serverPayload)
              .setPayload(
                  Payload.newBuilder().setBody(ByteString.copyFrom(new byte[clientPayload])))
              .build();
      ClosedLoops loops = new ClosedLoops(channelCount * outstanding, err);
      histogram =
          new QpsClient(loops, callsByServer)
              .run(channels, outstanding, request, streaming, warmupSeconds, durationSeconds);
    } finally {
      for (ManagedChannel channel : channels) {
        channel.shutdownNow();
      }
      for (ManagedChannel channel : channels) {
        channel.awaitTermination(5, TimeUnit.SECONDS);
      }
      transport.close();
    }
    printSummary(
        out,
        channelCount,
        outstanding,
        serverPayload,
        clientPayload,
        histogram,
        histogram.getEndTimeStamp());
    if (callsByServer != null) {
      callsByServer.print(out);
    }
    String histogramFile = flags.string("save_histogram", null);
    if (histogramFile != null) {
      saveHistogram(histogram, histogramFile);
    }
    return 0;
  }

  static int positive(Flags flags, String name, int defaultValue) {
    int value = flags.integer(name, defaultValue);
    if (value < 1) {
      throw new IllegalArgumentException("--" + name + " must be at least 1, got " + value);
    }
    return value;
  }

  static int notNegative(Flags flags, String name, int defaultValue) {
    int value = flags.integer(name, defaultValue);
    if (value < 0) {
      throw new IllegalArgumentException("--" + name + " must not be negative, got " + value);
    }
    return value;
  }

  private static void saveHistogram(Histogram histogram, String file) throws IOException {
    try (PrintStream out = new PrintStream(new FileOutputStream(file), true, "UTF-8")) {
      histogram.outputPercentileDistribution(out, 1000.0);
    }
  }
}
