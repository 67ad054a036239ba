package dev.tern.netty.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netty.internal.io.TransportKind;
import dev.tern.testing.RecordingServerListener;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** How a started {@link NettyServer}'s listening socket accepts, on each transport that runs. */
class NettyServerAcceptTest {
  @ParameterizedTest
  @EnumSource(TransportKind.class)
  void oneWakeUpAcceptsUpTo1024WaitingConnections(TransportKind kind) throws Exception {
    Assumptions.assumeTrue(kind.isAvailable(), kind.unavailabilityReason());
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, kind.ioHandlerFactory());
    NettyServer server =
        new NettyServer(
            new InetSocketAddress("127.0.0.1", 0),
            group,
            group,
            null,
            ServerOptions.withLimits(4 * 1024 * 1024, 8192));
    try {
      assertThat(server.acceptsPerWakeup()).isZero();
      server.start(new RecordingServerListener());

      // Netty's 16 let 10,000 clients connecting at once overflow the kernel's accept queue.
      assertThat(server.acceptsPerWakeup()).isEqualTo(NettyServer.ACCEPTS_PER_WAKEUP);
      assertThat(NettyServer.ACCEPTS_PER_WAKEUP).isEqualTo(1024);
    } finally {
      server.shutdown();
      group.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
    }
  }
}
