package dev.tern.netty.internal.client;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.HttpConnectProxiedSocketAddress;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.channelz.Instrumented;
import dev.tern.channelz.SocketStats;
import dev.tern.netty.internal.buffer.NettyWritableBufferAllocator;
import dev.tern.netty.internal.io.DomainSockets;
import dev.tern.netty.internal.io.EventLoops;
import dev.tern.netty.internal.io.SocketNode;
import dev.tern.netty.internal.io.TlsAttributes;
import dev.tern.netty.internal.write.WriteLimits;
import dev.tern.netty.internal.write.WriteQueue;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ManagedClientTransport;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AsciiString;
import java.net.SocketAddress;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLParameters;

/**
 * A client transport: one HTTP/2 connection (h2c with prior knowledge) to one address, opened by
 * {@link #start}; for an {@link HttpConnectProxiedSocketAddress}, a connection to the proxy and a
 * tunnel through it to the target. Streams, pings and shutdowns from any thread go through the
 * connection's {@link WriteQueue} to the {@link ClientHandler} on its event loop, which reports the
 * transport's life to the listener from that event loop.
 *
 * <p>Thread-safe: the public methods may be called from any thread. The only state shared with
 * application threads is volatile: the channel and write queue (written once in {@link #start}),
 * the attributes (written once when ready) and the shutdown status (so new streams and pings fail
 * at once, without a hop).
 */
public final class NettyClientTransport implements ManagedClientTransport {
  private static final AsciiString HTTP = AsciiString.cached("http");
  private static final AsciiString HTTPS = AsciiString.cached("https");

  private final SocketAddress address;
  private final String authority;
  private final AsciiString authorityAscii;
  private final AsciiString userAgent;
  private final RequestPaths paths = new RequestPaths();
  private final TransportOptions options;
  private final SocketNode socket = new SocketNode("client");

  private volatile boolean started;
  private volatile ClientHandler handler;
  private volatile WriteQueue writeQueue;
  private volatile Attributes attributes = Attributes.EMPTY;
  private volatile Status shutdownStatus;

  /**
   * A transport to {@code address}; nothing happens until {@link #start}.
   *
   * @param authority the default {@code :authority} of calls
   * @param userAgent the {@code user-agent} sent with every call, or null
   */
  public NettyClientTransport(
      SocketAddress address, String authority, String userAgent, TransportOptions options) {
    this.address = Objects.requireNonNull(address, "address");
    this.authority = Objects.requireNonNull(authority, "authority");
    this.authorityAscii = new AsciiString(authority);
    this.userAgent = userAgent == null ? null : new AsciiString(userAgent);
    this.options = Objects.requireNonNull(options, "options");
  }

