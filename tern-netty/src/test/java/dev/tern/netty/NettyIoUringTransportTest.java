package dev.tern.netty;

import dev.tern.netty.internal.TransportKind;
import dev.tern.netty.testing.TransportGroups;
import io.netty.channel.EventLoopGroup;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The SPI conformance suite on TCP loopback over native io_uring event loops. */
class NettyIoUringTransportTest extends NettyTransportTest {
  @RegisterExtension static final TransportGroups loops = new TransportGroups();

  @Override
  protected EventLoopGroup bossGroup() {
    return loops.group(TransportKind.IO_URING);
  }

  @Override
  protected EventLoopGroup workerGroup() {
    return loops.group(TransportKind.IO_URING);
  }
}
