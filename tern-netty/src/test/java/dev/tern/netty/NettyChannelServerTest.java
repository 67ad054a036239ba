package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.netty.internal.client.NettyClientTransport;
import dev.tern.netty.internal.io.EventLoops;
import dev.tern.spi.ManagedClientTransport;
import dev.tern.testing.AbstractChannelServerTest;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The API-level conformance suite over HTTP/2 on loopback (plaintext). */
class NettyChannelServerTest extends AbstractChannelServerTest {
  /** Fails a test whose buffers Netty's (paranoid) leak detector reports. */
  @RegisterExtension final LeakWatch leaks = new LeakWatch();

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0));
  }

  @Override
  protected ManagedChannelBuilder<?> newChannelBuilder(Server server) {
    return NettyChannelBuilder.forAddress("127.0.0.1", port(server)).usePlaintext();
  }

  @Override
  protected ManagedClientTransport newClientTransport(Server server) {
    return new NettyClientTransport(
        new InetSocketAddress("127.0.0.1", port(server)),
        "127.0.0.1:" + port(server),
        "tern-test",
        new NettyClientTransport.TransportOptions(
            EventLoops.sharedWorkerGroup(),
            EventLoops.clientChannelFactory(EventLoops.sharedWorkerGroup()),
            NettyChannelBuilder.DEFAULT_FLOW_CONTROL_WINDOW,
            GrpcHeaders.DEFAULT_MAX_HEADER_LIST_SIZE,
            10_000));
  }

  @Test
  void serverBuilderForPortAndChannelBuilderForAddressFindThisTransport() throws Exception {
    Server found = cleanup.register(ServerBuilder.forPort(0).addService(echoDefinition()).build());
    found.start();
    assertThat(found).isNotNull();
    ManagedChannel byAddress =
        cleanup.register(
            ManagedChannelBuilder.forAddress("127.0.0.1", port(found)).usePlaintext().build());
    assertThat(echo(byAddress, "found by the providers")).isEqualTo("found by the providers");
    ManagedChannel byTarget =
        cleanup.register(
            ManagedChannelBuilder.forTarget("127.0.0.1:" + port(found)).usePlaintext().build());
    assertThat(echo(byTarget, "by target")).isEqualTo("by target");
  }

  private static dev.tern.ServerServiceDefinition echoDefinition() {
    return dev.tern.testing.EchoService.definition();
  }

  private static int port(Server server) {
    return ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
  }
}
