package dev.tern.benchmarks.jmh;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Tern and grpc-java side by side on the same work: a blocking unary call carrying 1 KiB each way
 * (the shape of grpc-java's TransportBenchmark {@code unaryCall1024}), and one 1 KiB message echoed
 * on an open bidi stream. Run with {@code -prof gc} for bytes allocated per call ({@code
 * gc.alloc.rate.norm}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class CallBenchmark {
  @Param({"tern", "grpc-java"})
  public String system;

  @Param({"inprocess", "netty"})
  public String transport;

  @Param({"true", "false"})
  public boolean direct;

  /** With a retry policy on the unary method (no call fails, so it measures the policy's cost). */
  @Param({"false"})
  public boolean retry;

  /**
   * With a binary log of every call ({@code *}) on the server and the channel, into a sink that
   * drops the entries: the cost of building them, without the disk.
   */
  @Param({"false"})
  public boolean binlog;

  /**
   * With OpenTelemetry metrics and tracing on the server and the channel, each system through its
   * own module (Tern's tern-opentelemetry, grpc-java's grpc-opentelemetry), both into the same kind
   * of SDK ({@link BenchTelemetry}): metrics aggregated in memory, spans dropped as they end. The
   * cost of recording, without export.
   */
  @Param({"false"})
  public boolean otel;

  private final byte[] message = new byte[1024];
  private BenchTelemetry telemetry;
  private EchoTarget target;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    telemetry = otel ? BenchTelemetry.create() : null;
    target =
        EchoTarget.create(
            system,
            transport,
            new EchoTarget.Options(
                direct, retry, binlog, telemetry, EchoTarget.DEFAULT_MAX_INBOUND_MESSAGE_SIZE));
  }

  @TearDown(Level.Trial)
  public void tearDown() throws InterruptedException {
    target.shutdown();
    if (telemetry != null) {
      telemetry.close();
    }
  }

  /** One blocking unary call, 1 KiB each way. */
  @Benchmark
  public byte[] unaryCall1024() {
    return target.unary(message);
  }

  /** One 1 KiB message echoed on an open bidi stream. */
  @Benchmark
  public byte[] streamingPingPong1024() throws InterruptedException {
    return target.pingPong(message);
  }
}
