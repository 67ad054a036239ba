package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.netty.internal.io.EventLoops;
import dev.tern.netty.internal.io.TransportKind;
import dev.tern.netty.testing.TransportGroups;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import io.netty.channel.unix.DomainSocketAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code -Ddev.tern.netty.transport} chooses the kind of Tern's shared event loops, which servers
 * and channels given no groups then use for TCP and Unix domain sockets alike. Run by its own
 * Surefire execution ({@code io-uring-by-property}, see the pom), with the property set to {@code
 * io_uring}.
 */
class SharedTransportPropertyTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @TempDir Path dir;

  private TransportKind chosen;

  @BeforeEach
  void onlyWithTheProperty() {
    String property = System.getProperty(EventLoops.TRANSPORT_PROPERTY);
    assumeTrue(property != null, "runs in the io-uring-by-property Surefire execution only");
    chosen = TransportKind.named(property);
    TransportGroups.assumeAvailable(chosen);
  }

  @Test
  void theSharedGroupsAreOfTheChosenKind() {
    assertThat(EventLoops.sharedKind()).isEqualTo(chosen);
    assertThat(TransportKind.of(EventLoops.sharedWorkerGroup())).isEqualTo(chosen);
    assertThat(TransportKind.of(EventLoops.sharedBossGroup())).isEqualTo(chosen);
  }

  @Test
  void tcpAndDomainSocketsRunOnThem() throws Exception {
    Server tcp =
        cleanup.register(
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(EchoService.definition())
                .build());
    tcp.start();
    DomainSocketTest.assertCallsWork(
        cleanup.register(
            NettyChannelBuilder.forAddress("127.0.0.1", tcp.getPort()).usePlaintext().build()));

    DomainSocketAddress path = new DomainSocketAddress(dir.resolve("shared.sock").toString());
    Server uds =
        cleanup.register(
            NettyServerBuilder.forAddress(path).addService(EchoService.definition()).build());
    uds.start();
    ManagedChannel channel =
        cleanup.register(NettyChannelBuilder.forAddress(path).usePlaintext().build());
    DomainSocketTest.assertCallsWork(channel);
  }
}
