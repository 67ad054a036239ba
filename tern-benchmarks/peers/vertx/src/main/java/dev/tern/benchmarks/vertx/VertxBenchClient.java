package dev.tern.benchmarks.vertx;

import dev.tern.interop.testing.SimpleRequest;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * A closed-loop qps client on Vert.x gRPC's {@link GrpcClient}: the flags and the summary of
 * grpc-java's {@code AsyncClient} (and Tern's {@code QpsClient}), so bin/bench-compare runs and
 * reads it as it runs theirs. {@code --channels} clients, each its own {@code GrpcClient} (so its
 * own HTTP/2 connection) on an event loop of its own, each keeping {@code --outstanding_rpcs} calls
 * in flight: a unary call starts when the one before it ended, and with {@code --streaming_rpcs}
 * each loop is one StreamingCall on which a message is sent when the answer to the one before
 * arrived. Calls ending in the {@code --duration} seconds after {@code --warmup_duration} are
 * counted. Vert.x's default event loops (two per core); callbacks run on them, Vert.x having no
 * executor to choose.
 *
 * <p>Main builds the loops and waits for them; each loop's state is confined to its channel's event
 * loop, and the latch they count down hands their histograms back to main.
 */
public final class VertxBenchClient {
  private static final Set<String> FLAGS =
      Set.of(
          "address",
          "channels",
          "outstanding_rpcs",
          "client_payload",
          "server_payload",
          "duration",
          "warmup_duration",
          "streaming_rpcs");
  // Latencies above a minute are counted as a minute (a call that slow has failed the run anyway).
  private static final long HISTOGRAM_MAX_NANOS = TimeUnit.MINUTES.toNanos(1);
  // How long the loops may still run after the window ended before the run fails, and how long
  // Vert.x may take to close.
  private static final int GRACE_SECONDS = 30;
  private static final int CLOSE_SECONDS = 10;

  private VertxBenchClient() {}

  public static void main(String[] args) throws InterruptedException {
    Settings settings;
    try {
      settings = Settings.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    Vertx vertx = Vertx.vertx();
    int status;
    try {
      status = run(vertx, settings, System.out, System.err);
    } finally {
      closeWithin(vertx, CLOSE_SECONDS);
    }
    System.exit(status);
  }

  /** Closes the client's Vert.x (its connections and event loops), waiting at most seconds. */
  private static void closeWithin(Vertx vertx, int seconds) throws InterruptedException {
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(seconds, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      System.err.println("vertx-bench client: Vert.x did not close cleanly: " + e);
    }
  }

  private static int run(Vertx vertx, Settings settings, PrintStream out, PrintStream err)
      throws InterruptedException {
    long warmupEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(settings.warmupSeconds);
    long measureEnd = warmupEnd + TimeUnit.SECONDS.toNanos(settings.durationSeconds);
    CountDownLatch ended = new CountDownLatch(settings.channels * settings.outstanding);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    SimpleRequest request =
        BenchmarkMethods.request(settings.clientPayload, settings.serverPayload);
    List<Histogram> histograms = new ArrayList<>();
    for (int c = 0; c < settings.channels; c++) {
      Histogram histogram = new Histogram(HISTOGRAM_MAX_NANOS, 3);
      histograms.add(histogram);
      CallLoops loops =
          new CallLoops(
              GrpcClient.client(vertx),
              settings.server,
              request,
              new CallLoops.Window(warmupEnd, measureEnd),
              histogram,
              ended,
              failure);
      // From a thread of its own, each call makes a new context on the next event loop.
      vertx
          .getOrCreateContext()
          .runOnContext(
              start -> {
                for (int i = 0; i < settings.outstanding; i++) {
                  if (settings.streaming) {
                    loops.streaming();
                  } else {
                    loops.unary();
                  }
                }
              });
    }
    long waitSeconds = settings.warmupSeconds + settings.durationSeconds + GRACE_SECONDS;
    boolean allEnded = ended.await(waitSeconds, TimeUnit.SECONDS);
    if (failure.get() != null) {
      err.println("vertx-bench client: a call to " + settings.server + " failed: " + failure.get());
      return 1;
    }
    if (!allEnded) {
      err.printf(
          "vertx-bench client: %d call loops still waiting for %s %d s after the window ended%n",
          ended.getCount(), settings.server, GRACE_SECONDS);
      return 1;
    }
    Histogram all = new Histogram(HISTOGRAM_MAX_NANOS, 3);
    histograms.forEach(all::add);
    if (all.getTotalCount() == 0) {
      err.println("vertx-bench client: no call succeeded in the measured window");
      return 1;
    }
    printSummary(out, settings, all);
    return 0;
  }

  /** The summary block grpc-java's {@code AsyncClient} prints, which bin/bench-compare reads. */
  private static void printSummary(PrintStream out, Settings settings, Histogram histogram) {
    long qps = Math.round(histogram.getTotalCount() / (double) settings.durationSeconds);
    out.printf("Channels:                       %d%n", settings.channels);
    out.printf("Outstanding RPCs per Channel:   %d%n", settings.outstanding);
    out.printf("Server Payload Size:            %d%n", settings.serverPayload);
    out.printf("Client Payload Size:            %d%n", settings.clientPayload);
    out.printf("50%%ile Latency (in micros):     %d%n", micros(histogram, 50));
    out.printf("90%%ile Latency (in micros):     %d%n", micros(histogram, 90));
    out.printf("95%%ile Latency (in micros):     %d%n", micros(histogram, 95));
    out.printf("99%%ile Latency (in micros):     %d%n", micros(histogram, 99));
    out.printf("99.9%%ile Latency (in micros):   %d%n", micros(histogram, 99.9));
    out.printf(
        "Maximum Latency (in micros):    %d%n",
        TimeUnit.NANOSECONDS.toMicros(histogram.getMaxValue()));
    out.printf("QPS:                            %d%n", qps);
  }

  private static long micros(Histogram histogram, double percentile) {
    return TimeUnit.NANOSECONDS.toMicros(histogram.getValueAtPercentile(percentile));
  }

  /** The flags, checked. Immutable. */
  private record Settings(
      SocketAddress server,
      int channels,
      int outstanding,
      int clientPayload,
      int serverPayload,
      int durationSeconds,
      int warmupSeconds,
      boolean streaming) {

    static Settings parse(String[] args) {
      Flags flags = new Flags("vertx-bench client", FLAGS, args);
      if (!flags.has("address")) {
        throw new IllegalArgumentException("vertx-bench client: --address=HOST:PORT is needed");
      }
      Flags.HostPort address = flags.address(null);
      Settings settings =
          new Settings(
              SocketAddress.inetSocketAddress(address.port(), address.host()),
              flags.integer("channels", 4),
              flags.integer("outstanding_rpcs", 10),
              flags.integer("client_payload", 0),
              flags.integer("server_payload", 0),
              flags.integer("duration", 60),
              flags.integer("warmup_duration", 10),
              flags.has("streaming_rpcs"));
      for (String[] positive :
          new String[][] {
            {"channels", "" + settings.channels},
            {"outstanding_rpcs", "" + settings.outstanding},
            {"duration", "" + settings.durationSeconds}
          }) {
        if (positive[1].equals("0")) {
          throw new IllegalArgumentException(
              "vertx-bench client: --" + positive[0] + " must be at least 1");
        }
      }
      return settings;
    }
  }
}
