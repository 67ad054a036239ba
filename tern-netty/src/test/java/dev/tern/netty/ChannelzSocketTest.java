package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.channelz.CallStats;
import dev.tern.channelz.ChannelStats;
import dev.tern.channelz.Channelz;
import dev.tern.channelz.Instrumented;
import dev.tern.channelz.InstrumentedSocket;
import dev.tern.channelz.Ref;
import dev.tern.channelz.ServerStats;
import dev.tern.channelz.SocketStats;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.EchoService;
import dev.tern.testing.ProbeService;
import dev.tern.testing.RecordingClientCallListener;
import dev.tern.testing.TernCleanupExtension;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What Netty connections report to channelz beyond the counts: TLS sessions, keepalives, socket
 * options.
 */
class ChannelzSocketTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static int port(Server server) {
    return ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
  }

  /** The one subchannel of the channel to {@code port}. */
  private static Instrumented<ChannelStats> subchannel(int port) {
    Instrumented<ChannelStats> channel =
        Channelz.global().rootChannels(0, Integer.MAX_VALUE).items().stream()
            .filter(c -> c.channelzName().endsWith(":" + port))
            .findFirst()
            .orElseThrow();
    List<Ref> subchannels = channel.channelzStats().subchannels();
    assertThat(subchannels).hasSize(1);
    return Channelz.global().subchannel(subchannels.get(0).id());
  }

  /** The client socket of the channel to {@code port} (one subchannel, one connection). */
  private static Instrumented<SocketStats> clientSocket(int port) {
    List<Ref> sockets = subchannel(port).channelzStats().sockets();
    assertThat(sockets).hasSize(1);
    return Channelz.global().socket(sockets.get(0).id());
  }

  /** The accepted connection of the server listening on {@code port}. */
  private static Instrumented<SocketStats> serverSocket(int port) {
    Instrumented<ServerStats> server =
        Channelz.global().servers(0, Integer.MAX_VALUE).items().stream()
            .filter(s -> s.channelzName().contains(":" + port + "]"))
            .findFirst()
            .orElseThrow();
    ServerStats stats = server.channelzStats();
    assertThat(stats.listenSockets()).hasSize(1);
    SocketStats listening =
        Channelz.global().socket(stats.listenSockets().get(0).id()).channelzStats();
    assertThat(((InetSocketAddress) listening.local()).getPort()).isEqualTo(port);
    assertThat(listening.remote()).isNull();
    assertThat(stats.sockets()).hasSize(1);
    return Channelz.global().socket(stats.sockets().get(0).id());
  }

  @Test
  void tlsSocketsReportTheirCipherSuiteAndCertificates() throws Exception {
    TestCertificates certificates = TestCertificates.generate("tern-server");
    Server server =
        cleanup.register(
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .sslContext(
                    NettySslContexts.forServer(certificates.key, certificates.certificate).build())
                .addService(EchoService.definition())
                .build());
    server.start();
    int port = port(server);
    ManagedChannel channel =
        cleanup.register(
            NettyChannelBuilder.forAddress("127.0.0.1", port)
                .sslContext(
                    NettySslContexts.forClient().trustManager(certificates.certificate).build())
                .build());
    assertThat(ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, CallOptions.DEFAULT, "hi"))
        .isEqualTo("hi");

    Instrumented<SocketStats> client = clientSocket(port);
    SocketStats clientStats = client.channelzStats();
    assertThat(clientStats.tls()).isNotNull();
    assertThat(clientStats.tls().cipherSuite()).startsWith("TLS_");
    assertThat(clientStats.tls().remoteCertificate()).isEqualTo(certificates.certificate);
    assertThat(clientStats.tls().localCertificate()).isNull();

    Instrumented<SocketStats> accepted = serverSocket(port);
    SocketStats serverStats = accepted.channelzStats();
    assertThat(serverStats.tls()).isNotNull();
    assertThat(serverStats.tls().cipherSuite()).isEqualTo(clientStats.tls().cipherSuite());
    assertThat(serverStats.tls().localCertificate()).isEqualTo(certificates.certificate);
    assertThat(serverStats.tls().remoteCertificate()).isNull();
    assertThat(serverStats.remote()).isEqualTo(clientStats.local());

    channel.shutdown();
    server.shutdown();
    assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(Channelz.global().contains(client.channelzId())).isFalse();
    assertThat(Channelz.global().contains(accepted.channelzId())).isFalse();
  }

  /**
   * Also: its subchannel keeps its call counts once it has closed, read from the socket alone
   * ({@link InstrumentedSocket#streamCounts()}).
   */
  @Test
  void aClosedSocketKeepsItsCountsAndReportsNoOptions() throws Exception {
    Server server =
        cleanup.register(
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(EchoService.definition())
                .build());
    server.start();
    int port = port(server);
    ManagedChannel channel =
        cleanup.register(NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build());
    assertThat(ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, CallOptions.DEFAULT, "hi"))
        .isEqualTo("hi");
    Instrumented<SocketStats> client = clientSocket(port);
    Instrumented<ChannelStats> subchannel = subchannel(port);
    SocketStats open = client.channelzStats();
    assertThat(open.options()).containsEntry("TCP_NODELAY", "true");
    assertThat(client).isInstanceOf(InstrumentedSocket.class);
    assertThat(((InstrumentedSocket) client).streamCounts())
        .isEqualTo(new CallStats(1, 1, 0, open.lastLocalStreamCreated()));

    channel.shutdown();
    assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    SocketStats closed = client.channelzStats();
    assertThat(closed.options()).isEmpty();
    assertThat(closed.streamsStarted()).isEqualTo(1);
    assertThat(closed.streamsSucceeded()).isEqualTo(1);
    assertThat(closed.local()).isEqualTo(open.local());
    ChannelStats retired = subchannel.channelzStats();
    assertThat(retired.sockets()).as("the connection has closed").isEmpty();
    assertThat(retired.calls()).isEqualTo(new CallStats(1, 1, 0, open.lastLocalStreamCreated()));
  }

  @Test
  void keepAlivePingsAreCounted() throws Exception {
    ProbeService probe = new ProbeService();
    Server server =
        cleanup.register(
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .permitKeepAliveTime(1, TimeUnit.MILLISECONDS)
                .addService(probe.definition())
                .build());
    server.start();
    int port = port(server);
    ManagedChannel channel =
        cleanup.register(
            NettyChannelBuilder.forAddress("127.0.0.1", port)
                .usePlaintext()
                .keepAliveTimeMinimum(0, TimeUnit.NANOSECONDS)
                .keepAliveTime(20, TimeUnit.MILLISECONDS)
                .keepAliveTimeout(10, TimeUnit.SECONDS)
                .build());
    ClientCall<String, String> hang = channel.newCall(ProbeService.HANG, CallOptions.DEFAULT);
    RecordingClientCallListener<String> listener = new RecordingClientCallListener<>();
    hang.start(listener, new Metadata());
    hang.request(1);
    hang.sendMessage("hang");
    hang.halfClose();
    ProbeService.HangingCall hanging = probe.awaitHangingCall();

    // Nothing is read for 300 ms while a call is open: the keepalive pings every 20 ms idle.
    ClientCall<String, String> timed =
        channel.newCall(
            ProbeService.HANG, CallOptions.DEFAULT.withDeadlineAfter(300, TimeUnit.MILLISECONDS));
    RecordingClientCallListener<String> timedListener = new RecordingClientCallListener<>();
    timed.start(timedListener, new Metadata());
    timed.request(1);
    timed.sendMessage("wait");
    timed.halfClose();
    assertThat(timedListener.awaitStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);

    SocketStats stats = clientSocket(port).channelzStats();
    assertThat(stats.keepAlivesSent()).isPositive();
    assertThat(stats.streamsStarted()).isEqualTo(2);
    hanging.call().close(Status.OK, new Metadata());
    assertThat(listener.awaitStatus().isOk()).isTrue();
  }
}
