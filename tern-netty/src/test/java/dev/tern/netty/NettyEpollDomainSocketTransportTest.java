package dev.tern.netty;

import dev.tern.netty.internal.DomainSockets;
import dev.tern.netty.internal.TransportKind;
import dev.tern.netty.testing.TransportGroups;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.unix.DomainSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The SPI conformance suite over a Unix domain socket (a file in a temp dir), on native epoll. */
class NettyEpollDomainSocketTransportTest extends NettyTransportTest {
  @RegisterExtension static final TransportGroups loops = new TransportGroups();

  @TempDir Path dir;

  @Override
  protected EventLoopGroup bossGroup() {
    return loops.group(TransportKind.EPOLL);
  }

  @Override
  protected EventLoopGroup workerGroup() {
    return loops.group(TransportKind.EPOLL);
  }

  @Override
  protected SocketAddress bindAddress() {
    return new DomainSocketAddress(dir.resolve("tern.sock").toString());
  }

  @Override
  protected String authority(SocketAddress listening) {
    return DomainSockets.DEFAULT_AUTHORITY;
  }
}
