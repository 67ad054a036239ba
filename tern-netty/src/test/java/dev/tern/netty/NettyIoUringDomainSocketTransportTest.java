package dev.tern.netty;

import dev.tern.netty.internal.io.TransportKind;
import org.junit.jupiter.api.Tag;

/**
 * The SPI conformance suite on native io_uring over a Unix domain socket (tests in
 * NettyTransportTest).
 */
@Tag("external-check") // long, or a rerun: -Pexternal-checks and CI (README.md#development)
class NettyIoUringDomainSocketTransportTest extends NettyKindTransportTest {
  NettyIoUringDomainSocketTransportTest() {
    super(TransportKind.IO_URING, true);
  }
}
