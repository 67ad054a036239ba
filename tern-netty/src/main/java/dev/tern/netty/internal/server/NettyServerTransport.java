package dev.tern.netty.internal.server;

import dev.tern.Attributes;
import dev.tern.Status;
import dev.tern.channelz.Instrumented;
import dev.tern.channelz.SocketStats;
import dev.tern.netty.internal.exchange.ExchangeHost;
import dev.tern.netty.internal.exchange.Http1ServerHandler;
import dev.tern.netty.internal.exchange.HttpProtocols;
import dev.tern.netty.internal.io.SocketNode;
import dev.tern.netty.internal.io.TlsAttributes;
import dev.tern.netty.internal.write.WriteQueue;
import dev.tern.spi.ServerTransport;
import dev.tern.spi.ServerTransportListener;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;

/**
 * One accepted server connection, as the runtime sees it. Until the connection's first bytes (or
 * TLS's ALPN) say which HTTP it speaks, a {@link ProtocolDetector} or {@link TlsProtocolSelector}
 * holds it; then {@link #useHttp2} installs the {@link ServerHandler}, or {@link #useHttp1} an
 * {@link Http1ServerHandler}, which does the work on the channel's event loop. This class forwards
 * lifecycle requests there through the connection's {@link WriteQueue}.
 *
 * <p>Thread-safe: every method may be called from any thread. The HTTP/2 handler and the queue are
 * final; {@code http1} and {@code terminated} are written on the event loop and read there only
 * (lifecycle requests hop there first).
 */
final class NettyServerTransport implements ServerTransport, ExchangeHost {
  private final Channel channel;
  private final WriteQueue writeQueue;
  private final ServerHandler handler;
  private final ServerOptions options;
  private final SocketNode socket = new SocketNode("server");
  private ServerTransportListener listener;

  /** The HTTP/1.1 handler, once the connection turned out to speak HTTP/1.1; event loop only. */
  private Http1ServerHandler http1;

  /** Whether either handler is installed; event loop only. */
  private boolean decided;

  /** Whether the listener heard {@code transportTerminated}; event loop only. */
  private boolean terminated;

  NettyServerTransport(Channel channel, ServerOptions options) {
    this.channel = channel;
    this.options = options;
    this.writeQueue = new WriteQueue(channel);
    this.handler = new ServerHandler(this, options);
    socket.register(channel, handler::flowControlWindows);
    channel.closeFuture().addListener(f -> socket.unregister());
  }

  /** Attributes chosen when the connection was accepted, added to its transport attributes. */
  private volatile Attributes acceptedAttributes = Attributes.EMPTY;

  void acceptedAttributes(Attributes attributes) {
    this.acceptedAttributes = Objects.requireNonNull(attributes, "attributes");
  }

  /**
   * The attributes the listener's {@code transportReady} gets, whichever handler serves the
   * connection (HTTP/2 or HTTP/1.1): its addresses and TLS session, and those chosen when it was
   * accepted (by per-connection credentials, e.g. xDS's filter chain). Event loop, once TLS's
   * handshake is done.
   */
  @Override
  public Attributes readyAttributes() {
    Attributes attrs = TlsAttributes.of(channel);
    Attributes accepted = acceptedAttributes;
    return accepted.keys().isEmpty() ? attrs : attrs.toBuilder().setAll(accepted).build();
  }

  /** Set once, before the channel is registered. */
  void setTransportListener(ServerTransportListener listener) {
    this.listener = listener;
    handler.setTransportListener(listener);
  }

  @Override
  public ServerTransportListener listener() {
    return listener;
  }

  ServerOptions options() {
    return options;
  }

  @Override
  public SocketNode socketNode() {
    return socket;
  }

  @Override
  public HttpProtocols httpProtocols() {
    return options.httpProtocols();
  }

  @Override
  public int maxInboundMetadataSize() {
    return options.maxInboundMetadataSize();
  }

  @Override
  public long maxConnectionIdleNanos() {
    return options.maxConnectionIdleNanos();
  }

  @Override
  public long maxConnectionAgeNanos() {
    return options.maxConnectionAgeNanos();
  }

  @Override
  public long maxConnectionAgeGraceNanos() {
    return options.maxConnectionAgeGraceNanos();
  }

  /** Registered with channelz while the connection is open. */
  @Override
  public Instrumented<SocketStats> channelzSocket() {
    return socket;
  }

  ServerHandler handler() {
    return handler;
  }

  /** The connection speaks HTTP/2: the gRPC handlers go in after {@code ctx}'s. Event loop. */
  void useHttp2(ChannelHandlerContext ctx) {
    decided = true;
    // The handler writes one buffer per flush: nothing to coalesce.
    ctx.pipeline().addAfter(ctx.name(), null, handler);
  }

  /**
   * As {@link #useHttp2(ChannelHandlerContext)}, from within a read whose bytes (the client's
   * preface) reach the handler next, followed by the read's end: the handler's SETTINGS leave with
   * its answers to them, in one write. Event loop.
   */
  void useHttp2BeforeItsBytes(ChannelHandlerContext ctx) {
    handler.prefaceFollows();
    useHttp2(ctx);
  }

  /** The connection speaks HTTP/1.1: its handlers go in after {@code ctx}'s. Event loop. */
  void useHttp1(ChannelHandlerContext ctx) {
    decided = true;
    http1 = new Http1ServerHandler(this, options.sslContext() != null);
    http1.install(ctx);
    if (handler.isShutdownRequested()) {
      http1.gracefulShutdown();
    }
  }

  /**
   * The connection closed: tells the listener once. The HTTP/2 handler tells it itself; this covers
   * a connection that closed before its protocol was known, and HTTP/1.1. Event loop.
   */
  @Override
  public void terminated() {
    if (!terminated) {
      terminated = true;
      if (listener != null) {
        listener.transportTerminated();
      }
    }
  }

  /** Whether the HTTP/2 handler is the one serving (so it reports termination itself). */
  boolean servesHttp2() {
    return decided && http1 == null;
  }

  void execute(Runnable command) {
    writeQueue.enqueue(command);
  }

  /** Like {@link #execute}, but the command waits for the next drain (see {@link WriteQueue}). */
  void executeWithNext(Runnable command) {
    writeQueue.enqueueWithoutDrain(command);
  }

  @Override
  public void shutdown() {
    handler.markShutdownRequested();
    execute(this::gracefulShutdown);
  }

  private void gracefulShutdown() {
    if (http1 != null) {
      http1.gracefulShutdown();
    } else if (decided) {
      handler.gracefulShutdown();
    } else {
      channel.close(); // nothing was asked on it yet
    }
  }

  @Override
  public void shutdownNow(Status reason) {
    Objects.requireNonNull(reason, "reason");
    handler.markShutdownRequested();
    execute(
        () -> {
          if (http1 != null) {
            http1.shutdownNow(reason);
          } else if (decided) {
            handler.shutdownNow(reason);
          } else {
            channel.close();
          }
        });
  }

  /** The connection's event loop: deadlines then fire on the thread that owns the stream. */
  @Override
  public ScheduledExecutorService getScheduledExecutorService() {
    return channel.eventLoop();
  }

  @Override
  public String toString() {
    return "NettyServerTransport{" + channel.remoteAddress() + "}";
  }
}
