package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.testing.EchoService;
import dev.tern.testing.ProbeService;
import dev.tern.testing.RecordingClientCallListener;
import dev.tern.testing.RecordingTransportFilter;
import dev.tern.testing.TernCleanupExtension;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The server's limits on a connection's idle time and age. */
class ConnectionLimitsTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private final ProbeService probe = new ProbeService();
  private final RecordingTransportFilter filter = new RecordingTransportFilter();

  private ManagedChannel channelTo(UnaryOperator<NettyServerBuilder> configure) throws Exception {
    Server server =
        cleanup.register(
            configure
                .apply(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)))
                .addService(EchoService.definition())
                .addService(probe.definition())
                .addTransportFilter(filter)
                .build());
    server.start();
    int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    return cleanup.register(
        NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build());
  }

  private static RecordingClientCallListener<String> unary(
      ManagedChannel channel, MethodDescriptor<String, String> method, String request) {
    ClientCall<String, String> call = channel.newCall(method, CallOptions.DEFAULT);
    RecordingClientCallListener<String> listener = new RecordingClientCallListener<>();
    call.start(listener, new Metadata());
    call.request(1);
    call.sendMessage(request);
    call.halfClose();
    return listener;
  }

  @Test
  void idleConnectionIsClosedAndTheChannelReconnects() throws Exception {
    ManagedChannel channel =
        channelTo(builder -> builder.maxConnectionIdle(100, TimeUnit.MILLISECONDS));
    assertThat(unary(channel, EchoService.UNARY, "before").awaitStatus().isOk()).isTrue();

    filter.awaitTerminated(); // the server closed the idle connection by itself

    RecordingClientCallListener<String> after = unary(channel, EchoService.UNARY, "after");
    Status afterStatus = after.awaitStatus();
    assertThat(afterStatus.isOk()).as("%s", afterStatus).isTrue();
    assertThat(after.awaitMessage()).isEqualTo("after");
  }

  @Test
  void callsOutlivingMaxAgeAndGraceAreCancelledUnavailable() throws Exception {
    ManagedChannel channel =
        channelTo(
            builder ->
                builder
                    .maxConnectionAge(100, TimeUnit.MILLISECONDS)
                    .maxConnectionAgeGrace(100, TimeUnit.MILLISECONDS));
    RecordingClientCallListener<String> hanging = unary(channel, ProbeService.HANG, "forever");

    Status status = hanging.awaitStatus();

    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(unary(channel, EchoService.UNARY, "new connection").awaitStatus().isOk()).isTrue();
  }

  @Test
  void callsBeyondMaxConcurrentCallsWaitForARunningOneToEnd() throws Exception {
    ManagedChannel channel = channelTo(builder -> builder.maxConcurrentCallsPerConnection(1));
    ClientCall<String, String> hang = channel.newCall(ProbeService.HANG, CallOptions.DEFAULT);
    RecordingClientCallListener<String> hangListener = new RecordingClientCallListener<>();
    hang.start(hangListener, new Metadata());
    hang.request(1);
    hang.sendMessage("hold the only slot");
    hang.halfClose();
    probe.awaitHangingCall();

    RecordingClientCallListener<String> queued = unary(channel, EchoService.UNARY, "queued");
    assertThat(queued.isClosed()).as("served while the only slot was taken").isFalse();

    hang.cancel("make room", null);
    assertThat(hangListener.awaitStatus().getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(queued.awaitStatus().isOk()).isTrue();
    assertThat(queued.awaitMessage()).isEqualTo("queued");
  }
}
