package dev.tern.netty;

import dev.tern.netty.internal.io.TransportKind;

/**
 * The SPI conformance suite on native io_uring over a Unix domain socket (tests in
 * NettyTransportTest).
 */
class NettyIoUringDomainSocketTransportTest extends NettyKindTransportTest {
  NettyIoUringDomainSocketTransportTest() {
    super(TransportKind.IO_URING, true);
  }
}
