package dev.tern.benchmarks.qps;

import com.google.protobuf.ByteString;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.StatusRuntimeException;
import io.grpc.benchmarks.proto.BenchmarkServiceGrpc;
import io.grpc.benchmarks.proto.Messages.Payload;
import io.grpc.benchmarks.proto.Messages.SimpleRequest;
import io.grpc.benchmarks.proto.Messages.SimpleResponse;
import io.grpc.stub.StreamObserver;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * A qps client written against grpc-java's {@code io.grpc} API only, {@link ProviderQpsServer}'s
 * peer in the bridge benchmark (issue 38; {@code bin/bench-compare --bridge}). grpc-java's own
 * {@code AsyncClient} builds its channels with {@code NettyChannelBuilder} (or {@code
 * OkHttpChannelBuilder}) directly, past the provider API the bridge plugs into; this one calls
 * {@link Grpc#newChannelBuilderForAddress}, so the class path alone decides whether its calls run
 * on grpc-java's transport or on Tern. Its first line names the channel builder and channel classes
 * the provider gave.
 *
 * <p>The load is {@link QpsClient}'s, with grpc-java's generated {@code BenchmarkService} stub:
 * {@code --outstanding_rpcs} closed loops (unary calls, or ping-pong rounds on a bidi stream with
 * {@code --streaming_rpcs}) on each of {@code --channels} channels, timed by the same {@link
 * ClosedLoops} and summed up in the same block, then {@code Client heap bytes per call: N}, the
 * bytes this JVM's threads allocated in the measured window ({@link AllocatedBytes}) over the calls
 * it completed. As in grpc-java's tools, unless {@code --directexecutor} the channels share a
 * {@link ForkJoinPool} with one thread per core for their callbacks. Flags: {@code --help}.
 *
 * <p>Thread-safety: the loops run on the channels' callback threads and share only the thread-safe
 * {@link ClosedLoops}; everything else belongs to the main thread.
 */
public final class ProviderQpsClient {
  private static final String PROGRAM = "ProviderQpsClient";

  /** How long the call that checks the server is there may take. */
  private static final int FIRST_CALL_DEADLINE_SECONDS = 10;

  private ProviderQpsClient() {}

  /** One closed loop of unary calls: a call, its answer, the next call, until the run stops. */
  private static final class UnaryLoop implements StreamObserver<SimpleResponse> {
    private final BenchmarkServiceGrpc.BenchmarkServiceStub stub;
    private final SimpleRequest request;
    private final ClosedLoops loops;
    private long startNanos;

    UnaryLoop(
        BenchmarkServiceGrpc.BenchmarkServiceStub stub, SimpleRequest request, ClosedLoops loops) {
      this.stub = stub;
      this.request = request;
      this.loops = loops;
    }

    void next() {
      startNanos = System.nanoTime();
      stub.unaryCall(request, this);
    }

    @Override
    public void onNext(SimpleResponse value) {
      loops.recordLatency(startNanos);
    }

    @Override
    public void onError(Throwable t) {
      loops.failed(t);
    }

    @Override
    public void onCompleted() {
      if (loops.running()) {
        next();
      } else {
        loops.ended();
      }
    }
  }

  /** One ping-pong stream: a request, its answer, the next request, until the run stops. */
  private static final class StreamingLoop implements StreamObserver<SimpleResponse> {
    private final SimpleRequest request;
    private final ClosedLoops loops;
    private StreamObserver<SimpleRequest> requests;
    private long startNanos;

    StreamingLoop(SimpleRequest request, ClosedLoops loops) {
      this.request = request;
      this.loops = loops;
    }

    void start(BenchmarkServiceGrpc.BenchmarkServiceStub stub) {
      requests = stub.streamingCall(this);
      startNanos = System.nanoTime();
      requests.onNext(request);
    }

    @Override
    public void onNext(SimpleResponse value) {
      loops.recordLatency(startNanos);
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

  /** Entry point; see {@link #run}. */
  public static void main(String[] args) throws Exception {
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Runs the load the flags describe and prints the summary block and the heap bytes per call.
   *
   * @return 0 when every call succeeded (or after {@code --help}); 1 after one line to {@code err}
   *     when the server could not be reached, a call failed or none succeeded; 2 after one line
   *     naming the flag if a flag is bad
   */
  static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
    PlainFlags flags =
        new PlainFlags(
                PROGRAM,
                "qps client on grpc-java's io.grpc API only (Grpc.newChannelBuilderForAddress):"
                    + " closed-loop calls on whatever io.grpc.ManagedChannelProvider the class"
                    + " path brings, then latencies, QPS and heap bytes per call")
            .flag("address", "localhost:8080", "HOST:PORT of the server")
            .flag("channels", "4", "channels")
            .flag("outstanding_rpcs", "10", "calls in flight per channel")
            .flag("client_payload", "0", "request payload bytes")
            .flag("server_payload", "0", "response payload bytes")
            .flag("warmup_duration", "10", "seconds of calls before measuring")
            .flag("duration", "60", "measured seconds")
            .bool("streaming_rpcs", "ping-pong on bidi streams instead of unary calls")
            .bool("directexecutor", "run callbacks on the transport's threads");
    String host;
    int port;
    int channelCount;
    int outstanding;
    int clientPayload;
    int serverPayload;
    int warmupSeconds;
    int durationSeconds;
    try {
      flags.parse(args, out, err);
      String address = flags.string("address");
      int colon = address.lastIndexOf(':');
      try {
        host = address.substring(0, Math.max(colon, 0));
        port = Integer.parseInt(address.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw flags.usage(err, "--address must be HOST:PORT, got " + address);
      }
      channelCount = flags.integer("channels", 1, err);
      outstanding = flags.integer("outstanding_rpcs", 1, err);
      clientPayload = flags.integer("client_payload", 0, err);
      serverPayload = flags.integer("server_payload", 0, err);
      warmupSeconds = flags.integer("warmup_duration", 0, err);
      durationSeconds = flags.integer("duration", 1, err);
    } catch (PlainFlags.Exit exit) {
      return exit.status;
    }

    ForkJoinPool appExecutor =
        flags.bool("directexecutor") ? null : AppExecutors.newForkJoinPool("grpc-client-app-");
    List<ManagedChannel> channels = new ArrayList<>();
    try {
      for (int i = 0; i < channelCount; i++) {
        ManagedChannelBuilder<?> builder =
            Grpc.newChannelBuilderForAddress(host, port, InsecureChannelCredentials.create());
        if (appExecutor == null) {
          builder.directExecutor();
        } else {
          builder.executor(appExecutor);
        }
        if (i == 0) {
          out.println(PROGRAM + ": channel builder " + builder.getClass().getName());
        }
        channels.add(builder.build());
      }
      out.println(PROGRAM + ": channel " + channels.get(0).getClass().getName());
      SimpleRequest request =
          SimpleRequest.newBuilder()
              .setResponseSize(serverPayload)
              .setPayload(
                  Payload.newBuilder().setBody(ByteString.copyFrom(new byte[clientPayload])))
              .build();
      try {
        BenchmarkServiceGrpc.newBlockingStub(channels.get(0))
            .withDeadlineAfter(FIRST_CALL_DEADLINE_SECONDS, TimeUnit.SECONDS)
            .unaryCall(request);
      } catch (StatusRuntimeException e) {
        err.println(PROGRAM + ": the server at " + host + ":" + port + " failed a call: " + e);
        return 1;
      }

      ClosedLoops loops = new ClosedLoops(channelCount * outstanding);
      for (ManagedChannel channel : channels) {
        BenchmarkServiceGrpc.BenchmarkServiceStub stub = BenchmarkServiceGrpc.newStub(channel);
        for (int i = 0; i < outstanding; i++) {
          if (flags.bool("streaming_rpcs")) {
            new StreamingLoop(request, loops).start(stub);
          } else {
            new UnaryLoop(stub, request, loops).next();
          }
        }
      }
      AllocatedBytes heap = new AllocatedBytes();
      long[] window = new long[2];
      Histogram histogram =
          loops.measure(
              warmupSeconds,
              durationSeconds,
              () -> window[0] = heap.total(),
              () -> window[1] = heap.total());
      ClosedLoops.printSummary(
          out,
          channelCount,
          outstanding,
          serverPayload,
          clientPayload,
          histogram,
          histogram.getEndTimeStamp());
      AllocatedBytes.printPerCall(out, "Client", window[1] - window[0], histogram.getTotalCount());
      boolean failed = loops.reportFailures(PROGRAM, err);
      if (histogram.getTotalCount() == 0) {
        err.println(PROGRAM + ": no call succeeded in the measured window");
        return 1;
      }
      return failed ? 1 : 0;
    } finally {
      for (ManagedChannel channel : channels) {
        channel.shutdownNow();
      }
      for (ManagedChannel channel : channels) {
        channel.awaitTermination(5, TimeUnit.SECONDS);
      }
      if (appExecutor != null) {
        appExecutor.shutdownNow();
      }
    }
  }
}
