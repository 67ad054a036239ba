package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Metadata;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.netty.internal.io.TransportKind;
import dev.tern.netty.testing.TransportGroups;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Servers on Unix domain sockets (socket files and Linux abstract names) and channels calling them,
 * through the public builders, on each native kind; and TCP on every kind.
 */
class DomainSocketTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();
  @RegisterExtension static final TransportGroups loops = new TransportGroups();

  @TempDir Path dir;

  /** The {@code :authority} of each call the server saw. */
  private final List<String> authorities = new ArrayList<>();

  @ParameterizedTest
  @EnumSource(
      value = TransportKind.class,
      names = {"EPOLL", "IO_URING"})
  void callsOverASocketFileWhichIsRemovedOnShutdown(TransportKind kind) throws Exception {
    EventLoopGroup group = loops.group(kind);
    Path file = dir.resolve("tern.sock");
    DomainSocketAddress address = new DomainSocketAddress(file.toString());
    Server server =
        start(
            NettyServerBuilder.forAddress(address)
                .bossEventLoopGroup(group)
                .workerEventLoopGroup(group));
    assertThat(server.getListenSockets()).hasSize(1);
    assertThat(server.getListenSockets().get(0)).isEqualTo(address);
    assertThat(server.getPort()).isEqualTo(-1);
    assertThat(file).exists();

    ManagedChannel channel = channel(NettyChannelBuilder.forAddress(address).eventLoopGroup(group));
    assertCallsWork(channel);
    assertThat(authorities()).containsOnly("localhost");

    channel.shutdown();
    assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    server.shutdown();
    assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(file).doesNotExist();
  }

  @ParameterizedTest
  @EnumSource(
      value = TransportKind.class,
      names = {"EPOLL", "IO_URING"})
  void callsOverAnAbstractName(TransportKind kind) throws Exception {
    EventLoopGroup group = loops.group(kind);
    // Abstract names are machine-wide (per network namespace): a random one cannot collide.
    DomainSocketAddress address = new DomainSocketAddress("\0tern-test-" + UUID.randomUUID());
    start(
        NettyServerBuilder.forAddress(address)
            .bossEventLoopGroup(group)
            .workerEventLoopGroup(group));
    assertCallsWork(channel(NettyChannelBuilder.forAddress(address).eventLoopGroup(group)));
  }

  @Test
  void theJdksAddressTypeWorksOnTheDefaultGroups() throws Exception {
    TransportGroups.assumeAvailable(TransportKind.EPOLL);
    UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("jdk.sock"));
    start(NettyServerBuilder.forAddress(address));
    assertCallsWork(channel(NettyChannelBuilder.forAddress(address)));
    assertThat(authorities()).containsOnly("localhost");
  }

  @Test
  void unixTargetsOfTheNamingSpecReachTheirSockets() throws Exception {
    TransportGroups.assumeAvailable(TransportKind.EPOLL);
    Path file = dir.resolve("target.sock");
    start(NettyServerBuilder.forAddress(new DomainSocketAddress(file.toString())));
    assertCallsWork(channel(NettyChannelBuilder.forTarget("unix:" + file)));
    assertCallsWork(channel(NettyChannelBuilder.forTarget("unix://" + file)));
    // Through the API only, as a user without a transport class in hand writes it.
    assertCallsWork(
        cleanup.register(ManagedChannelBuilder.forTarget("unix:" + file).usePlaintext().build()));
    assertThat(authorities()).containsOnly("localhost");

    String name = "tern-test-" + UUID.randomUUID();
    start(NettyServerBuilder.forAddress(new DomainSocketAddress("\0" + name)));
    assertCallsWork(channel(NettyChannelBuilder.forTarget("unix-abstract:" + name)));
  }

  @Test
  void malformedUnixTargetsFailTheBuildSayingWhy() {
    TransportGroups.assumeAvailable(TransportKind.EPOLL);
    assertThatThrownBy(() -> NettyChannelBuilder.forTarget("unix://host/tmp/x.sock").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "target 'unix://host/tmp/x.sock' has an authority ('host'); write unix:relative/path"
                + " or unix:///absolute/path");
    assertThatThrownBy(() -> NettyChannelBuilder.forTarget("unix-abstract:").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nothing after the scheme");
  }

  @Test
  void domainSocketsWantedOnNioGroupsRunOnTheSharedNativeGroups() throws Exception {
    TransportGroups.assumeAvailable(TransportKind.EPOLL);
    EventLoopGroup nio = loops.group(TransportKind.NIO);
    DomainSocketAddress address = new DomainSocketAddress(dir.resolve("nio.sock").toString());
    start(NettyServerBuilder.forAddress(address).bossEventLoopGroup(nio).workerEventLoopGroup(nio));
    assertCallsWork(channel(NettyChannelBuilder.forAddress(address).eventLoopGroup(nio)));
  }

  @ParameterizedTest
  @EnumSource(TransportKind.class)
  void tcpWorksOnEveryKind(TransportKind kind) throws Exception {
    EventLoopGroup group = loops.group(kind);
    Server server =
        start(
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .bossEventLoopGroup(group)
                .workerEventLoopGroup(group));
    assertCallsWork(
        channel(
            NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).eventLoopGroup(group)));
    assertThat(authorities()).containsOnly("127.0.0.1:" + server.getPort());
  }

  private Server start(NettyServerBuilder builder) throws IOException {
    Server server =
        cleanup.register(
            builder
                .addService(EchoService.definition())
                .intercept(new AuthorityRecorder())
                .build());
    server.start();
    return server;
  }

  private ManagedChannel channel(NettyChannelBuilder builder) {
    return cleanup.register(builder.usePlaintext().build());
  }

  /** A unary call and a server-streaming call of three messages succeed on {@code channel}. */
  static void assertCallsWork(Channel channel) {
    CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS);
    assertThat(ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, options, "over uds"))
        .isEqualTo("over uds");
    List<String> streamed = new ArrayList<>();
    ClientCalls.blockingServerStreamingCall(channel, EchoService.SERVER_STREAMING, options, "3")
        .forEachRemaining(streamed::add);
    assertThat(streamed).containsExactly("0", "1", "2");
  }

  /** Records each call's authority. Called from the server's threads: guarded by the list. */
  private final class AuthorityRecorder implements ServerInterceptor {
    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      synchronized (authorities) {
        authorities.add(call.getAuthority());
      }
      return next.startCall(call, headers);
    }
  }

  private List<String> authorities() {
    synchronized (authorities) {
      return List.copyOf(authorities);
    }
  }
}
