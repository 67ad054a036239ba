package dev.tern.netty.internal.server;

import dev.tern.channelz.Instrumented;
import dev.tern.channelz.SocketStats;
import dev.tern.spi.ServerListener;
import dev.tern.spi.ServerTransport;
import dev.tern.spi.ServerTransportListener;
import dev.tern.spi.TransportServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A server listening twice on one port number: HTTP/2 on TCP ({@link NettyServer}) and HTTP/3 on
 * UDP (an {@link Http3Transport.Endpoint}). The TCP socket is bound first, so that port 0 picks a
 * free TCP port, and UDP takes the same number; if UDP cannot have it, the TCP socket is closed
 * again and {@link #start} fails. The listen addresses are the TCP socket's (what {@code
 * Server.getPort()} reports is both sockets' port). Once both are bound, the HTTP/2 responses
 * advertise the UDP port ({@code alt-svc: h3=":port"}). {@code serverShutdown} is reported once
 * both sockets have closed.
 *
 * <p>Thread-safe: both halves are; the runtime's listener is called by either half.
 */
public final class TcpAndUdpServer implements TransportServer {
  private final NettyServer tcp;
  private final Http3Transport.Endpoint udp;
  private final ServerOptions options;

  /**
   * @param options the TCP server's, whose responses advertise the UDP port once it is bound
   */
  public TcpAndUdpServer(NettyServer tcp, Http3Transport.Endpoint udp, ServerOptions options) {
    this.tcp = Objects.requireNonNull(tcp, "tcp");
    this.udp = Objects.requireNonNull(udp, "udp");
    this.options = Objects.requireNonNull(options, "options");
  }

  @Override
  public void start(ServerListener listener) throws IOException {
    Objects.requireNonNull(listener, "listener");
    AtomicInteger open = new AtomicInteger(2);
    Runnable stopped =
        () -> {
          if (open.decrementAndGet() == 0) {
            listener.serverShutdown();
          }
        };
    tcp.start(new ShutdownCounting(listener, stopped));
    InetSocketAddress bound = (InetSocketAddress) tcp.getListenSocketAddresses().get(0);
    try {
      udp.start(bound, listener, stopped);
    } catch (IOException | RuntimeException e) {
      tcp.shutdown();
      stopped.run(); // the UDP half never opened
      throw e;
    }
    options.advertiseHttp3(bound.getPort());
  }

  @Override
  public void shutdown() {
    tcp.shutdown();
    udp.shutdown();
  }

  @Override
  public List<? extends SocketAddress> getListenSocketAddresses() {
    return tcp.getListenSocketAddresses();
  }

  @Override
  public ScheduledExecutorService getScheduledExecutorService() {
    return tcp.getScheduledExecutorService();
  }

  @Override
  public List<Instrumented<SocketStats>> channelzListenSockets() {
    return tcp.channelzListenSockets();
  }

  @Override
  public String toString() {
    return "TcpAndUdpServer{" + tcp + ", udp " + udp.localAddress() + "}";
  }

  /** The runtime's listener, with the TCP half's {@code serverShutdown} counted, not passed on. */
  private record ShutdownCounting(ServerListener delegate, Runnable stopped)
      implements ServerListener {
    @Override
    public boolean acceptConnection(SocketAddress local, SocketAddress remote) {
      return delegate.acceptConnection(local, remote);
    }

    @Override
    public ServerTransportListener transportCreated(ServerTransport transport) {
      return delegate.transportCreated(transport);
    }

    @Override
    public void serverShutdown() {
      stopped.run();
    }
  }
}
