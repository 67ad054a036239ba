package dev.tern.netty;

import dev.tern.netty.internal.TransportKind;
import dev.tern.netty.testing.TransportGroups;
import io.netty.channel.EventLoopGroup;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The SPI conformance suite on TCP loopback over NIO event loops. */
class NettyNioTransportTest extends NettyTransportTest {
  @RegisterExtension static final TransportGroups loops = new TransportGroups();

  @Override
  protected EventLoopGroup bossGroup() {
    return loops.group(TransportKind.NIO);
  }

  @Override
  protected EventLoopGroup workerGroup() {
    return loops.group(TransportKind.NIO);
  }
}
