package dev.tern.services.health;

import static dev.tern.services.health.v1.HealthCheckResponse.ServingStatus.NOT_SERVING;
import static dev.tern.services.health.v1.HealthCheckResponse.ServingStatus.SERVING;
import static dev.tern.services.health.v1.HealthCheckResponse.ServingStatus.UNKNOWN;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.services.health.v1.HealthCheckResponse.ServingStatus;
import dev.tern.testing.TernCleanupExtension;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Watch under real HTTP/2 flow control: a client that stops reading holds up its stream once the
 * window is full, and from then on the server keeps one status for it instead of queueing every
 * change.
 */
class HealthWatchFlowControlTest {
  private static final int WINDOW = 64 * 1024;
  private static final int CHANGES = 100_000;

  /**
   * The most statuses that can be on their way when the stream stops being ready: the client's
   * window plus the server's send buffer (Tern's Netty transport is ready below 32 KiB queued),
   * with slack, over 7 bytes a status (5 bytes of gRPC framing and 2 of message; DATA frames carry
   * many).
   */
  private static final int IN_FLIGHT_BOUND = (WINDOW + 64 * 1024) / 7;

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @Test
  void aClientThatDoesNotReadGetsTheLatestStatusNotEveryChange() throws Exception {
    HealthStatusManager health = new HealthStatusManager();
    Server server =
        cleanup
            .register(
                NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                    .addService(health.getHealthService())
                    .build())
            .start();
    ManagedChannel channel =
        cleanup.register(
            NettyChannelBuilder.forAddress(
                    "127.0.0.1", ((InetSocketAddress) server.getListenSockets().get(0)).getPort())
                .usePlaintext()
                .flowControlWindow(WINDOW)
                .build());
    WatchRecorder watch = WatchRecorder.start(channel, "", 1);
    try {
      assertThat(watch.next()).isEqualTo(SERVING);

      for (int i = 0; i < CHANGES; i++) {
        health.setStatus("", i % 2 == 0 ? NOT_SERVING : SERVING);
      }
      health.setStatus("", UNKNOWN); // the last change, told apart from the others
      watch.request(Integer.MAX_VALUE);

      int received = 0;
      ServingStatus status;
      do {
        status = watch.next();
        received++;
      } while (status != UNKNOWN);
      // What the window and the send buffer held before the stream stopped being ready, then the
      // latest status: not one message per change.
      assertThat(received).isBetween(2, IN_FLIGHT_BOUND);
    } finally {
      watch.cancel();
    }
  }
}
