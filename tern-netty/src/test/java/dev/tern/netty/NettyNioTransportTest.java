package dev.tern.netty;

import dev.tern.netty.internal.io.TransportKind;
import org.junit.jupiter.api.Tag;

/** The SPI conformance suite on NIO loops over TCP loopback (tests in NettyTransportTest). */
@Tag("external-check") // long, or a rerun: -Pexternal-checks and CI (README.md#development)
class NettyNioTransportTest extends NettyKindTransportTest {
  NettyNioTransportTest() {
    super(TransportKind.NIO, false);
  }
}
