package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Attributes;
import dev.tern.Grpc;
import dev.tern.SecurityLevel;
import dev.tern.Status;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.netty.internal.EventLoops;
import dev.tern.netty.internal.NettyClientTransport;
import dev.tern.netty.internal.NettyServer;
import dev.tern.netty.internal.ServerOptions;
import dev.tern.spi.ManagedClientTransport;
import dev.tern.spi.TransportServer;
import dev.tern.testing.AbstractTransportTest;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The SPI conformance suite over HTTP/2 on loopback (plaintext). */
class NettyTransportTest extends AbstractTransportTest {
  /** Fails a test whose buffers Netty's (paranoid) leak detector reports. */
  @RegisterExtension final LeakWatch leaks = new LeakWatch();

  @Override
  protected TransportServer newServer() {
    return new NettyServer(
        new InetSocketAddress("127.0.0.1", 0),
        EventLoops.sharedBossGroup(),
        EventLoops.sharedWorkerGroup(),
        EventLoops.serverChannelFactory(EventLoops.sharedBossGroup()),
        ServerOptions.withLimits(
            GrpcHeaders.DEFAULT_MAX_MESSAGE_SIZE, GrpcHeaders.DEFAULT_MAX_HEADER_LIST_SIZE));
  }

  @Override
  protected ManagedClientTransport newClientTransport(TransportServer server) {
    InetSocketAddress address = (InetSocketAddress) server.getListenSocketAddresses().get(0);
    return new NettyClientTransport(
        address,
        "127.0.0.1:" + address.getPort(),
        "tern-test",
        new NettyClientTransport.TransportOptions(
            EventLoops.sharedWorkerGroup(),
            EventLoops.clientChannelFactory(EventLoops.sharedWorkerGroup()),
            NettyChannelBuilder.DEFAULT_FLOW_CONTROL_WINDOW,
            GrpcHeaders.DEFAULT_MAX_HEADER_LIST_SIZE,
            10_000));
  }

  @Test
  void transportAttributesNameBothEndsAndClaimNoSecurity() {
    Attributes server = serverTransport().awaitReady();
    InetSocketAddress listening = (InetSocketAddress) this.server.getListenSocketAddresses().get(0);
    assertThat(server.get(Grpc.TRANSPORT_ATTR_LOCAL_ADDR)).isEqualTo(listening);
    assertThat(server.get(Grpc.TRANSPORT_ATTR_SECURITY_LEVEL)).isEqualTo(SecurityLevel.NONE);
    Attributes clientAttrs = client.getAttributes();
    assertThat(clientAttrs.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR)).isEqualTo(listening);
    assertThat(clientAttrs.get(Grpc.TRANSPORT_ATTR_LOCAL_ADDR))
        .isEqualTo(server.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
    assertThat(clientAttrs.get(Grpc.TRANSPORT_ATTR_SSL_SESSION)).isNull();
  }

  @Test
  void serverStreamSeesTheClientsAuthority() {
    StreamPair pair = startStream();
    InetSocketAddress listening = (InetSocketAddress) server.getListenSocketAddresses().get(0);
    assertThat(pair.serverStream().getAuthority()).isEqualTo("127.0.0.1:" + listening.getPort());
    pair.clientStream().cancel(Status.CANCELLED);
    pair.serverListener().awaitClosed();
  }
}
