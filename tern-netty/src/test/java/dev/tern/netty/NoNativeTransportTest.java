package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.netty.internal.io.EventLoops;
import dev.tern.netty.internal.io.TransportKind;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import io.netty.channel.unix.DomainSocketAddress;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an application without a native transport sees: TCP on NIO, and a clear error naming the
 * missing dependency for a Unix domain socket. Run by its own Surefire execution ({@code
 * no-native}, see the pom) with {@code -Dio.netty.transport.noNative=true}, which makes Netty's
 * epoll and io_uring report themselves unavailable in that JVM.
 */
class NoNativeTransportTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @TempDir Path dir;

  @BeforeEach
  void onlyWithoutNativeTransports() {
    assumeTrue(
        Boolean.getBoolean("io.netty.transport.noNative"),
        "runs in the no-native Surefire execution only");
    assertThat(TransportKind.EPOLL.isAvailable()).isFalse();
    assertThat(TransportKind.IO_URING.isAvailable()).isFalse();
  }

  @Test
  void tcpRunsOnNio() throws Exception {
    assertThat(EventLoops.sharedKind()).isEqualTo(TransportKind.NIO);
    Server server =
        cleanup.register(
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(EchoService.definition())
                .build());
    server.start();
    ManagedChannel channel =
        cleanup.register(
            NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build());
    DomainSocketTest.assertCallsWork(channel);
  }

  @Test
  void aServerOnADomainSocketIsRejectedAtBuildNamingTheDependency() {
    DomainSocketAddress netty = new DomainSocketAddress(dir.resolve("a.sock").toString());
    assertThatThrownBy(
            () -> NettyServerBuilder.forAddress(netty).addService(EchoService.definition()).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("io.netty:netty-transport-native-epoll")
        .hasMessageContaining(netty.path());
    UnixDomainSocketAddress jdk = UnixDomainSocketAddress.of(dir.resolve("b.sock"));
    assertThatThrownBy(
            () -> NettyServerBuilder.forAddress(jdk).addService(EchoService.definition()).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("io.netty:netty-transport-native-epoll");
  }

  @Test
  void callsToADomainSocketFailUnavailableNamingTheDependency() {
    ManagedChannel channel =
        cleanup.register(
            NettyChannelBuilder.forAddress(
                    new DomainSocketAddress(dir.resolve("c.sock").toString()))
                .usePlaintext()
                .build());
    assertThatThrownBy(
            () ->
                ClientCalls.blockingUnaryCall(
                    channel,
                    EchoService.UNARY,
                    CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
                    "unreachable"))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
              assertThat(e.getStatus().getDescription())
                  .contains("io.netty:netty-transport-native-epoll");
            });
  }

  @Test
  void namingAnUnavailableKindInThePropertyIsAnError() {
    assertThatThrownBy(() -> EventLoops.chooseKind("epoll"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("-Ddev.tern.netty.transport=epoll")
        .hasMessageContaining("not available here")
        .hasMessageContaining("noNative");
  }
}
