package dev.tern.grpcjava;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.testing.integration.TestServiceImpl;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** What the tests share: a plaintext channel to a local server, and shutting both down. */
final class Peers {
  private Peers() {}

  /** A plaintext channel to {@code server} on 127.0.0.1, built through io.grpc's API. */
  static ManagedChannel channelTo(Server server) {
    return Grpc.newChannelBuilder(
            "127.0.0.1:" + server.getPort(), InsecureChannelCredentials.create())
        .build();
  }

  /** A plaintext server of grpc-java's interop service on a free port. */
  static Server testServer(ScheduledExecutorService scheduler) throws IOException {
    return Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
        .addService(new TestServiceImpl(scheduler))
        .build()
        .start();
  }

  /**
   * A plaintext server of grpc-java's interop service on a free port, counting in {@code answered}
   * the calls it answers, under its port.
   */
  static Server countingServer(
      ScheduledExecutorService scheduler, Map<Integer, AtomicInteger> answered) throws IOException {
    ServerInterceptor counting =
        new ServerInterceptor() {
          @Override
          public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
              ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
            int port =
                ((InetSocketAddress) call.getAttributes().get(Grpc.TRANSPORT_ATTR_LOCAL_ADDR))
                    .getPort();
            answered.computeIfAbsent(port, p -> new AtomicInteger()).incrementAndGet();
            return next.startCall(call, headers);
          }
        };
    return Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
        .addService(new TestServiceImpl(scheduler))
        .intercept(counting)
        .build()
        .start();
  }

  /** Shuts down a channel and asserts it terminates. */
  static void close(ManagedChannel channel) throws InterruptedException {
    channel.shutdownNow();
    assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }

  /**
   * Shuts down the channel, then the server (either may be null), asserting each terminates, then
   * the executor.
   */
  static void close(ManagedChannel channel, Server server, ExecutorService executor)
      throws InterruptedException {
    try {
      if (channel != null) {
        close(channel);
      }
      if (server != null) {
        server.shutdownNow();
        assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
      }
    } finally {
      executor.shutdownNow();
    }
  }
}
