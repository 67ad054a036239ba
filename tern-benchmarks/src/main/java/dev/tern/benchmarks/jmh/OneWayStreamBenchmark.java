package dev.tern.benchmarks.jmh;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Messages per second on one stream that flows one way, Tern beside grpc-java, each system's own
 * server and channel over Netty on loopback with its defaults (native epoll where it loads, default
 * executors, 1 MiB flow-control windows, 4 MiB message limit): what grpc-java's qps client cannot
 * measure, since its streaming calls are ping-pong.
 *
 * <ul>
 *   <li>{@link #clientToServer}: a client-streaming call; the benchmark thread sends whenever the
 *       call {@code isReady()}, and otherwise waits for the call's on-ready handler (never buffers
 *       past the transport's threshold); the server's handler counts.
 *   <li>{@link #serverToClient}: a bidi call; the client asks for a batch in one 8-byte message,
 *       the server's handler sends while its call is ready and goes on from its on-ready handler;
 *       the client's handler counts.
 * </ul>
 *
 * <p>One operation is one message delivered to the receiving handler: each invocation sends {@link
 * #BATCH} messages and returns only once the receiver has counted all of them, so nothing in flight
 * is counted. One call per iteration: opened before it, half-closed after it, and the iteration
 * ends only when the call ended normally with every message counted (the client-to-server server
 * answers with its count, which must equal the messages sent). Run with {@code -prof gc}: {@code
 * gc.alloc.rate.norm} is then heap bytes allocated per message, by client and server together.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class OneWayStreamBenchmark {
  /**
   * Messages per invocation. Each invocation starts with an empty pipeline and ends by waiting for
   * the last message; at 8,192 messages (8 ms at a million messages a second) that restart is about
   * 1% of it.
   */
  static final int BATCH = 8192;

  @Param({"tern", "grpc-java"})
  public String system;

  /**
   * Bytes per message (a 1 KiB message is 1,029 bytes on the wire: the gRPC prefix is 5). 64 KiB is
   * issue 52's large streamed message: 512 MiB an invocation.
   */
  @Param({"0", "1024", "65536"})
  public int size;

  private EchoTarget target;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    target = EchoTarget.create(system, "netty", EchoTarget.Options.defaults());
  }

  @TearDown(Level.Trial)
  public void tearDown() throws InterruptedException {
    target.shutdown();
  }

  /** The client-to-server call of one iteration. */
  @State(Scope.Benchmark)
  public static class ClientToServer {
    private OneWayStream stream;

    @Setup(Level.Iteration)
    public void open(OneWayStreamBenchmark benchmark) {
      stream = benchmark.target.clientToServer(benchmark.size);
    }

    @TearDown(Level.Iteration)
    public void close() throws InterruptedException {
      stream.close();
    }
  }

  /** The server-to-client call of one iteration. */
  @State(Scope.Benchmark)
  public static class ServerToClient {
    private OneWayStream stream;

    @Setup(Level.Iteration)
    public void open(OneWayStreamBenchmark benchmark) {
      stream = benchmark.target.serverToClient(benchmark.size);
    }

    @TearDown(Level.Iteration)
    public void close() throws InterruptedException {
      stream.close();
    }
  }

  /** {@link #BATCH} messages from client to server, each sent when the call is ready. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void clientToServer(ClientToServer call) throws InterruptedException {
    call.stream.transfer(BATCH);
  }

  /** {@link #BATCH} messages from server to client, each sent when the call is ready. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void serverToClient(ServerToClient call) throws InterruptedException {
    call.stream.transfer(BATCH);
  }
}
