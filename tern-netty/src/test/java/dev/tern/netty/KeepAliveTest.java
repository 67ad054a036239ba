package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.testing.ProbeService;
import dev.tern.testing.RecordingClientCallListener;
import dev.tern.testing.TernCleanupExtension;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Client keepalive PINGs, and the server's enforcement of how often it tolerates them. */
class KeepAliveTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private final ProbeService probe = new ProbeService();

  private Server startServer(NettyServerBuilder builder) throws Exception {
    Server server = cleanup.register(builder.addService(probe.definition()).build());
    server.start();
    return server;
  }

  private ManagedChannel channel(Server server, long keepAliveMillis) {
    int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    return cleanup.register(
        NettyChannelBuilder.forAddress("127.0.0.1", port)
            .usePlaintext()
            .keepAliveTimeMinimum(0, TimeUnit.NANOSECONDS)
            .keepAliveTime(keepAliveMillis, TimeUnit.MILLISECONDS)
            .keepAliveTimeout(10, TimeUnit.SECONDS)
            .build());
  }

  private static RecordingClientCallListener<String> startHang(ManagedChannel channel) {
    return RecordingClientCallListener.startUnary(
        channel, ProbeService.HANG, CallOptions.DEFAULT, "hang");
  }

  @Test
  void clientPingingMoreOftenThanPermittedIsToldTooManyPings() throws Exception {
    Server server =
        startServer(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)));
    ManagedChannel channel = channel(server, 20);

    Status status = startHang(channel).awaitStatus();

    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(status.getDescription()).contains("ENHANCE_YOUR_CALM").contains("too_many_pings");
  }

  @Test
  void pingsWithinThePermittedRateKeepTheCallAlive() throws Exception {
    Server server =
        startServer(
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .permitKeepAliveTime(1, TimeUnit.MILLISECONDS));
    ManagedChannel channel = channel(server, 20);
    RecordingClientCallListener<String> listener = startHang(channel);
    ProbeService.HangingCall hanging = probe.awaitHangingCall();

    // A call that times out after many keepalive periods, with nothing read meanwhile.
    RecordingClientCallListener<String> timedListener =
        RecordingClientCallListener.startUnary(
            channel,
            ProbeService.HANG,
            CallOptions.DEFAULT.withDeadlineAfter(300, TimeUnit.MILLISECONDS),
            "wait");
    assertThat(timedListener.awaitStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);

    assertThat(listener.isClosed()).as("the hanging call was cut off").isFalse();
    hanging.call().close(Status.OK, new Metadata());
    assertThat(listener.awaitStatus().isOk()).isTrue();
  }
}
