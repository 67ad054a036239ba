package dev.tern.benchmarks.qps;

import com.google.protobuf.ByteString;
import dev.tern.ManagedChannel;
import dev.tern.interop.testing.BenchmarkServiceTern;
import dev.tern.interop.testing.Payload;
import dev.tern.interop.testing.SimpleRequest;
import dev.tern.interop.testing.SimpleResponse;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.stub.StreamObserver;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The qps benchmark client, flag-compatible with grpc-java's {@code AsyncClient}: keeps {@code
 * --outstanding_rpcs} calls in flight on each of {@code --channels} channels for {@code
 * --warmup_duration} and then {@code --duration} seconds, recording each call's latency in an
 * HdrHistogram, and prints the same summary block grpc-java's tool prints.
 *
 * <p>Thread-safety: the latency {@link Recorder} and the error stream (a {@link PrintStream}, which
 * locks itself) are written from every channel's callback threads; the run flag is volatile;
 * everything else belongs to the main thread.
 */
public final class QpsClient {
  /** What {@code --help} prints. */
  static final String USAGE =
      String.join(
          "\n",
          "Usage: bin/qps-client [flags] (the flags of grpc-java's AsyncClient)",
          "  --address=HOST:PORT              the server (default localhost:8080)",
          "  --channels=N                     channels to open (default 4)",
          "  --outstanding_rpcs=N             calls in flight on each channel (default 10)",
          "  --client_payload=BYTES           request payload size (default 0)",
          "  --server_payload=BYTES           response payload size (default 0)",
          "  --warmup_duration=S              seconds run before measuring (default 10)",
          "  --duration=S                     seconds measured (default 60)",
          "  --directexecutor                 run call callbacks on the event loops",
          "  --streaming_rpcs                 streaming calls instead of unary calls",
          "  " + Transport.FLAG_HELP,
          "  --save_histogram=FILE            also write the latency histogram to FILE",
          "  --help                           print this and exit",
          "");

  /** Latencies up to one minute, three significant digits, as grpc-java's tool records them. */
  private static final long MAX_LATENCY_NANOS = TimeUnit.MINUTES.toNanos(1);

  private final Recorder recorder = new Recorder(MAX_LATENCY_NANOS, 3);
  private final PrintStream err;
  private volatile boolean running = true;

  private QpsClient(PrintStream err) {
    this.err = err;
  }

  /** One closed loop: a call, its answer, the next call, until the run stops. */
  private final class UnaryLoop implements StreamObserver<SimpleResponse> {
    private final BenchmarkServiceTern.BenchmarkServiceStub stub;
    private final SimpleRequest request;
    private final CountDownLatch done;
    private long startNanos;

    UnaryLoop(
        BenchmarkServiceTern.BenchmarkServiceStub stub,
        SimpleRequest request,
        CountDownLatch done) {
      this.stub = stub;
      this.request = request;
      this.done = done;
    }

    void next() {
      startNanos = System.nanoTime();
      stub.unaryCall(request, this);
    }

    @Override
    public void onNext(SimpleResponse value) {
      recorder.recordValue(Math.min(System.nanoTime() - startNanos, MAX_LATENCY_NANOS));
    }

    @Override
    public void onError(Throwable t) {
      err.println("call failed: " + t);
      done.countDown();
    }

    @Override
    public void onCompleted() {
      if (running) {
        next();
      } else {
        done.countDown();
      }
    }
  }

  /** One ping-pong stream: a request, its answer, the next request, until the run stops. */
  private final class StreamingLoop implements StreamObserver<SimpleResponse> {
    private final SimpleRequest request;
    private final CountDownLatch done;
    private StreamObserver<SimpleRequest> requests;
    private long startNanos;

    StreamingLoop(SimpleRequest request, CountDownLatch done) {
      this.request = request;
      this.done = done;
    }

    void start(BenchmarkServiceTern.BenchmarkServiceStub stub) {
      requests = stub.streamingCall(this);
      startNanos = System.nanoTime();
      requests.onNext(request);
    }

    @Override
    public void onNext(SimpleResponse value) {
      recorder.recordValue(Math.min(System.nanoTime() - startNanos, MAX_LATENCY_NANOS));
      if (running) {
        startNanos = System.nanoTime();
        requests.onNext(request);
      } else {
        requests.onCompleted();
      }
    }

    @Override
    public void onError(Throwable t) {
      err.println("stream failed: " + t);
      done.countDown();
    }

    @Override
    public void onCompleted() {
      done.countDown();
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
    CountDownLatch done = new CountDownLatch(channels.size() * outstanding);
    for (ManagedChannel channel : channels) {
      BenchmarkServiceTern.BenchmarkServiceStub stub = BenchmarkServiceTern.newStub(channel);
      for (int i = 0; i < outstanding; i++) {
        if (streaming) {
          new StreamingLoop(request, done).start(stub);
        } else {
          new UnaryLoop(stub, request, done).next();
        }
      }
    }
    TimeUnit.SECONDS.sleep(warmupSeconds);
    recorder.getIntervalHistogram(); // drops the warm-up
    long start = System.nanoTime();
    TimeUnit.SECONDS.sleep(durationSeconds);
    Histogram measured = recorder.getIntervalHistogram();
    long elapsed = System.nanoTime() - start;
    running = false;
    done.await(30, TimeUnit.SECONDS);
    measured.setStartTimeStamp(0);
    measured.setEndTimeStamp(TimeUnit.NANOSECONDS.toMillis(elapsed));
    return measured;
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
   * Runs the benchmark the flags describe and prints the summary block to {@code out}.
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
    InetSocketAddress address;
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
                  "channels",
                  "outstanding_rpcs",
                  "client_payload",
                  "server_payload",
                  "duration",
                  "warmup_duration",
                  "directexecutor",
                  "streaming_rpcs",
                  "transport",
                  "save_histogram"));
      address = Transport.parseAddress(flags.string("address", "localhost:8080"));
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
    Histogram histogram;
    try {
      for (int i = 0; i < channelCount; i++) {
        NettyChannelBuilder builder =
            transport
                .configure(
                    NettyChannelBuilder.forAddress(address.getHostString(), address.getPort()))
                .usePlaintext();
        if (direct) {
          builder.directExecutor();
        }
        channels.add(builder.build());
      }
      SimpleRequest request =
          SimpleRequest.newBuilder()
              .setResponseSize(serverPayload)
              .setPayload(
                  Payload.newBuilder().setBody(ByteString.copyFrom(new byte[clientPayload])))
              .build();
      histogram =
          new QpsClient(err)
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
    String histogramFile = flags.string("save_histogram", null);
    if (histogramFile != null) {
      saveHistogram(histogram, histogramFile);
    }
    return 0;
  }

  private static int positive(Flags flags, String name, int defaultValue) {
    int value = flags.integer(name, defaultValue);
    if (value < 1) {
      throw new IllegalArgumentException("--" + name + " must be at least 1, got " + value);
    }
    return value;
  }

  private static int notNegative(Flags flags, String name, int defaultValue) {
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
