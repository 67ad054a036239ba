package dev.tern.grpcjava;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/** What the tests share: a plaintext channel to a local server, and shutting both down. */
final class Peers {
  private Peers() {}

  /** A plaintext channel to {@code server} on 127.0.0.1, built through io.grpc's API. */
  static ManagedChannel channelTo(Server server) {
    return Grpc.newChannelBuilder(
            "127.0.0.1:" + server.getPort(), InsecureChannelCredentials.create())
        .build();
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
