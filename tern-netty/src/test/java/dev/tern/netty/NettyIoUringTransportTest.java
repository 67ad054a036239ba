package dev.tern.netty;

import dev.tern.netty.internal.io.TransportKind;

/** The SPI conformance suite on native io_uring over TCP loopback (tests in NettyTransportTest). */
class NettyIoUringTransportTest extends NettyKindTransportTest {
  NettyIoUringTransportTest() {
    super(TransportKind.IO_URING, false);
  }
}