  /**
   * Starts connecting; the listener hears {@code transportReady} once HTTP/2 is set up. A Unix
   * domain socket address that no native transport here can reach fails the transport at once
   * (UNAVAILABLE, from the returned task), as a refused connection would.
   */
  @Override
  public Runnable start(Listener listener) {
    Objects.requireNonNull(listener, "listener");
    if (started) {
      throw new IllegalStateException("already started");
    }
    started = true;
    SocketAddress target;
    EventLoops.ClientLoops loops;
    long connectDeadlineNanos = System.nanoTime() + options.connectTimeoutNanos();
    try {
      target =
          address instanceof HttpConnectProxiedSocketAddress proxied
              ? proxied.getProxyAddress()
              : DomainSockets.toNetty(address);
      loops =
          options.channelFactory() != null
              ? new EventLoops.ClientLoops(options.eventLoopGroup(), options.channelFactory())
              : EventLoops.forClient(options.eventLoopGroup(), target);
    } catch (IllegalArgumentException e) {
      Status status = Status.UNAVAILABLE.withDescription(e.getMessage()).withCause(e);
      markShutdown(status);
      return () -> {
        listener.transportShutdown(status);
        listener.transportTerminated();
      };
    }
    ClientHandler h = new ClientHandler(this, listener, options);
    handler = h;
    Bootstrap bootstrap =
        new Bootstrap()
            .group(loops.group())
            .channelFactory(loops.channelFactory())
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, options.connectTimeoutMillis())
            .option(ChannelOption.WRITE_BUFFER_WATER_MARK, WriteLimits.WATER_MARK)
            .handler(new PipelineInitializer(h, connectDeadlineNanos));
    if (!DomainSockets.isDomainSocket(target)) {
      bootstrap.option(ChannelOption.TCP_NODELAY, true).option(ChannelOption.SO_KEEPALIVE, true);
    }
    ChannelFuture connect = bootstrap.connect(target);
    socket.register(connect.channel(), h::flowControlWindows);
    writeQueue = new WriteQueue(connect.channel());
    connect.addListener(
        (ChannelFuture f) -> {
          if (!f.isSuccess()) {
            h.connectFailed(f.cause());
          }
        });
    return null;
  }

  /**
   * Builds the pipeline: the CONNECT tunnel through a proxy if the address is one ({@link
   * HttpConnectTunnel}, which holds the rest back until the tunnel is open), TLS if configured
   * (with host name verification against the authority), then the handler (which writes one buffer
   * per flush: nothing to coalesce).
   */
  private final class PipelineInitializer extends ChannelInitializer<Channel> {
    private final ClientHandler handler;
    private final long connectDeadlineNanos;

    PipelineInitializer(ClientHandler handler, long connectDeadlineNanos) {
      this.handler = handler;
      this.connectDeadlineNanos = connectDeadlineNanos;
    }

    @Override
    protected void initChannel(Channel ch) {
      if (address instanceof HttpConnectProxiedSocketAddress proxied) {
        ch.pipeline()
            .addLast(new HttpConnectTunnel(proxied, connectDeadlineNanos, handler::tunnelFailed));
      }
      if (options.sslContext() != null) {
        HostAndPort target = HostAndPort.ofAuthority(authority);
        String serverName = options.serverName() == null ? target.host() : options.serverName();
        // A handler without a peer host sends no server name (SNI), with either TLS provider.
        SslHandler ssl =
            serverName.isEmpty()
                ? options.sslContext().newHandler(ch.alloc())
                : options.sslContext().newHandler(ch.alloc(), serverName, target.port());
        // Per-address credentials' contexts are built without the check (their trust manager is
        // the check: NettySslContexts.forClient(credentials, false)); a channel's own gets it.
        if (options.checkHostName()) {
          SSLParameters params = ssl.engine().getSSLParameters();
          params.setEndpointIdentificationAlgorithm("HTTPS");
          ssl.engine().setSSLParameters(params);
        }
        ch.pipeline().addLast(ssl);
      }
      ch.pipeline().addLast(handler);
    }
  }

  @Override
  public ClientStream newStream(
      MethodDescriptor<?, ?> method, Metadata headers, CallOptions callOptions) {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(headers, "headers");
    Objects.requireNonNull(callOptions, "callOptions");
    ClientHandler h = handler;
    WriteQueue queue = writeQueue;
    if (h == null || queue == null) {
      throw new IllegalStateException("transport not started");
    }
    String callAuthority = callOptions.getAuthority();
    return new NettyClientStream(
        this,
        h,
        queue,
        paths.of(method),
        callAuthority == null || callAuthority.equals(authority)
            ? authorityAscii
            : new AsciiString(callAuthority),
        headers);
  }

  @Override
  public void ping(PingCallback callback, Executor executor) {
    Objects.requireNonNull(callback, "callback");
    Objects.requireNonNull(executor, "executor");
    ClientHandler h = handler;
    Status shutdown = shutdownStatus;
    if (h == null || shutdown != null) {
      Status failure =
          h == null
              ? Status.UNAVAILABLE.withDescription("transport not started")
              : Status.UNAVAILABLE.withDescription("transport is shut down: " + shutdown);
      executor.execute(() -> callback.onFailure(failure));
      return;
    }
    writeQueue.enqueue(() -> h.ping(callback, executor));
  }

  @Override
  public Attributes getAttributes() {
    return attributes;
  }

  @Override
  public void shutdown(Status reason) {
    Objects.requireNonNull(reason, "reason");
    ClientHandler h = handler;
    if (shutdownStatus == null) {
      shutdownStatus = reason;
    }
    if (h != null) {
      writeQueue.enqueue(() -> h.startShutdown(reason));
    }
  }

  @Override
  public void shutdownNow(Status reason) {
    Objects.requireNonNull(reason, "reason");
    ClientHandler h = handler;
    if (shutdownStatus == null) {
      shutdownStatus = reason;
    }
    if (h != null) {
      writeQueue.enqueue(() -> h.shutdownNow(reason));
    }
  }

  // ---- from the handler, on the event loop (onReady, markShutdown), and from the streams

  void onReady(Channel channel) {
    attributes = TlsAttributes.of(channel);
  }

  void markShutdown(Status status) {
    if (shutdownStatus == null) {
      shutdownStatus = status;
    }
  }

  AsciiString scheme() {
    return options.sslContext() == null ? HTTP : HTTPS;
  }

  AsciiString userAgent() {
    return userAgent;
  }

  NettyWritableBufferAllocator bufferAllocator() {
    return options.bufferAllocator();
  }

  SocketAddress address() {
    return address;
  }

  String authority() {
    return authority;
  }

  /** The connection's channelz counters, for the handler and the streams. */
  SocketNode socketNode() {
    return socket;
  }

  /** Registered with channelz from {@link #start} until the transport has terminated. */
  @Override
  public Instrumented<SocketStats> channelzSocket() {
    return socket;
  }

  @Override
  public String toString() {
    return "NettyClientTransport{" + address + "}";
  }

  /**
   * What a channel's transports share: event loops, channel type, limits. Thread-safe: immutable,
   * apart from the keepalive time, which an atomic holds.
   */
  public static final class TransportOptions {
    private final EventLoopGroup eventLoopGroup;
    private final ChannelFactory<? extends Channel> channelFactory;
    private final int flowControlWindow;
    private final int maxInboundMetadataSize;
    private final int connectTimeoutMillis;
    private final NettyWritableBufferAllocator bufferAllocator;
    private final SslContext sslContext;
    private boolean checkHostName = true;
    private String serverName; // null: the authority's host

    /**
     * The channel's keepalive time, shared by its connections: doubled when a server says
     * too_many_pings (gRFC A8). Long.MAX_VALUE for none.
     */
    private AtomicLong keepAliveTimeNanos = new AtomicLong(Long.MAX_VALUE);

    private long keepAliveTimeoutNanos;
    private boolean keepAliveWithoutCalls;
    private Http3Alternatives http3Alternatives;

    /** Plaintext options: see the other constructor. */
    public TransportOptions(
        EventLoopGroup eventLoopGroup,
        ChannelFactory<? extends Channel> channelFactory,
        int flowControlWindow,
        int maxInboundMetadataSize,
        int connectTimeoutMillis) {
      this(
          eventLoopGroup,
          channelFactory,
          flowControlWindow,
          maxInboundMetadataSize,
          connectTimeoutMillis,
          null);
    }

    /**
     * See {@link dev.tern.netty.NettyChannelBuilder} for what each option means.
     *
     * @param channelFactory the channel type, or null for the one that suits the group and each
     *     transport's address ({@link EventLoops#forClient})
     * @param sslContext a client context negotiating {@code h2} by ALPN, or null for plaintext
     */
    public TransportOptions(
        EventLoopGroup eventLoopGroup,
        ChannelFactory<? extends Channel> channelFactory,
        int flowControlWindow,
        int maxInboundMetadataSize,
        int connectTimeoutMillis,
        SslContext sslContext) {
      this.eventLoopGroup = Objects.requireNonNull(eventLoopGroup, "eventLoopGroup");
      this.channelFactory = channelFactory;
      this.flowControlWindow = flowControlWindow;
      this.maxInboundMetadataSize = maxInboundMetadataSize;
      this.connectTimeoutMillis = connectTimeoutMillis;
      this.bufferAllocator = new NettyWritableBufferAllocator(ByteBufAllocator.DEFAULT);
      if (sslContext != null && !sslContext.isClient()) {
        throw new IllegalArgumentException("sslContext must be a client context");
      }
      this.sslContext = sslContext;
    }

    SslContext sslContext() {
      return sslContext;
    }

    /** Whether TLS connections check the server's certificate against the authority's host. */
    boolean checkHostName() {
      return checkHostName;
    }

    /** The TLS server name to send: null for the authority's host, empty for none. */
    String serverName() {
      return serverName;
    }

    /**
     * A copy of these options with TLS by {@code context} whose trust manager alone checks the
     * server's identity: no HTTPS host-name check is added (for per-address credentials, see {@link
     * dev.tern.PerAddressChannelCredentials}).
     *
     * @param serverName the TLS server name (SNI) to send: null for the authority's host, empty for
     *     none
     */
    public TransportOptions withTlsCheckedByTrustManager(SslContext context, String serverName) {
      TransportOptions copy = copy(Objects.requireNonNull(context, "context"), false);
      copy.serverName = serverName;
      return copy;
    }

    /**
     * A copy of these options with client keepalive: a PING after {@code timeNanos} without reads
     * (while calls are open, or always if {@code withoutCalls}); no answer within {@code
     * timeoutNanos} closes the connection.
     */
    public TransportOptions withKeepAlive(long timeNanos, long timeoutNanos, boolean withoutCalls) {
      TransportOptions copy = copy();
      copy.keepAliveTimeNanos = new AtomicLong(timeNanos);
      copy.keepAliveTimeoutNanos = timeoutNanos;
      copy.keepAliveWithoutCalls = withoutCalls;
      return copy;
    }

    /**
     * A copy of these options whose connections report the HTTP/3 alternatives servers advertise
     * ({@code alt-svc}) to {@code alternatives}, and retire when one becomes usable.
     */
    public TransportOptions withHttp3Alternatives(Http3Alternatives alternatives) {
      TransportOptions copy = copy();
      copy.http3Alternatives = Objects.requireNonNull(alternatives, "alternatives");
      return copy;
    }

    Http3Alternatives http3Alternatives() {
      return http3Alternatives;
    }

    private TransportOptions copy() {
      return copy(sslContext, checkHostName);
    }

    private TransportOptions copy(SslContext context, boolean checkHost) {
      TransportOptions copy =
          new TransportOptions(
              eventLoopGroup,
              channelFactory,
              flowControlWindow,
              maxInboundMetadataSize,
              connectTimeoutMillis,
              context);
      copy.keepAliveTimeNanos = keepAliveTimeNanos;
      copy.keepAliveTimeoutNanos = keepAliveTimeoutNanos;
      copy.keepAliveWithoutCalls = keepAliveWithoutCalls;
      copy.checkHostName = checkHost;
      copy.http3Alternatives = http3Alternatives;
      copy.serverName = serverName;
      return copy;
    }

    /** The keepalive time a connection starting now uses, or Long.MAX_VALUE for none. */
    long keepAliveTimeNanos() {
      return keepAliveTimeNanos.get();
    }

    /**
     * A server said GOAWAY(ENHANCE_YOUR_CALM, "too_many_pings"): the channel's later connections
     * ping half as often (gRFC A8).
     */
    void keepAliveTooManyPings() {
      keepAliveTimeNanos.updateAndGet(
          nanos ->
              nanos == Long.MAX_VALUE || nanos > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : nanos * 2);
    }

    long keepAliveTimeoutNanos() {
      return keepAliveTimeoutNanos;
    }

    boolean keepAliveWithoutCalls() {
      return keepAliveWithoutCalls;
    }

    EventLoopGroup eventLoopGroup() {
      return eventLoopGroup;
    }

    ChannelFactory<? extends Channel> channelFactory() {
      return channelFactory;
    }

    int flowControlWindow() {
      return flowControlWindow;
    }

    int maxInboundMetadataSize() {
      return maxInboundMetadataSize;
    }

    int connectTimeoutMillis() {
      return connectTimeoutMillis;
    }

    long connectTimeoutNanos() {
      return TimeUnit.MILLISECONDS.toNanos(connectTimeoutMillis);
    }

    NettyWritableBufferAllocator bufferAllocator() {
      return bufferAllocator;
    }
  }
}
