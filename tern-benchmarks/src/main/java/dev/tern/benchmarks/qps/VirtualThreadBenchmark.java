package dev.tern.benchmarks.qps;

import dev.tern.ServerServiceDefinition;
import dev.tern.interop.testing.BenchmarkServiceTern;
import dev.tern.interop.testing.SimpleRequest;
import dev.tern.interop.testing.SimpleResponse;
import dev.tern.stub.BlockingExecutors;
import dev.tern.testtools.cli.CommandLine;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;

/**
 * Blocking handlers under load: {@code --calls} concurrent unary calls whose server handler blocks
 * (sleeps {@code --sleep_ms}), over Netty on 127.0.0.1, served by one of
 *
 * <ul>
 *   <li>{@code tern-blocking}: Tern's generated blocking interface ({@code
 *       BenchmarkServiceTern.BlockingService}), a virtual thread per call;
 *   <li>{@code grpc-java-virtual}: grpc-java with {@code
 *       executor(Executors.newVirtualThreadPerTaskExecutor())} and a handler that sleeps;
 *   <li>{@code grpc-java-default}: grpc-java with its default executor (a cached pool: one platform
 *       thread per blocked call).
 * </ul>
 *
 * <p>All three get the same client (grpc-java's, asynchronous, one channel) and allow {@code
 * --calls} concurrent streams per connection. Each round sends all calls at once and waits for
 * them; the first {@code --warmup_rounds} are not counted. Printed: throughput (calls/s over the
 * measured rounds), p50/p99/max latency, and, with every call parked in the handler at once, the
 * JVM's heap after a GC and its live thread count. The client shares the JVM but is the same for
 * all three, so differences are the server's; run one system per JVM so that one's garbage and
 * threads do not weigh on the next.
 *
 * <p>Needs JDK 21 or later (virtual threads); the jar is Java 17 bytecode and finds them by
 * reflection. Run by the lead on an idle machine:
 *
 * <pre>
 * for s in tern-blocking grpc-java-virtual grpc-java-default; do
 *   PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH bin/vthread-bench --system=$s
 * done
 * </pre>
 *
 * <p>Not thread-safe; main runs it.
 */
public final class VirtualThreadBenchmark {
  /** The flags; {@code --help} prints them. */
  static final CommandLine FLAGS =
      CommandLine.builder(
              "vthread-bench",
              "concurrent unary calls whose handler blocks, on Tern's blocking API (virtual threads),"
                  + " grpc-java with a virtual-thread executor, or grpc-java's default executor;"
                  + " needs JDK 21+")
          .flag(
              "system",
              "tern-blocking|grpc-java-virtual|grpc-java-default",
              "tern-blocking",
              "the server under test")
          .flag("calls", "N", "10000", "concurrent unary calls per round")
          .flag("sleep_ms", "N", "10", "how long each handler blocks, in milliseconds")
          .flag("rounds", "N", "10", "measured rounds")
          .flag("warmup_rounds", "N", "3", "rounds run first and not counted")
          .example("bin/vthread-bench --system=grpc-java-virtual --calls=10000");

  private static final Set<String> SYSTEMS =
      Set.of("tern-blocking", "grpc-java-virtual", "grpc-java-default");

  private static final long MAX_LATENCY_NANOS = TimeUnit.MINUTES.toNanos(5);

  private final int sleepMillis;

  /** Calls parked in the handler during the heap measurement, counted down as they arrive. */
  private volatile CountDownLatch parked = new CountDownLatch(0);

  private final CountDownLatch release = new CountDownLatch(1);

  private VirtualThreadBenchmark(int sleepMillis) {
    this.sleepMillis = sleepMillis;
  }

  /** The handler's work: sleep, or (response_size 1) wait in the handler until released. */
  private SimpleResponse handle(SimpleRequest request) throws InterruptedException {
    if (request.getResponseSize() == 1) {
      parked.countDown();
      release.await();
    } else {
      Thread.sleep(sleepMillis);
    }
    return SimpleResponse.getDefaultInstance();
  }

