package dev.tern.services.channelz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ConnectivityState;
import dev.tern.ForwardingServerCallListener;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.ServerInterceptors;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A Tern Netty server with one unary method, a Tern Netty channel to it, and a load of calls of
 * which the first few fail (INVALID_ARGUMENT). {@link #run} returns once the server has seen every
 * call end (its listeners' {@code onComplete}/{@code onCancel} follow channelz's counting), so the
 * counts are final. Closed by {@link #close}, which waits for termination.
 */
final class TernLoad {
  static final MethodDescriptor.Marshaller<String> TEXT =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
          return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
          try {
            return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  static final MethodDescriptor<String, String> CALL =
      MethodDescriptor.newBuilder(TEXT, TEXT)
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("test.Load/Call")
          .build();

  final Server server;
  final ManagedChannel channel;
  final int port;
  private volatile CountDownLatch ended = new CountDownLatch(0);

  TernLoad() throws IOException {
    ServerServiceDefinition service =
        ServerServiceDefinition.builder("test.Load")
            .addMethod(
                CALL,
                ServerCalls.asyncUnaryCall(
                    (String request, dev.tern.stub.StreamObserver<String> response) -> {
                      if (request.startsWith("fail")) {
                        response.onError(
                            Status.INVALID_ARGUMENT.withDescription(request).asRuntimeException());
                      } else {
                        response.onNext("re: " + request);
                        response.onCompleted();
                      }
                    }))
            .build();
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(ServerInterceptors.intercept(service, new EndWatcher()))
            .build()
            .start();
    port = server.getPort();
    channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
  }

  /**
   * Waits until {@code channel} is in {@code wanted}: a call can complete just before the state
   * change that made it possible is recorded (the picker is published first).
   */
  static void awaitState(ManagedChannel channel, ConnectivityState wanted) throws Exception {
    whenState(channel, wanted).get(10, TimeUnit.SECONDS);
  }

  /** Completes once {@code channel} is in {@code wanted} (watching from now on). */
  static CompletableFuture<Void> whenState(ManagedChannel channel, ConnectivityState wanted) {
    CompletableFuture<Void> reached = new CompletableFuture<>();
    Runnable[] watch = new Runnable[1];
    watch[0] =
        () -> {
          ConnectivityState state = channel.getState(false);
          if (state == wanted) {
            reached.complete(null);
          } else {
            channel.notifyWhenStateChanged(state, watch[0]);
          }
        };
    watch[0].run();
    return reached;
  }

  /**
   * Runs {@code total} calls one after the other; the first {@code failing} fail. Returns once the
   * server has seen them end and the channel's READY state is recorded.
   */
  void run(int total, int failing) throws Exception {
    CountDownLatch latch = new CountDownLatch(total);
    ended = latch;
    for (int i = 0; i < total; i++) {
      String request = (i < failing ? "fail " : "ok ") + i;
      try {
        assertThat(ClientCalls.blockingUnaryCall(channel, CALL, CallOptions.DEFAULT, request))
            .isEqualTo("re: " + request);
        assertThat(i).isGreaterThanOrEqualTo(failing);
      } catch (StatusRuntimeException e) {
        assertThat(i).isLessThan(failing);
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      }
    }
    assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
    awaitState(channel, ConnectivityState.READY);
  }

  void close() throws InterruptedException {
    channel.shutdownNow();
    server.shutdownNow();
    assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  /** Counts calls down as the server sees them end. */
  private final class EndWatcher implements ServerInterceptor {
    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      CountDownLatch latch = ended;
      return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
          next.startCall(call, headers)) {
        @Override
        public void onComplete() {
          super.onComplete();
          latch.countDown();
        }

        @Override
        public void onCancel() {
          super.onCancel();
          latch.countDown();
        }
      };
    }
  }
}
