package dev.tern.netty;

import dev.tern.ManagedChannelBuilder;
import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.netty.internal.client.NettyClientTransport;
import dev.tern.netty.internal.io.DomainSockets;
import dev.tern.netty.internal.io.TransportKind;
import dev.tern.netty.testing.TransportGroups;
import dev.tern.spi.ManagedClientTransport;
import dev.tern.testing.AbstractChannelServerTest;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.unix.DomainSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API-level conformance suite through the public builders, over Unix domain sockets (files in a
 * temp dir) on native epoll.
 */
@Tag("external-check") // long, or a rerun: -Pexternal-checks and CI (README.md#development)
class NettyDomainSocketChannelServerTest extends AbstractChannelServerTest {
  /** Fails a test whose buffers Netty's (paranoid) leak detector reports. */
  @RegisterExtension final LeakWatch leaks = new LeakWatch();

  @RegisterExtension static final TransportGroups loops = new TransportGroups();

  @TempDir Path dir;

  /** Numbers the socket files of a test's servers. */
  private final AtomicInteger servers = new AtomicInteger();

  private EventLoopGroup group() {
    return loops.group(TransportKind.EPOLL);
  }

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    String path = dir.resolve("server-" + servers.incrementAndGet() + ".sock").toString();
    return NettyServerBuilder.forAddress(new DomainSocketAddress(path))
        .bossEventLoopGroup(group())
        .workerEventLoopGroup(group());
  }

  @Override
  protected ManagedChannelBuilder<?> newChannelBuilder(Server server) {
    return NettyChannelBuilder.forAddress(server.getListenSockets().get(0))
        .eventLoopGroup(group())
        .usePlaintext();
  }

  @Override
  protected ManagedClientTransport newClientTransport(Server server) {
    return new NettyClientTransport(
        server.getListenSockets().get(0),
        DomainSockets.DEFAULT_AUTHORITY,
        "tern-test",
        new NettyClientTransport.TransportOptions(
            group(),
            null,
            NettyChannelBuilder.DEFAULT_FLOW_CONTROL_WINDOW,
            GrpcHeaders.DEFAULT_MAX_HEADER_LIST_SIZE,
            10_000));
  }
}