  /** A started server, to shut down. */
  @FunctionalInterface
  private interface RunningServer {
    void stop() throws InterruptedException;
  }

  /** Starts {@code system}'s server; returns it to shut down, and its port in {@code port[0]}. */
  private RunningServer startServer(String system, int calls, int[] port) throws Exception {
    InetSocketAddress address = new InetSocketAddress("127.0.0.1", 0);
    if (system.equals("tern-blocking")) {
      if (!BlockingExecutors.virtualThreadsAvailable()) {
        throw new IllegalStateException("tern-blocking needs JDK 21 or later (virtual threads)");
      }
      BenchmarkServiceTern.BlockingService service =
          new BenchmarkServiceTern.BlockingService() {
            @Override
            public SimpleResponse unaryCall(SimpleRequest request) throws InterruptedException {
              return handle(request);
            }
          };
      ServerServiceDefinition definition = service.bindService();
      dev.tern.Server server =
          dev.tern.netty.NettyServerBuilder.forAddress(address)
              .maxConcurrentCallsPerConnection(calls)
              .addService(definition)
              .build()
              .start();
      port[0] = server.getPort();
      return () -> {
        server.shutdownNow();
        server.awaitTermination(10, TimeUnit.SECONDS);
      };
    }
    io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder builder =
        io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder.forAddress(address)
            .maxConcurrentCallsPerConnection(calls);
    ExecutorService virtual = null;
    if (system.equals("grpc-java-virtual")) {
      virtual = newVirtualThreadPerTaskExecutor();
      builder.executor(virtual);
    } else if (!system.equals("grpc-java-default")) {
      throw new IllegalArgumentException("--system: unknown system " + system);
    }
    builder.addService(
        io.grpc.ServerServiceDefinition.builder("grpc.testing.BenchmarkService")
            .addMethod(
                GrpcJavaBalancedClient.UNARY_CALL,
                ServerCalls.asyncUnaryCall(
                    (SimpleRequest request, StreamObserver<SimpleResponse> responses) -> {
                      try {
                        responses.onNext(handle(request));
                        responses.onCompleted();
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        responses.onError(e);
                      }
                    }))
            .build());
    io.grpc.Server server = builder.build().start();
    port[0] = server.getPort();
    ExecutorService executor = virtual;
    return () -> {
      server.shutdownNow();
      server.awaitTermination(10, TimeUnit.SECONDS);
      if (executor != null) {
        executor.shutdownNow();
      }
    };
  }

