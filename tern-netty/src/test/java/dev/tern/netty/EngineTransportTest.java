package dev.tern.netty;

import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.netty.internal.server.NettyServer;
import dev.tern.netty.internal.server.ServerOptions;
import dev.tern.spi.TransportServer;

/**
 * The SPI conformance suite (unary and streaming calls, flow control and readiness, deadlines,
 * cancellation from either side, large messages, metadata and trailers, shutdown with calls in
 * flight) with the server on Tern's own HTTP/2 engine and the client on Netty's codec, over TCP
 * loopback: the engine must serve every call as Netty's codec does.
 */
class EngineTransportTest extends NettyTransportTest {
  @Override
  protected TransportServer newServer() {
    return new NettyServer(
        bindAddress(),
        bossGroup(),
        workerGroup(),
        null,
        ServerOptions.withLimits(
            GrpcHeaders.DEFAULT_MAX_MESSAGE_SIZE, GrpcHeaders.DEFAULT_MAX_HEADER_LIST_SIZE, true));
  }
}
