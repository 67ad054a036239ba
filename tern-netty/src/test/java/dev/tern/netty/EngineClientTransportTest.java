package dev.tern.netty;

import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.netty.internal.client.NettyClientTransport;
import dev.tern.spi.ManagedClientTransport;
import dev.tern.spi.TransportServer;
import java.net.SocketAddress;

/**
 * The SPI conformance suite (unary and streaming calls, flow control and readiness, deadlines,
 * cancellation from either side, large messages, metadata and trailers, shutdown with calls in
 * flight) with the client on Tern's own HTTP/2 engine and the server on Netty's codec, over TCP
 * loopback: the engine must carry every call as Netty's codec does.
 */
class EngineClientTransportTest extends NettyTransportTest {
  @Override
  protected ManagedClientTransport newClientTransport(TransportServer server) {
    SocketAddress address = server.getListenSocketAddresses().get(0);
    return new NettyClientTransport(
        address,
        authority(address),
        "tern-test",
        new NettyClientTransport.TransportOptions(
                workerGroup(),
                null,
                NettyChannelBuilder.DEFAULT_FLOW_CONTROL_WINDOW,
                GrpcHeaders.DEFAULT_MAX_HEADER_LIST_SIZE,
                10_000)
            .withTernHttp2Engine(true));
  }
}
