package dev.tern.benchmarks.jmh;

import java.util.Arrays;
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
 * Large unary calls, Tern beside grpc-java, each system's own server and channel over Netty on
 * loopback: a blocking call whose request of {@code size} bytes the server echoes back, so a call
 * moves {@code 2 * size} bytes of payload. 16 MiB is beyond both systems' default 4 MiB limit of
 * inbound messages, so both servers and channels here accept up to {@link #MAX_MESSAGE_SIZE}; 1 MiB
 * is there for context (and to compare with bench-compare's qps-tool large part).
 *
 * <p>Run with {@code -prof gc}: {@code gc.alloc.rate.norm} over {@code 2 * size} is heap bytes
 * allocated per payload byte delivered, by client and server together. The echo's own share is one
 * array per delivered message (the parsed request on the server, the parsed response on the
 * client), 1.0 byte per byte; anything above that is the systems' copies and bookkeeping on the
 * heap. Copies in direct (pooled) memory do not show here; to count them, run with every buffer a
 * fresh heap array ({@code -jvmArgsAppend "-Dio.netty.allocator.type=unpooled
 * -Dio.netty.noPreferDirect=true"}; the socket's read buffers stay direct), where each buffer a
 * message is copied into shows as its size (docs/performance-log.md, issue 52 target 4).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class LargeUnaryBenchmark {
  /** The largest message server and channel accept: 16 MiB and room to spare. */
  static final int MAX_MESSAGE_SIZE = 17 * 1024 * 1024;

  @Param({"tern", "grpc-java"})
  public String system;

  /** Bytes of the request, and so of the response. */
  @Param({"1048576", "16777216"})
  public int size;

  private byte[] request;
  private EchoTarget target;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    target =
        EchoTarget.create(
            system,
            "netty",
            EchoTarget.Options.defaults().withMaxInboundMessageSize(MAX_MESSAGE_SIZE));
    request = new byte[size];
    for (int i = 0; i < size; i++) {
      request[i] = (byte) (i * 31 + (i >>> 12));
    }
    try {
      byte[] echo = target.unary(request);
      if (!Arrays.equals(echo, request)) {
        throw new IllegalStateException(
            system
                + ": the echo of a "
                + size
                + "-byte request differs ("
                + echo.length
                + " bytes)");
      }
    } catch (RuntimeException e) {
      target.shutdown();
      throw e;
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws InterruptedException {
    target.shutdown();
  }

  /** One blocking unary call: {@code size} bytes each way. */
  @Benchmark
  public byte[] unaryEcho() {
    return target.unary(request);
  }
}
