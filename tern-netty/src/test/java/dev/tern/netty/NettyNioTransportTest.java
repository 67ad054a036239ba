package dev.tern.netty;

import dev.tern.netty.internal.io.TransportKind;

/** The SPI conformance suite on NIO loops over TCP loopback (tests in NettyTransportTest). */
class NettyNioTransportTest extends NettyKindTransportTest {
  NettyNioTransportTest() {
    super(TransportKind.NIO, false);
  }
}
