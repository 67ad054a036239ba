package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Attributes;
import dev.tern.Grpc;
import dev.tern.SecurityLevel;
import dev.tern.Status;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.netty.internal.client.NettyClientTransport;
import dev.tern.netty.internal.io.EventLoops;
import dev.tern.netty.internal.server.NettyServer;
import dev.tern.netty.internal.server.ServerOptions;
import dev.tern.spi.ManagedClientTransport;
import dev.tern.spi.TransportServer;
import dev.tern.testing.AbstractTransportTest;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The SPI conformance suite over HTTP/2 (plaintext), on TCP loopback and Tern's shared event loops
 * (native epoll where it runs). Subclasses run it on other transport kinds and on Unix domain
 * sockets by overriding the hooks. The channel types are left to the transport (it picks them from
 * the group and the address), so the suite also covers that choice.
 */
class NettyTransportTest extends AbstractTransportTest {
  /** Fails a test whose buffers Netty's (paranoid) leak detector reports. */
  @RegisterExtension final LeakWatch leaks = new LeakWatch();

  /** The server's acceptor loops; default: Tern's shared ones. */
  protected EventLoopGroup bossGroup() {
    return EventLoops.sharedBossGroup();
  }

  /** The loops of the server's connections and of the client; default: Tern's shared ones. */
  protected EventLoopGroup workerGroup() {
    return EventLoops.sharedWorkerGroup();
  }

  /** Where the server listens; default: 127.0.0.1, a free port. Called once per test. */
  protected SocketAddress bindAddress() {
    return new InetSocketAddress("127.0.0.1", 0);
  }

  /** The authority the client sends to a server listening on {@code listening}. */
  protected String authority(SocketAddress listening) {
    return "127.0.0.1:" + ((InetSocketAddress) listening).getPort();
  }

  @Override
  protected TransportServer newServer() {
    return new NettyServer(
        bindAddress(),
        bossGroup(),
        workerGroup(),
        null,
        ServerOptions.withLimits(
            GrpcHeaders.DEFAULT_MAX_MESSAGE_SIZE, GrpcHeaders.DEFAULT_MAX_HEADER_LIST_SIZE));
  }

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
            10_000));
  }

  @Test
  void transportAttributesNameBothEndsAndClaimNoSecurity() {
    Attributes server = serverTransport().awaitReady();
    SocketAddress listening = this.server.getListenSocketAddresses().get(0);
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
    SocketAddress listening = server.getListenSocketAddresses().get(0);
    assertThat(pair.serverStream().getAuthority()).isEqualTo(authority(listening));
    pair.clientStream().cancel(Status.CANCELLED);
    pair.serverListener().awaitClosed();
  }
}
