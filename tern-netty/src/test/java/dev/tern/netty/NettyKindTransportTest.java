package dev.tern.netty;

import dev.tern.netty.internal.io.DomainSockets;
import dev.tern.netty.internal.io.TransportKind;
import dev.tern.netty.testing.TransportGroups;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.unix.DomainSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link NettyTransportTest}'s conformance suite (its tests and their assertions) on loops of one
 * transport kind of the test's own, over TCP loopback or a Unix domain socket (a file in a temp
 * dir). A subclass names the kind and the address family; a kind that cannot run here skips the
 * tests, or fails them in CI.
 */
abstract class NettyKindTransportTest extends NettyTransportTest {
  @RegisterExtension static final TransportGroups loops = new TransportGroups();

  @TempDir Path dir;

  private final TransportKind kind;
  private final boolean domainSocket;

  NettyKindTransportTest(TransportKind kind, boolean domainSocket) {
    this.kind = kind;
    this.domainSocket = domainSocket;
  }

  @Override
  protected EventLoopGroup bossGroup() {
    return loops.group(kind);
  }

  @Override
  protected EventLoopGroup workerGroup() {
    return loops.group(kind);
  }

  @Override
  protected SocketAddress bindAddress() {
    return domainSocket
        ? new DomainSocketAddress(dir.resolve("tern.sock").toString())
        : super.bindAddress();
  }

  @Override
  protected String authority(SocketAddress listening) {
    return domainSocket ? DomainSockets.DEFAULT_AUTHORITY : super.authority(listening);
  }
}
