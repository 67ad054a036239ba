package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.MethodDescriptor.MethodType;
import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.ServerStreamTracer;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCalls;
import dev.tern.testing.Await;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testing.TestMarshallers;
import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A call the client holds back behind the server's SETTINGS_MAX_CONCURRENT_STREAMS sends the {@code
 * grpc-timeout} left when its stream opens, not the one computed when the call started: the server
 * anchors the deadline on arrival, so a stale timeout would give it time the client no longer has.
 */
class HeldStreamTimeoutTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static final Metadata.Key<String> TIMEOUT =
      Metadata.Key.of("grpc-timeout", Metadata.ASCII_STRING_MARSHALLER);

  private static final MethodDescriptor<String, String> ECHO =
      MethodDescriptor.<String, String>newBuilder(TestMarshallers.utf8(), TestMarshallers.utf8())
          .setType(MethodType.UNARY)
          .setFullMethodName("test.Held/Echo")
          .build();

  /** Answers once {@link #released}: it holds the connection's one stream until then. */
  private static final MethodDescriptor<String, String> HOLD =
      ECHO.toBuilder().setFullMethodName("test.Held/Hold").build();

  private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(20);

  /** How long the second call is kept waiting, at least; the timeout must lose that much. */
  private static final long HELD_MILLIS = 1_000;

  private final CountDownLatch released = new CountDownLatch(1);

  /** Each stream the server accepts: its method and grpc-timeout ("" for none). */
  private final BlockingQueue<String> arrivals = new LinkedBlockingQueue<>();

  @Test
  void aCallHeldBehindTheStreamLimitSendsTheTimeoutLeftWhenItsStreamOpens() throws Exception {
    ManagedChannel channel = start();
    // The first call brings the server's SETTINGS (one stream at a time) before the test relies
    // on them.
    assertThat(ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT, "warm"))
        .isEqualTo("warm");
    assertThat(Await.poll(arrivals, "the warm-up call")).isEqualTo("test.Held/Echo ");
    CompletableFuture<String> holding =
        ClientCalls.futureUnaryCall(channel.newCall(HOLD, CallOptions.DEFAULT), "hold");
    assertThat(Await.poll(arrivals, "the holding call")).isEqualTo("test.Held/Hold ");

    // The deadline is fixed between these two readings of the clock: the bounds below count from
    // the later and the earlier, so a slow moment between them cannot fail the check.
    long beforeDeadline = System.nanoTime();
    CallOptions options =
        CallOptions.DEFAULT.withDeadlineAfter(DEADLINE_NANOS, TimeUnit.NANOSECONDS);
    long started = System.nanoTime();
    CompletableFuture<String> held =
        ClientCalls.futureUnaryCall(channel.newCall(ECHO, options), "held");
    assertThat(arrivals.poll(HELD_MILLIS, TimeUnit.MILLISECONDS))
        .as("the second call waits while the first holds the only stream")
        .isNull();
    long releasedAt = System.nanoTime();
    released.countDown();

    assertThat(holding.get(10, TimeUnit.SECONDS)).isEqualTo("hold");
    assertThat(held.get(10, TimeUnit.SECONDS)).isEqualTo("held");
    long ended = System.nanoTime();
    String arrival = Await.poll(arrivals, "the held call");
    assertThat(arrival).startsWith("test.Held/Echo ");
    long timeoutNanos = TimeUnit.MICROSECONDS.toNanos(1) * micros(arrival.substring(15));

    // The timeout loses the time the stream was held. Not the time before that: the call's hop to
    // the event loop, which every call's timeout carries, held or not, and which a loaded machine
    // makes milliseconds long. So the upper bound allows half the hold for it; a timeout not
    // shortened (about 20 s) is still far above it.
    assertThat(timeoutNanos)
        .as("grpc-timeout of a call held %d ms of its %d s", HELD_MILLIS, 20)
        .isLessThanOrEqualTo(
            DEADLINE_NANOS
                - (releasedAt - started)
                + TimeUnit.MILLISECONDS.toNanos(HELD_MILLIS / 2))
        .isGreaterThanOrEqualTo(
            DEADLINE_NANOS - (ended - beforeDeadline) - TimeUnit.MILLISECONDS.toNanos(1));
  }

  /** A grpc-timeout of seconds to microseconds, in microseconds (the units 20 s comes in). */
  private static long micros(String timeout) {
    long value = Long.parseLong(timeout.substring(0, timeout.length() - 1));
    return switch (timeout.charAt(timeout.length() - 1)) {
      case 'S' -> TimeUnit.SECONDS.toMicros(value);
      case 'm' -> TimeUnit.MILLISECONDS.toMicros(value);
      case 'u' -> value;
      default -> throw new AssertionError("unexpected grpc-timeout unit: " + timeout);
    };
  }

  private ManagedChannel start() throws Exception {
    ServerServiceDefinition service =
        ServerServiceDefinition.builder("test.Held")
            .addMethod(
                ECHO,
                ServerCalls.asyncUnaryCall(
                    (request, responses) -> {
                      responses.onNext(request);
                      responses.onCompleted();
                    }))
            .addMethod(
                HOLD,
                ServerCalls.asyncUnaryCall(
                    (request, responses) -> {
                      try {
                        released.await();
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                      responses.onNext(request);
                      responses.onCompleted();
                    }))
            .build();
    Server server =
        cleanup.register(
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .maxConcurrentCallsPerConnection(1)
                .addStreamTracerFactory(
                    new ServerStreamTracer.Factory() {
                      @Override
                      public ServerStreamTracer newServerStreamTracer(
                          String method, Metadata headers) {
                        String timeout = headers.get(TIMEOUT);
                        arrivals.add(method + " " + (timeout == null ? "" : timeout));
                        return null;
                      }
                    })
                .addService(service)
                .build()
                .start());
    int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    return cleanup.register(
        NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build());
  }
}