  /** {@code Executors.newVirtualThreadPerTaskExecutor()}, by reflection (Java 17 bytecode). */
  private static ExecutorService newVirtualThreadPerTaskExecutor() {
    try {
      return (ExecutorService)
          Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "grpc-java-virtual needs JDK 21 or later (virtual threads)", e);
    }
  }

  /**
   * Sends {@code calls} calls at once, each with {@code responseSize}, and waits for all; records
   * each latency into {@code latencies} (if not null). Returns the wall time in nanoseconds.
   */
  private static long round(
      ManagedChannel channel, int calls, int responseSize, Histogram latencies)
      throws InterruptedException {
    SimpleRequest request = SimpleRequest.newBuilder().setResponseSize(responseSize).build();
    CountDownLatch done = new CountDownLatch(calls);
    AtomicInteger failures = new AtomicInteger();
    long start = System.nanoTime();
    for (int i = 0; i < calls; i++) {
      long sent = System.nanoTime();
      ClientCalls.asyncUnaryCall(
          channel.newCall(GrpcJavaBalancedClient.UNARY_CALL, CallOptions.DEFAULT),
          request,
          new StreamObserver<SimpleResponse>() {
            @Override
            public void onNext(SimpleResponse value) {}

            @Override
            public void onError(Throwable t) {
              failures.incrementAndGet();
              done.countDown();
            }

            @Override
            public void onCompleted() {
              if (latencies != null) {
                synchronized (latencies) {
                  latencies.recordValue(Math.min(System.nanoTime() - sent, MAX_LATENCY_NANOS));
                }
              }
              done.countDown();
            }
          });
    }
    if (!done.await(5, TimeUnit.MINUTES)) {
      throw new IllegalStateException("calls still unanswered after 5 minutes");
    }
    if (failures.get() > 0) {
      throw new IllegalStateException(failures.get() + " of " + calls + " calls failed");
    }
    return System.nanoTime() - start;
  }

  /** Parks {@code calls} calls in the handler, then prints the heap after a GC and the threads. */
  private void measureParked(ManagedChannel channel, int calls, PrintStream out)
      throws InterruptedException {
    parked = new CountDownLatch(calls);
    Thread sender =
        new Thread(
            () -> {
              try {
                round(channel, calls, 1, null);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "parked-calls");
    sender.start();
    if (!parked.await(5, TimeUnit.MINUTES)) {
      throw new IllegalStateException("the calls did not all reach the handler in 5 minutes");
    }
    System.gc();
    System.gc();
    long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    int threads = ManagementFactory.getThreadMXBean().getThreadCount();
    release.countDown();
    sender.join();
    out.printf(
        "  %d calls parked: heap after GC %.1f MiB, %d live platform threads%n",
        calls, heap / (1024.0 * 1024.0), threads);
  }

  /** {@code bin/vthread-bench --system=S [--calls=N] ...}. */
  public static void main(String[] args) throws Exception {
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Runs the benchmark the command line asks for.
   *
   * @return 0 when it ran or after {@code --help}; 2 after a one-line message naming a bad flag
   */
  static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
    String system;
    int calls;
    int rounds;
    int warmupRounds;
    int sleepMillis;
    try {
      CommandLine.Values flags = FLAGS.parse(args);
      system = flags.string("system");
      if (!SYSTEMS.contains(system)) {
        throw FLAGS.usageError("--system: unknown system '" + system + "'");
      }
      calls = flags.integer("calls", 1);
      rounds = flags.integer("rounds", 1);
      warmupRounds = flags.integer("warmup_rounds", 0);
      sleepMillis = flags.integer("sleep_ms", 0);
    } catch (CommandLine.Exit exit) {
      return exit.report(out, err);
    }
    run(system, calls, rounds, warmupRounds, sleepMillis, out);
    return 0;
  }

  static void run(
      String system, int calls, int rounds, int warmupRounds, int sleepMillis, PrintStream out)
      throws Exception {
    VirtualThreadBenchmark benchmark = new VirtualThreadBenchmark(sleepMillis);
    int[] port = new int[1];
    RunningServer server = benchmark.startServer(system, calls, port);
    try {
      ManagedChannel channel =
          NettyChannelBuilder.forAddress("127.0.0.1", port[0]).usePlaintext().build();
      try {
        for (int i = 0; i < warmupRounds; i++) {
          round(channel, calls, 0, null);
        }
        Histogram latencies = new Histogram(MAX_LATENCY_NANOS, 3);
        long nanos = 0;
        for (int i = 0; i < rounds; i++) {
          nanos += round(channel, calls, 0, latencies);
        }
        out.printf(
            "%s (JDK %s): %d rounds of %d concurrent calls, handler blocking %d ms%n",
            system, Runtime.version().feature(), rounds, calls, sleepMillis);
        out.printf(
            "  throughput %.0f calls/s; latency p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
            (double) calls * rounds / (nanos / 1e9),
            latencies.getValueAtPercentile(50) / 1e6,
            latencies.getValueAtPercentile(99) / 1e6,
            latencies.getMaxValue() / 1e6);
        benchmark.measureParked(channel, calls, out);
      } finally {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    } finally {
      server.stop();
    }
  }
}
