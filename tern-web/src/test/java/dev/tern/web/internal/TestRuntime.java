package dev.tern.web.internal;

import dev.tern.Attributes;
import dev.tern.BindableService;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.internal.server.AbstractServerBuilder;
import dev.tern.netty.http.HttpServerProtocol;
import dev.tern.spi.ServerListener;
import dev.tern.spi.ServerTransport;
import dev.tern.spi.ServerTransportListener;
import dev.tern.spi.TransportServer;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Tern's real server runtime (dispatcher, interceptors, deadlines, compression) behind a transport
 * of one fake connection, so protocols can be driven with {@link FakeExchange}s before a real HTTP
 * transport serves them. Close it after the test.
 */
final class TestRuntime implements AutoCloseable {
  private final EventLoopGroup loops =
      new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  private final Server server;
  private final FakeTransportServer transportServer = new FakeTransportServer();
  private final ServerTransportListener connection;

  TestRuntime(BindableService service) throws IOException {
    this(service, 4 * 1024 * 1024);
  }

  TestRuntime(BindableService service, int maxInboundMessageSize) throws IOException {
    server = new Builder().addService(service).maxInboundMessageSize(maxInboundMessageSize).build();
    server.start();
    ServerTransportListener[] created = new ServerTransportListener[1];
    loop()
        .submit(
            () -> {
              created[0] = transportServer.listener.transportCreated(new FakeTransport());
              created[0].transportReady(Attributes.EMPTY);
            })
        .syncUninterruptibly();
    connection = created[0];
  }

  EventLoop loop() {
    return loops.next();
  }

  /** Offers {@code request} to {@code protocol} as the transport would, and serves it. */
  FakeExchange serve(HttpServerProtocol protocol, FakeRequest request) {
    FakeExchange exchange = new FakeExchange(request, connection, loop());
    exchange.run(
        () -> {
          if (!protocol.handles(request)) {
            throw new AssertionError("protocol does not handle " + request.method());
          }
          exchange.setBodyListener(protocol.serve(exchange));
        });
    return exchange;
  }

  @Override
  public void close() {
    server.shutdownNow();
    loop().submit(connection::transportTerminated).syncUninterruptibly();
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    timer.shutdownNow();
    loops.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private final class Builder extends AbstractServerBuilder<Builder> {
    @Override
    protected TransportServer buildTransportServer() {
      return transportServer;
    }
  }

  private final class FakeTransportServer implements TransportServer {
    ServerListener listener;

    @Override
    public void start(ServerListener listener) {
      this.listener = listener;
    }

    @Override
    public void shutdown() {
      listener.serverShutdown();
    }

    @Override
    public List<? extends SocketAddress> getListenSocketAddresses() {
      return List.of();
    }

    @Override
    public ScheduledExecutorService getScheduledExecutorService() {
      return timer;
    }
  }

  private final class FakeTransport implements ServerTransport {
    @Override
    public void shutdown() {}

    @Override
    public void shutdownNow(Status reason) {}

    @Override
    public ScheduledExecutorService getScheduledExecutorService() {
      return timer;
    }
  }
}
