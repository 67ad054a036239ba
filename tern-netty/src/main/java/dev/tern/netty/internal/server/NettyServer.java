package dev.tern.netty.internal.server;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.channelz.Instrumented;
import dev.tern.channelz.SocketStats;
import dev.tern.netty.internal.io.DomainSockets;
import dev.tern.netty.internal.io.EventLoops;
import dev.tern.netty.internal.io.NetworkFailures;
import dev.tern.netty.internal.io.SocketNode;
import dev.tern.netty.internal.io.TransportKind;
import dev.tern.netty.internal.write.WriteLimits;
import dev.tern.spi.ServerListener;
import dev.tern.spi.TransportServer;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MaxMessagesRecvByteBufAllocator;
import io.netty.channel.ServerChannel;
import io.netty.channel.ServerChannelRecvByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.net.BindException;
import java.net.SocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The listening half of the HTTP/2 server transport: a bound server socket (TCP, or a Unix domain
 * socket whose file is removed again on shutdown) whose accepted connections each get a {@link
 * NettyServerTransport}, unless the listener refuses them when accepted ({@code acceptConnection}):
 * those are closed before a byte is written. Applications use {@link
 * dev.tern.netty.NettyServerBuilder}; the constructor is public for transport-level tests.
 *
 * <p>Thread-safe: {@link #start} and {@link #shutdown} synchronize on this object; the listener is
 * called from event loops (never under that lock).
 */
public final class NettyServer implements TransportServer {
  /** One INFO line when a server starts listening and one when it stops; nothing per call. */
  static final Logger LIFECYCLE_LOGGER = Logger.getLogger("dev.tern.netty.server");

  /**
   * How many waiting connections one wake-up of the listening socket accepts (Netty's default is
   * 16). The loop that accepts also serves connections, and in a storm of new connections each of
   * its passes serves every ready connection before it accepts again: with 16 per pass, 10,000
   * clients connecting at once filled the kernel's accept queue (somaxconn, 4,096) for seconds and
   * the kernel dropped some 33,000 SYNs, so clients waited on SYN retries for up to half a minute.
   * With 1,024 per pass the queue drains in a few passes (docs/performance-log.md, fan-in 10,000 x
   * 1); a pass then costs at most some tens of milliseconds of accepting.
   */
  static final int ACCEPTS_PER_WAKEUP = 1024;

  private final SocketAddress address;
  private final EventLoopGroup bossGroup;
  private final EventLoopGroup workerGroup;
  private final ChannelFactory<? extends ServerChannel> channelFactory;
  private final ServerOptions options;
  private volatile ConnectionTls connectionTls;
  private final AtomicBoolean shutdownReported = new AtomicBoolean();
  private final SocketNode listenSocket = new SocketNode("listen");

  @GuardedBy("this")
  private Channel serverChannel;

  @GuardedBy("this")
  private boolean shutdown;

  /**
   * A server for {@code address}: a TCP address (port 0 picks a free port) or a Unix domain socket,
   * Netty's {@code DomainSocketAddress} or the JDK's {@code UnixDomainSocketAddress}.
   *
   * @param bossGroup accepts connections; {@code workerGroup} serves them
   * @param channelFactory the listening channel type, or null for the one that suits the groups and
   *     the address ({@link EventLoops#forServer}, which may move a domain socket off NIO groups
   *     onto Tern's shared native ones)
   * @throws IllegalArgumentException for a domain socket address where no native transport runs
   */
  public NettyServer(
      SocketAddress address,
      EventLoopGroup bossGroup,
      EventLoopGroup workerGroup,
      ChannelFactory<? extends ServerChannel> channelFactory,
      ServerOptions options) {
    this.address = DomainSockets.toNetty(Objects.requireNonNull(address, "address"));
    Objects.requireNonNull(bossGroup, "bossGroup");
    Objects.requireNonNull(workerGroup, "workerGroup");
    EventLoops.ServerLoops loops =
        channelFactory != null
            ? new EventLoops.ServerLoops(bossGroup, workerGroup, channelFactory)
            : EventLoops.forServer(bossGroup, workerGroup, this.address);
    this.bossGroup = loops.boss();
    this.workerGroup = loops.workers();
    this.channelFactory = loops.channelFactory();
    this.options = Objects.requireNonNull(options, "options");
  }

  /**
   * Lets {@code connectionTls} choose each accepted connection's TLS (and extra attributes) before
   * its handshake; connections it chooses none for use the options' context (or plaintext). Call
   * before {@link #start}.
   */
  public void connectionTls(ConnectionTls connectionTls) {
    this.connectionTls = Objects.requireNonNull(connectionTls, "connectionTls");
  }

  /**
   * Binds the address.
   *
   * @throws IOException if binding fails; a {@link BindException} if the address is in use, on
   *     every transport (NIO's own is one; epoll's and io_uring's native errors are not)
   * @throws IllegalStateException if already started or shut down
   */
  @Override
  public synchronized void start(ServerListener listener) throws IOException {
    Objects.requireNonNull(listener, "listener");
    if (serverChannel != null) {
      throw new IllegalStateException("already started");
    }
    if (shutdown) {
      throw new IllegalStateException("already shut down");
    }
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(bossGroup, workerGroup)
            .channelFactory(channelFactory)
            .option(
                ChannelOption.RECVBUF_ALLOCATOR,
                new ServerChannelRecvByteBufAllocator().maxMessagesPerRead(ACCEPTS_PER_WAKEUP))
            .childHandler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    if (!listener.acceptConnection(ch.localAddress(), ch.remoteAddress())) {
                      ch.close(); // nothing written: to the client, as if nothing listened
                      return;
                    }
                    NettyServerTransport transport = new NettyServerTransport(ch, options);
                    transport.setTransportListener(listener.transportCreated(transport));
                    SslContext ssl = options.sslContext();
                    ConnectionTls perConnection = connectionTls;
                    if (perConnection != null) {
                      ConnectionTls.Choice choice = perConnection.choose(ch);
                      transport.acceptedAttributes(choice.attributes());
                      if (choice.sslContext() != null) {
                        ssl = choice.sslContext();
                      }
                    }
                    if (ssl != null) {
                      ch.pipeline()
                          .addLast(
                              new PlaintextOnTlsGuard(),
                              ssl.newHandler(ch.alloc()),
                              new TlsProtocolSelector(transport));
                    } else {
                      ch.pipeline().addLast(new ProtocolDetector(transport, true));
                    }
                  }
                });
    if (!DomainSockets.isDomainSocket(address)) {
      bootstrap
          .childOption(ChannelOption.TCP_NODELAY, true)
          .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WriteLimits.WATER_MARK)
          .childOption(ChannelOption.SO_KEEPALIVE, true);
    }
    ChannelFuture bind = bootstrap.bind(address).awaitUninterruptibly();
    if (!bind.isSuccess()) {
      throw bindFailure(address, bind.cause());
    }
    serverChannel = bind.channel();
    listenSocket.register(serverChannel, null);
    String description = describe(serverChannel);
    LIFECYCLE_LOGGER.log(Level.INFO, "Tern server listening on {0}", description);
    serverChannel
        .closeFuture()
        .addListener(
            f -> {
              listenSocket.unregister();
              DomainSockets.deleteSocketFile(address);
              LIFECYCLE_LOGGER.log(Level.INFO, "Tern server on {0} stopped", description);
              if (shutdownReported.compareAndSet(false, true)) {
                listener.serverShutdown();
              }
            });
  }

  /** Closes the listening socket; {@code serverShutdown} follows. Idempotent. */
  @Override
  public synchronized void shutdown() {
    if (shutdown) {
      return;
    }
    shutdown = true;
    if (serverChannel != null) {
      serverChannel.close();
    }
  }

  /** How many waiting connections one wake-up of the listening socket accepts; 0 before start. */
  synchronized int acceptsPerWakeup() {
    return serverChannel == null
        ? 0
        : serverChannel
            .config()
            .<MaxMessagesRecvByteBufAllocator>getRecvByteBufAllocator()
            .maxMessagesPerRead();
  }

  @Override
  public synchronized List<? extends SocketAddress> getListenSocketAddresses() {
    if (serverChannel == null) {
      return List.of(address);
    }
    return List.of(serverChannel.localAddress());
  }

  /** The bound socket, from {@link #start} until it is closed. */
  @Override
  public synchronized List<Instrumented<SocketStats>> channelzListenSockets() {
    if (serverChannel == null || !serverChannel.isOpen()) {
      return List.of();
    }
    return List.of(listenSocket);
  }

  @Override
  public ScheduledExecutorService getScheduledExecutorService() {
    return workerGroup;
  }

  /**
   * The bound address, the protocols, TLS or plaintext and the Netty transport kind, e.g. {@code
   * 127.0.0.1:50051 (HTTP/2, plaintext, epoll)}, or with protocols beside gRPC {@code
   * 127.0.0.1:50051 (HTTP/2 and HTTP/1.1 serving gRPC + grpc-web + connect, TLS, epoll)}.
   */
  private String describe(Channel channel) {
    String where = NetworkFailures.addressText(channel.localAddress());
    String name = channel.getClass().getSimpleName();
    String kind =
        name.startsWith("Epoll")
            ? TransportKind.EPOLL.id()
            : name.startsWith("IoUring")
                ? TransportKind.IO_URING.id()
                : name.startsWith("Nio") ? TransportKind.NIO.id() : name;
    return where
        + " (HTTP/2"
        + options.httpProtocols().describe()
        + ", "
        + (options.sslContext() != null ? "TLS" : "plaintext")
        + ", "
        + kind
        + ")";
  }

  @Override
  public String toString() {
    return "NettyServer{" + address + "}";
  }

  /**
   * Why binding {@code address} failed: a {@link BindException} when the address is in use (so a
   * caller can retry another port whichever transport is used), otherwise an {@link IOException};
   * both name the address and keep {@code cause}.
   */
  static IOException bindFailure(SocketAddress address, Throwable cause) {
    String message = cause == null ? null : cause.getMessage();
    if (cause instanceof BindException
        || (message != null && message.contains("Address already in use"))) {
      BindException inUse = new BindException("Failed to bind to " + address + ": " + message);
      inUse.initCause(cause);
      return inUse;
    }
    return new IOException("Failed to bind to " + address, cause);
  }
}
