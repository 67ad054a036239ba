package dev.tern.benchmarks.jmh;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Metadata;
import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.ServerServiceDefinition;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCalls;
import dev.tern.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
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
 * 1 MiB unary calls on Tern over Netty on loopback with each message encoding: the request is
 * compressed with {@code encoding} by the client and the echoed response by the server ({@code
 * identity}: neither), so a call compresses and decompresses 1 MiB each way. The payload is text
 * records (log lines, about 6 to 1 under gzip): compressible as real payloads are, not zeros.
 * {@code zstd} comes from tern-zstd on the class path, {@code gzip} from the JDK.
 *
 * <p>Run with {@code -prof gc}: {@code gc.alloc.rate.norm} shows what each codec's streams cost on
 * the heap per call (zstd's native buffers do not show there).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CompressionBenchmark {
  private static final int SIZE = 1024 * 1024;

  @Param({"identity", "gzip", "zstd"})
  public String encoding;

  private byte[] request;
  private Server server;
  private ManagedChannel channel;
  private CallOptions callOptions;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    server =
        ServerBuilder.forPort(0)
            .addService(
                ServerServiceDefinition.builder("bench.Echo")
                    .addMethod(
                        TernEchoTarget.UNARY,
                        ServerCalls.asyncUnaryCall(
                            (byte[] request, StreamObserver<byte[]> responses) -> {
                              responses.onNext(request);
                              responses.onCompleted();
                            }))
                    .build())
            .intercept(new CompressResponses(encoding))
            .build()
            .start();
    channel =
        ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
    callOptions = CallOptions.DEFAULT.withCompression(encoding);
    request = records(SIZE);
    try {
      byte[] echo = unaryEcho();
      if (!Arrays.equals(echo, request)) {
        throw new IllegalStateException(
            encoding + ": the echo differs (" + echo.length + " bytes for " + SIZE + ")");
      }
    } catch (RuntimeException e) {
      tearDown();
      throw e;
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws InterruptedException {
    channel.shutdownNow();
    server.shutdownNow();
    channel.awaitTermination(10, TimeUnit.SECONDS);
    server.awaitTermination(10, TimeUnit.SECONDS);
  }

  /** One blocking unary call: 1 MiB compressed, sent, decompressed, each way. */
  @Benchmark
  public byte[] unaryEcho() {
    return ClientCalls.blockingUnaryCall(channel, TernEchoTarget.UNARY, callOptions, request);
  }

  /** {@code size} bytes of log-like text records, each line different. */
  static byte[] records(int size) {
    StringBuilder text = new StringBuilder(size + 128);
    for (int i = 0; text.length() < size; i++) {
      text.append("2026-11-26T12:")
          .append(10 + i % 50)
          .append(':')
          .append(10 + (i * 7) % 50)
          .append(".")
          .append(100 + (i * 131) % 900)
          .append("Z INFO request id=")
          .append(Integer.toHexString(i * 0x9E3779B1))
          .append(" user=user")
          .append(i % 977)
          .append(" path=/api/v1/items/")
          .append((i * 37) % 10007)
          .append(" status=200 bytes=")
          .append((i * 613) % 65536)
          .append('\n');
    }
    return Arrays.copyOf(text.toString().getBytes(StandardCharsets.US_ASCII), size);
  }

  /** Asks the server's responses to be compressed with the encoding of the run. */
  private static final class CompressResponses implements ServerInterceptor {
    private final String encoding;

    CompressResponses(String encoding) {
      this.encoding = encoding;
    }

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      call.setCompression(encoding);
      return next.startCall(call, headers);
    }
  }
}
