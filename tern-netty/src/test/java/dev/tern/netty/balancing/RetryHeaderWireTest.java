package dev.tern.netty.balancing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Server;
import dev.tern.ServerInterceptors;
import dev.tern.Status;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.netty.balancing.FlakyService.Reply;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.TernCleanupExtension;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a Tern client's retry puts on the wire: the server answers the first attempt UNAVAILABLE
 * with {@code grpc-retry-pushback-ms: 50}, then OK; the second attempt carries {@code
 * grpc-previous-rpc-attempts: 1} and the first none, as seen by a Tern server's interceptor and by
 * a grpc-java 1.79 server's interceptor (another implementation reading the header off the wire).
 */
class RetryHeaderWireTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static final String RETRY = ServiceConfigs.retry(FlakyService.SERVICE, 3, "UNAVAILABLE");

  @Test
  void ternServerSeesThePreviousAttemptsHeaderOnTheRetryOnly() throws Exception {
    FlakyService flaky = new FlakyService(Reply.fail(Status.Code.UNAVAILABLE, "50"));
    AttemptLog log = new AttemptLog();
    Server server =
        cleanup.register(
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(ServerInterceptors.intercept(flaky.definition(), log))
                .build()
                .start());

    assertThat(call(server.getPort())).isEqualTo("1");

    assertThat(log.seen()).containsExactly(AttemptLog.ABSENT, "1");
  }

  @Test
  void grpcJavaServerSeesThePreviousAttemptsHeaderOnTheRetryOnly() throws Exception {
    GrpcJavaFlaky flaky = new GrpcJavaFlaky();
    io.grpc.Server peer =
        io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder.forAddress(
                new InetSocketAddress("127.0.0.1", 0))
            .addService(io.grpc.ServerInterceptors.intercept(flaky.definition(), flaky))
            .build()
            .start();
    try {
      assertThat(call(peer.getPort())).isEqualTo("ok");
    } finally {
      peer.shutdown();
      if (!peer.awaitTermination(10, TimeUnit.SECONDS)) {
        peer.shutdownNow();
      }
    }

    assertThat(flaky.seen()).containsExactly("absent", "1");
  }

  private String call(int port) {
    ManagedChannel channel =
        cleanup.register(
            ManagedChannelBuilder.forAddress("127.0.0.1", port)
                .usePlaintext()
                .defaultServiceConfigJson(RETRY)
                .build());
    return ClientCalls.blockingUnaryCall(
        channel,
        FlakyService.UNARY,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
        "hello");
  }

  /**
   * {@link FlakyService#UNARY} on grpc-java: fails the first call UNAVAILABLE with a 50 ms
   * pushback, answers "ok" after that; as its own interceptor, records each call's {@code
   * grpc-previous-rpc-attempts} ("absent" if none). Thread-safe.
   */
  private static final class GrpcJavaFlaky implements io.grpc.ServerInterceptor {
    private static final io.grpc.Metadata.Key<String> PREVIOUS =
        io.grpc.Metadata.Key.of(
            "grpc-previous-rpc-attempts", io.grpc.Metadata.ASCII_STRING_MARSHALLER);
    private static final io.grpc.Metadata.Key<String> PUSHBACK =
        io.grpc.Metadata.Key.of("grpc-retry-pushback-ms", io.grpc.Metadata.ASCII_STRING_MARSHALLER);
    private static final io.grpc.MethodDescriptor.Marshaller<String> UTF8_STRING =
        new io.grpc.MethodDescriptor.Marshaller<>() {
          @Override
          public InputStream stream(String value) {
            return new ByteArrayInputStream(value.getBytes(UTF_8));
          }

          @Override
          public String parse(InputStream stream) {
            try (InputStream in = stream) {
              return new String(in.readAllBytes(), UTF_8);
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          }
        };

    private final List<String> seen = new ArrayList<>();

    synchronized List<String> seen() {
      return List.copyOf(seen);
    }

    @Override
    public <ReqT, RespT> io.grpc.ServerCall.Listener<ReqT> interceptCall(
        io.grpc.ServerCall<ReqT, RespT> call,
        io.grpc.Metadata headers,
        io.grpc.ServerCallHandler<ReqT, RespT> next) {
      String previous = headers.get(PREVIOUS);
      synchronized (this) {
        seen.add(previous == null ? "absent" : previous);
      }
      return next.startCall(call, headers);
    }

    io.grpc.ServerServiceDefinition definition() {
      io.grpc.MethodDescriptor<String, String> method =
          io.grpc.MethodDescriptor.<String, String>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(FlakyService.UNARY.getFullMethodName())
              .setRequestMarshaller(UTF8_STRING)
              .setResponseMarshaller(UTF8_STRING)
              .build();
      return io.grpc.ServerServiceDefinition.builder(FlakyService.SERVICE)
          .addMethod(
              method,
              io.grpc.stub.ServerCalls.asyncUnaryCall(
                  (request, response) -> {
                    boolean first;
                    synchronized (this) {
                      first = seen.size() == 1;
                    }
                    if (first) {
                      io.grpc.Metadata trailers = new io.grpc.Metadata();
                      trailers.put(PUSHBACK, "50");
                      response.onError(
                          io.grpc.Status.UNAVAILABLE
                              .withDescription("failing on cue")
                              .asRuntimeException(trailers));
                    } else {
                      response.onNext("ok");
                      response.onCompleted();
                    }
                  }))
          .build();
    }
  }
}
