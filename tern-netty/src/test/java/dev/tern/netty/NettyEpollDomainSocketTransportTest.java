package dev.tern.netty;

import dev.tern.netty.internal.io.TransportKind;

/**
 * The SPI conformance suite on native epoll over a Unix domain socket (tests in
 * NettyTransportTest).
 */
class NettyEpollDomainSocketTransportTest extends NettyKindTransportTest {
  NettyEpollDomainSocketTransportTest() {
    super(TransportKind.EPOLL, true);
  }
}
