package dev.tern.netty;

import dev.tern.ForwardingServerBuilder;
import dev.tern.PerConnectionServerCredentials;
import dev.tern.ServerBuilder;
import dev.tern.TlsServerCredentials;
import dev.tern.internal.server.AbstractServerBuilder;
import dev.tern.netty.http.HttpServerProtocol;
import dev.tern.netty.internal.exchange.HttpProtocols;
import dev.tern.netty.internal.io.EventLoops;
import dev.tern.netty.internal.io.NettyProperties;
import dev.tern.netty.internal.server.ConnectionTls;
import dev.tern.netty.internal.server.Http3Transport;
import dev.tern.netty.internal.server.NettyServer;
import dev.tern.netty.internal.server.ServerOptions;
import dev.tern.netty.internal.server.TcpAndUdpServer;
import dev.tern.spi.TransportServer;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ReflectiveChannelFactory;
import io.netty.channel.ServerChannel;
import io.netty.handler.ssl.SslContext;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;

/**
 * Builds a server that serves calls over HTTP/2 on Netty (h2c with prior knowledge, or TLS):
 *
 * <pre>{@code
 * Server server = NettyServerBuilder.forPort(50051).addService(new GreeterImpl()).build().start();
 * }</pre>
 *
 * <p>Plaintext by default; {@link #sslContext} turns TLS on. Options and defaults, beyond those of
 * every server builder: Tern's shared daemon event loops (native epoll when available, NIO
 * otherwise; see {@code -Ddev.tern.netty.transport}) unless {@link #bossEventLoopGroup} / {@link
 * #workerEventLoopGroup} give others (the caller then owns them); a channel type matching the
 * groups and the address unless {@link #channelType} sets it; a 1 MiB HTTP/2 flow-control window
 * per stream and per connection ({@link #flowControlWindow}); at most 1,000 concurrent calls per
 * connection ({@link #maxConcurrentCallsPerConnection}); a graceful shutdown waits up to 5 seconds
 * for the client to acknowledge the first GOAWAY before sending the final one ({@link
 * #shutdownGracePeriod}); calls in flight then finish, however long they take, unless {@code
 * shutdownNow()} ends them. A client connection silent for 2 hours is probed with a PING and closed
 * if the PING goes unanswered for 20 seconds ({@link #keepAliveTime}, {@link #keepAliveTimeout});
 * clients may send their own keepalive PINGs once per 5 minutes ({@link #permitKeepAliveTime}).
 *
 * <p>Not thread-safe: configure from one thread, then {@link #build()}.
 */
public final class NettyServerBuilder extends ForwardingServerBuilder<NettyServerBuilder> {
  static {
    // Before any Netty class loads: Tern's defaults for Netty's properties (see NettyProperties).
    NettyProperties.applyDefaults();
  }

  private final SocketAddress address;
  private final Assembly assembly = new Assembly();
  private EventLoopGroup bossGroup;
  private EventLoopGroup workerGroup;
  private ChannelFactory<? extends ServerChannel> channelFactory;
  private int flowControlWindow = ServerOptions.DEFAULT_FLOW_CONTROL_WINDOW;
  private int maxConcurrentCallsPerConnection =
      ServerOptions.DEFAULT_MAX_CONCURRENT_CALLS_PER_CONNECTION;
  private long gracePeriodNanos = ServerOptions.DEFAULT_GRACE_PERIOD_NANOS;
  private int maxRstFramesPerWindow = ServerOptions.DEFAULT_MAX_RST_FRAMES_PER_WINDOW;
  private long rstWindowNanos = ServerOptions.DEFAULT_RST_WINDOW_NANOS;
  private SslContext sslContext;
  private PerConnectionServerCredentials perConnection;
  private long permitKeepAliveTimeNanos = ServerOptions.DEFAULT_PERMIT_KEEPALIVE_TIME_NANOS;
  private boolean permitKeepAliveWithoutCalls;

  /** The shortest keepalive time of the server: 1 second (grpc-go's server has the same floor). */
  static final long MIN_KEEPALIVE_TIME_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final KeepAliveTime keepAliveTime =
      new KeepAliveTime(ServerOptions.DEFAULT_KEEPALIVE_TIME_NANOS, MIN_KEEPALIVE_TIME_NANOS);
  private long keepAliveTimeoutNanos = ServerOptions.DEFAULT_KEEPALIVE_TIMEOUT_NANOS;
  private long maxConnectionIdleNanos = Long.MAX_VALUE;
  private long maxConnectionAgeNanos = Long.MAX_VALUE;
  private long maxConnectionAgeGraceNanos = Long.MAX_VALUE;
  private int maxQueuedOutboundBytesPerStream =
      ServerOptions.DEFAULT_MAX_QUEUED_OUTBOUND_BYTES_PER_STREAM;
  private long maxQueuedOutboundBytesPerConnection =
      ServerOptions.DEFAULT_MAX_QUEUED_OUTBOUND_BYTES_PER_CONNECTION;
  private int maxContinuationFrames = ServerOptions.DEFAULT_MAX_CONTINUATION_FRAMES;
  private long settingsAckTimeoutNanos = ServerOptions.DEFAULT_SETTINGS_ACK_TIMEOUT_NANOS;

  /** Null until set: the protocols found on the class path, looked up at build time. */
  private List<HttpServerProtocol> httpProtocols;

  private boolean http3;

  /** The key and certificates TLS was configured from (HTTP/3 needs them), or null. */
  private TlsServerCredentials tlsCredentials;

  private NettyServerBuilder(SocketAddress address) {
    this.address = address;
  }

  /**
   * A builder for a server on {@code port} of every local address; 0 picks a free port (ask the
   * started server with {@code getListenSockets()}).
   *
   * @throws IllegalArgumentException if {@code port} is not 0..65535
   */
  public static NettyServerBuilder forPort(int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be in 0..65535, was " + port);
    }
    return new NettyServerBuilder(new InetSocketAddress(port));
  }

  /**
   * A builder for a server bound to {@code address}: an {@link InetSocketAddress}, or a Unix domain
   * socket, Netty's {@code io.netty.channel.unix.DomainSocketAddress} (a path, or on Linux an
   * abstract name starting with {@code '\0'}) or the JDK's {@code
   * java.net.UnixDomainSocketAddress}. A domain socket needs Netty's native epoll or io_uring
   * transport ({@code io.netty:netty-transport-native-epoll}, classifier {@code linux-x86_64}):
   * groups of that kind use its domain socket channels, and a server wanted on NIO groups runs on
   * Tern's shared native groups instead; without any, {@code build()} throws {@link
   * IllegalArgumentException} naming the missing dependency. The socket file must not exist yet,
   * and is removed on shutdown.
   */
  public static NettyServerBuilder forAddress(SocketAddress address) {
    return new NettyServerBuilder(Objects.requireNonNull(address, "address"));
  }

  /**
   * The address the server will bind, as given to {@link #forPort} or {@link #forAddress}: add-ons
   * such as the console ask it to tell a loopback server from one reachable by others.
   */
  public SocketAddress listenAddress() {
    return address;
  }

  /** The group that accepts connections; the caller owns it. Default: Tern's shared one. */
  public NettyServerBuilder bossEventLoopGroup(EventLoopGroup group) {
    this.bossGroup = Objects.requireNonNull(group, "group");
    return this;
  }

  /** The group that serves connections; the caller owns it. Default: Tern's shared one. */
  public NettyServerBuilder workerEventLoopGroup(EventLoopGroup group) {
    this.workerGroup = Objects.requireNonNull(group, "group");
    return this;
  }

  /**
   * The server channel class, which must suit the boss group and the address (e.g. {@code
   * EpollServerSocketChannel} for TCP on an epoll group). Default: the server socket channel of the
   * group's kind (epoll, io_uring or NIO), or its domain socket channel for a domain socket
   * address.
   *
   * @throws IllegalArgumentException if {@code type} has no public no-argument constructor
   */
  public NettyServerBuilder channelType(Class<? extends ServerChannel> type) {
    Objects.requireNonNull(type, "type");
    this.channelFactory = new ReflectiveChannelFactory<>(type);
    return this;
  }

  /**
   * The HTTP/2 flow-control window of each stream and of each connection, in bytes (default 1 MiB).
   *
   * @throws IllegalArgumentException if {@code bytes} is not positive
   */
  public NettyServerBuilder flowControlWindow(int bytes) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("flowControlWindow must be positive, was " + bytes);
    }
    this.flowControlWindow = bytes;
    return this;
  }

  /**
   * The most calls one connection may carry at once, advertised as HTTP/2's
   * SETTINGS_MAX_CONCURRENT_STREAMS (default 1,000). gRPC clients queue further calls until one
   * ends; a stream opened beyond the limit anyway is reset with REFUSED_STREAM, which clients may
   * retry, and they count against {@link #maxRstFramesPerWindow}. The default is ten times the
   * deepest pipeline gRPC's benchmarks drive per connection, so it does not throttle them, and
   * bounds what one connection can make the server hold; {@code Integer.MAX_VALUE} removes the
   * bound.
   *
   * @throws IllegalArgumentException if {@code max} is not positive
   */
  public NettyServerBuilder maxConcurrentCallsPerConnection(int max) {
    if (max <= 0) {
      throw new IllegalArgumentException("maxConcurrentCallsPerConnection must be > 0, was " + max);
    }
    this.maxConcurrentCallsPerConnection = max;
    return this;
  }

  /**
   * How long a graceful shutdown waits for the client's PING ack after the first GOAWAY before it
   * sends the final GOAWAY (default 5 seconds). Calls the final GOAWAY admits still finish.
   *
   * @throws IllegalArgumentException if {@code period} is negative
   */
  public NettyServerBuilder shutdownGracePeriod(long period, TimeUnit unit) {
    Objects.requireNonNull(unit, "unit");
    if (period < 0) {
      throw new IllegalArgumentException(
          "shutdownGracePeriod must be >= 0: " + period + " " + unit);
    }
    this.gracePeriodNanos = unit.toNanos(period);
    return this;
  }

  /**
   * Lets {@code credentials} choose each connection's TLS before its handshake (for {@link
   * NettyServerProvider}); connections they choose none for use the {@link #sslContext} or
   * plaintext.
   */
  NettyServerBuilder perConnectionCredentials(PerConnectionServerCredentials credentials) {
    this.perConnection = Objects.requireNonNull(credentials, "credentials");
    return this;
  }

  /**
   * Serves TLS (1.2 or 1.3, HTTP/2 negotiated by ALPN) with {@code sslContext}, a server context;
   * build it with {@link NettySslContexts#forServer}, adding {@code trustManager} and {@code
   * clientAuth} for mutual TLS. Calls then see {@code Grpc.TRANSPORT_ATTR_SSL_SESSION} and security
   * level PRIVACY_AND_INTEGRITY. Default: plaintext (h2c).
   *
   * @throws IllegalArgumentException if {@code sslContext} is a client context
   */
  public NettyServerBuilder sslContext(SslContext sslContext) {
    Objects.requireNonNull(sslContext, "sslContext");
    if (sslContext.isClient()) {
      throw new IllegalArgumentException("sslContext must be a server context");
    }
    this.sslContext = sslContext;
    this.tlsCredentials = null; // a context alone cannot give QUIC its key
    return this;
  }

  /**
   * TLS from {@code credentials}, which HTTP/3 can reuse (for the providers and
   * useTransportSecurity).
   */
  NettyServerBuilder tlsCredentials(TlsServerCredentials credentials) {
    sslContext(NettySslContexts.forServer(credentials));
    this.tlsCredentials = credentials;
    return this;
  }

  /**
   * Also serves gRPC over HTTP/3 (QUIC, RFC 9114) on UDP, at the same port number as the TCP port
   * (the one port 0 picked, too), with TLS 1.3 from the same key and certificates: every call type,
   * metadata, deadlines, cancellation, compression and the same message and metadata size limits as
   * on HTTP/2, through the same services and interceptors. Needs the {@code tern-http3} module on
   * the class path (it brings QUIC's native library), and TLS configured from credentials: {@link
   * #useTransportSecurity(File, File)}, or {@code TlsServerCredentials} given to {@code
   * Grpc.newServerBuilderForPort} (not a bare {@link #sslContext}, whose key QUIC cannot reach).
   * See docs/http3.md. Default: off.
   *
   * <p>{@code build()} throws {@link IllegalStateException} if tern-http3 is missing or TLS was not
   * configured from credentials.
   */
  public NettyServerBuilder enableHttp3() {
    this.http3 = true;
    return this;
  }

  /**
   * Serves TLS with a PEM certificate chain and a PEM private key (PKCS#8, PKCS#1 RSA or SEC1 EC),
   * as {@code TlsServerCredentials.create} and {@link NettySslContexts#forServer(
   * TlsServerCredentials)} do: TLS 1.2/1.3 and ALPN {@code h2}.
   *
   * @throws IllegalArgumentException naming the arguments, and the file and what is wrong with it,
   *     if a file cannot be read or parsed
   */
  @Override
  public NettyServerBuilder useTransportSecurity(File certChain, File privateKey) {
    Objects.requireNonNull(certChain, "certChain");
    Objects.requireNonNull(privateKey, "privateKey");
    return tlsCredentials(
        readCredentials(
            () -> TlsServerCredentials.create(certChain, privateKey),
            certChain + ", " + privateKey));
  }

  /** See {@link #useTransportSecurity(File, File)}; the streams are read, not closed. */
  @Override
  public NettyServerBuilder useTransportSecurity(InputStream certChain, InputStream privateKey) {
    Objects.requireNonNull(certChain, "certChain");
    Objects.requireNonNull(privateKey, "privateKey");
    return tlsCredentials(
        readCredentials(
            () -> TlsServerCredentials.create(certChain, privateKey), "the given streams"));
  }

  /** Reads credentials; may fail with an I/O error. */
  private interface CredentialsSource {
    TlsServerCredentials read() throws IOException;
  }

  private static TlsServerCredentials readCredentials(
      CredentialsSource credentials, String source) {
    try {
      TlsServerCredentials read = credentials.read();
      NettySslContexts.forServer(read); // fails here, with the source named, if unusable
      return read;
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "certChain/privateKey: no TLS server context from " + source + ": " + e.getMessage(), e);
    }
  }

  /**
   * The most frequent client keepalive PINGs tolerated (default one per 5 minutes). A client that
   * pings more often (more than twice in a row since the server last sent anything) is sent
   * GOAWAY(ENHANCE_YOUR_CALM, "too_many_pings") and disconnected.
   *
   * @throws IllegalArgumentException if {@code time} is negative
   */
  public NettyServerBuilder permitKeepAliveTime(long time, TimeUnit unit) {
    Objects.requireNonNull(unit, "unit");
    if (time < 0) {
      throw new IllegalArgumentException("permitKeepAliveTime must be >= 0: " + time + " " + unit);
    }
    this.permitKeepAliveTimeNanos = unit.toNanos(time);
    return this;
  }

  /**
   * Whether clients may send keepalive PINGs while they have no call open (default false: such
   * pings are tolerated only every two hours).
   */
  public NettyServerBuilder permitKeepAliveWithoutCalls(boolean permit) {
    this.permitKeepAliveWithoutCalls = permit;
    return this;
  }

  /**
   * Sends a keepalive PING to a client when nothing has been read from its connection for {@code
   * time} (default 2 hours, as gRFC A8 recommends), calls or not; without an answer (the PING's
   * acknowledgement or any other frame) within {@link #keepAliveTimeout} the server sends GOAWAY
   * and closes the connection, freeing what a client that silently vanished held. Anything read
   * restarts the wait. A time below 1 second is raised to 1 second: probing more often only adds
   * traffic. {@code Long.MAX_VALUE}, or any time of 1,000 days or more, disables it. The server's
   * PINGs are not counted against the client's ({@link #permitKeepAliveTime} limits only those the
   * client sends).
   *
   * @throws IllegalArgumentException if {@code time} is not positive
   */
  public NettyServerBuilder keepAliveTime(long time, TimeUnit unit) {
    positiveNanos(time, unit, "keepAliveTime"); // checks the arguments
    keepAliveTime.set(time, unit);
    return this;
  }

  /**
   * Lowers the 1-second minimum of {@link #keepAliveTime}: for tests that cannot wait that long.
   */
  NettyServerBuilder keepAliveTimeMinimum(long time, TimeUnit unit) {
    keepAliveTime.minimum(time, unit);
    return this;
  }

  /** The keepalive time connections will use: at least the minimum, or Long.MAX_VALUE for none. */
  long keepAliveTimeNanosInEffect() {
    return keepAliveTime.nanosInEffect();
  }

  /**
   * How long the server waits for the answer to its keepalive PING before it closes the connection
   * (default 20 seconds); the client's calls on it end UNAVAILABLE.
   *
   * @throws IllegalArgumentException if {@code timeout} is not positive
   */
  public NettyServerBuilder keepAliveTimeout(long timeout, TimeUnit unit) {
    this.keepAliveTimeoutNanos = positiveNanos(timeout, unit, "keepAliveTimeout");
    return this;
  }

  /**
   * Shuts a connection down gracefully once it has carried no call for {@code time} (default:
   * never), freeing what idle clients hold. Clients reconnect when they need to.
   *
   * @throws IllegalArgumentException if {@code time} is not positive
   */
  public NettyServerBuilder maxConnectionIdle(long time, TimeUnit unit) {
    this.maxConnectionIdleNanos = positiveNanos(time, unit, "maxConnectionIdle");
    return this;
  }

  /**
   * Shuts a connection down gracefully once it is {@code time} old, ±10% (default: never), so
   * clients spread over new servers behind a load balancer. See {@link #maxConnectionAgeGrace}.
   *
   * @throws IllegalArgumentException if {@code time} is not positive
   */
  public NettyServerBuilder maxConnectionAge(long time, TimeUnit unit) {
    this.maxConnectionAgeNanos = positiveNanos(time, unit, "maxConnectionAge");
    return this;
  }

  /**
   * How long calls may go on after {@link #maxConnectionAge} before they are cancelled UNAVAILABLE
   * (default: as long as they take).
   *
   * @throws IllegalArgumentException if {@code time} is not positive
   */
  public NettyServerBuilder maxConnectionAgeGrace(long time, TimeUnit unit) {
    this.maxConnectionAgeGraceNanos = positiveNanos(time, unit, "maxConnectionAgeGrace");
    return this;
  }

  private static long positiveNanos(long time, TimeUnit unit, String option) {
    Objects.requireNonNull(unit, "unit");
    if (time <= 0) {
      throw new IllegalArgumentException(option + " must be positive: " + time + " " + unit);
    }
    return time == Long.MAX_VALUE ? Long.MAX_VALUE : unit.toNanos(time);
  }

  /**
   * Bounds how many RST_STREAM frames a client may send per window (default 200 per 30 seconds)
   * before the connection is closed with GOAWAY(ENHANCE_YOUR_CALM): opening and resetting streams
   * costs the server work the client does not pay for (the "rapid reset" attack). A reset of a
   * stream the server already sent a response message on does not count: that is a client
   * cancelling a call it got an answer on (a stream it read enough of, a deadline that passed while
   * it read), paced by the server's answers; nor does one that comes after half of the call's
   * {@code grpc-timeout}, or 100 ms into it by the server's clock (a client cancelling at its
   * deadline a call a saturated server read late: Rapid Reset resets at once). A reset of a stream
   * older than the client's newest one (a call queued behind later ones whose deadline passed, read
   * late by a busy server) does not count either while the connection has room for it: the call
   * takes a slot, until its handler is done, of an allowance as large as {@link
   * #maxConcurrentCallsPerConnection}, and while none is free such resets count again, so resetting
   * cannot leave more abandoned calls running than that limit allows open ones. The same limit
   * applies, counted separately, to the RST_STREAM frames the server sends because the client broke
   * a stream's rules (a WINDOW_UPDATE of 0, a window overflow, a frame on a closed stream, a
   * malformed request: the "MadeYouReset" attack); resets for the server's own reasons (a deadline,
   * a cancelled call) do not count. 0 disables both.
   *
   * @throws IllegalArgumentException if {@code max} is negative or the window is not positive
   */
  public NettyServerBuilder maxRstFramesPerWindow(int max, long window, TimeUnit unit) {
    Objects.requireNonNull(unit, "unit");
    if (max < 0) {
      throw new IllegalArgumentException("maxRstFramesPerWindow must be >= 0: " + max);
    }
    if (window <= 0) {
      throw new IllegalArgumentException("window must be positive: " + window + " " + unit);
    }
    this.maxRstFramesPerWindow = max;
    this.rstWindowNanos = unit.toNanos(window);
    return this;
  }

  /**
   * Bounds the response bytes one call may have waiting for a client that does not read them
   * (default 8 MiB). Responses wait when the client's HTTP/2 window is closed or its socket is
   * full. An application that sends only while {@code isReady()} is true keeps at most 32 KiB and
   * one message waiting, and never meets this bound. One that sends regardless would, facing a
   * client that never reads, fill the server's memory: so when it sends a message while more than
   * this many bytes wait, the call's stream is reset with RST_STREAM(ENHANCE_YOUR_CALM), which the
   * client sees as RESOURCE_EXHAUSTED, what waited is released, and the application sees the call
   * cancelled (status RESOURCE_EXHAUSTED). A call's first message in flight is always accepted,
   * however large (a 16 MiB response to a slow client arrives whole); the bound is on what is
   * written on top of it.
   *
   * <p>The default is 256 times the 32 KiB at which a stream stops being ready, and eight of the
   * default 1 MiB flow-control windows: room for bursts ahead of a client that reads steadily. (A
   * grpc-go server cannot buffer this way: its send blocks once 64 KiB wait. Tern's sends are
   * asynchronous and may run on the event loop, so they cannot block.)
   *
   * @throws IllegalArgumentException if {@code bytes} is less than 32768 (32 KiB), the readiness
   *     threshold, which would reset calls that honour {@code isReady()}
   */
  public NettyServerBuilder maxQueuedOutboundBytesPerStream(int bytes) {
    if (bytes < ServerOptions.MIN_MAX_QUEUED_OUTBOUND_BYTES) {
      throw new IllegalArgumentException(
          "maxQueuedOutboundBytesPerStream must be >= "
              + ServerOptions.MIN_MAX_QUEUED_OUTBOUND_BYTES
              + ", was "
              + bytes);
    }
    this.maxQueuedOutboundBytesPerStream = bytes;
    return this;
  }

  /**
   * Bounds the response bytes all calls of one connection together may have waiting for a client
   * that does not read them (default 64 MiB). When a call sends a message while it is not ready and
   * more than this many bytes wait on its connection, the connection is closed with
   * GOAWAY(ENHANCE_YOUR_CALM), what waited is released, and its calls end RESOURCE_EXHAUSTED; one
   * FINE line on {@code dev.tern.netty.connections} says so. As with {@link
   * #maxQueuedOutboundBytesPerStream}, calls that honour {@code isReady()} and each call's first
   * message in flight are never refused, so a connection holds at most this bound plus one message
   * per call.
   *
   * <p>The default keeps a client that opens many calls and reads none of their responses (16 calls
   * of 64 MiB each used to hold 1.3 GB) to 64 MiB, so a server with a 512 MiB heap outlives several
   * such clients at once, while a well-behaved connection would need some 2,000 calls each waiting
   * at the readiness threshold to reach it.
   *
   * @throws IllegalArgumentException if {@code bytes} is less than 32768 (32 KiB)
   */
  public NettyServerBuilder maxQueuedOutboundBytesPerConnection(long bytes) {
    if (bytes < ServerOptions.MIN_MAX_QUEUED_OUTBOUND_BYTES) {
      throw new IllegalArgumentException(
          "maxQueuedOutboundBytesPerConnection must be >= "
              + ServerOptions.MIN_MAX_QUEUED_OUTBOUND_BYTES
              + ", was "
              + bytes);
    }
    this.maxQueuedOutboundBytesPerConnection = bytes;
    return this;
  }

  /**
   * Bounds how many frames of under 8 KiB one request header block may take: its HEADERS frame and
   * the CONTINUATION frames but the last (default 512). A client past the bound is disconnected
   * with GOAWAY(ENHANCE_YOUR_CALM). The size of a header block is bounded by {@link
   * #maxInboundMetadataSize}; this bounds the work of one made of many small or empty frames (the
   * CONTINUATION flood, CVE-2024-27316), which adds no bytes. The default takes a block of the
   * default metadata limit in 256-byte frames several times over, as grpc-go and grpc-java accept
   * such blocks, and cuts a flood of empty frames off within about 4.5 KiB.
   *
   * @throws IllegalArgumentException if {@code max} is less than 1
   */
  public NettyServerBuilder maxContinuationFrames(int max) {
    if (max < 1) {
      throw new IllegalArgumentException("maxContinuationFrames must be >= 1, was " + max);
    }
    this.maxContinuationFrames = max;
    return this;
  }

  /**
   * How long a client may take to acknowledge the server's SETTINGS before the connection ends with
   * GOAWAY(SETTINGS_TIMEOUT) (RFC 9113 section 6.5.3), so a peer that never answers cannot hold the
   * connection in its initial state. Default: 10 seconds.
   *
   * @throws IllegalArgumentException if {@code time} is not positive
   */
  public NettyServerBuilder http2SettingsAckTimeout(long time, TimeUnit unit) {
    this.settingsAckTimeoutNanos = positiveNanos(time, unit, "http2SettingsAckTimeout");
    return this;
  }

  /**
   * The protocols served on this server's port beside gRPC (see {@link HttpServerProtocol}), for
   * the requests that are not gRPC over HTTP/2: each is offered to them in this order, over
   * HTTP/1.1 and HTTP/2 alike, and the first whose {@code handles} accepts it serves it. A request
   * none takes gets 415 (405 for a method other than POST) with a short text body and a {@code
   * grpc-status}. Replaces what an earlier call set.
   *
   * <p>The port speaks HTTP/1.1 as well as HTTP/2, whatever is set here: a cleartext connection is
   * told apart by its first bytes (the HTTP/2 client preface or not), a TLS one by ALPN, for which
   * the server contexts of {@link NettySslContexts} offer {@code h2} then {@code http/1.1} (a
   * client that offers no ALPN is served HTTP/1.1, and refused HTTP/2, which gRPC over TLS requires
   * ALPN for). An HTTP/1.1 connection serves one request at a time (pipelined ones wait their turn)
   * and stops reading while a protocol holds 64 KiB of request body it has not consumed; its
   * request line may be 8 KiB, its headers {@link #maxInboundMetadataSize}; the connection idle and
   * age limits apply to it as to HTTP/2 connections.
   *
   * <p>Default: every {@link HttpServerProtocol} that {@link java.util.ServiceLoader} finds when
   * the server is built, which with {@code tern-web} on the class path are gRPC-Web and Connect
   * with their default settings (no CORS; use {@code dev.tern.web.WebProtocols} to configure them).
   * With no arguments, none: only gRPC is served, and other requests get 415 or 405.
   *
   * @throws IllegalArgumentException if a protocol is null
   */
  public NettyServerBuilder httpProtocols(HttpServerProtocol... protocols) {
    return httpProtocols(Arrays.asList(Objects.requireNonNull(protocols, "protocols")));
  }

  /**
   * Like {@link #httpProtocols(HttpServerProtocol...)}, from a list (copied).
   *
   * @throws IllegalArgumentException if a protocol is null
   */
  public NettyServerBuilder httpProtocols(List<HttpServerProtocol> protocols) {
    Objects.requireNonNull(protocols, "protocols");
    for (int i = 0; i < protocols.size(); i++) {
      if (protocols.get(i) == null) {
        throw new IllegalArgumentException("protocols[" + i + "] is null");
      }
    }
    this.httpProtocols = List.copyOf(protocols);
    return this;
  }

  private Http3Transport.Endpoint http3Endpoint(ServerOptions options) {
    if (!(address instanceof InetSocketAddress)) {
      throw new IllegalStateException(
          "enableHttp3() needs an IP address to listen on, not " + address);
    }
    if (tlsCredentials == null) {
      throw new IllegalStateException(
          "enableHttp3() needs TLS configured from credentials (useTransportSecurity or"
              + " TlsServerCredentials): HTTP/3 always runs over TLS 1.3, and QUIC cannot take its"
              + " key from an SslContext");
    }
    Http3Transport transport =
        ServiceLoader.load(Http3Transport.class, NettyServerBuilder.class.getClassLoader())
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "enableHttp3() needs the tern-http3 module (dev.tern:tern-http3) on the"
                            + " class path or module path"));
    return transport.newEndpoint(options, tlsCredentials);
  }

  @Override
  protected ServerBuilder<?> delegate() {
    return assembly;
  }

  /** The runtime's server builder, with this transport's server. */
  private final class Assembly extends AbstractServerBuilder<Assembly> {
    @Override
    protected TransportServer buildTransportServer() {
      EventLoopGroup boss = bossGroup != null ? bossGroup : EventLoops.sharedBossGroup();
      EventLoopGroup workers = workerGroup != null ? workerGroup : EventLoops.sharedWorkerGroup();
      // A null channel factory lets the server pick the one for the groups and the address.
      ServerOptions options =
          new ServerOptions(
              flowControlWindow,
              maxInboundMessageSize(),
              maxInboundMetadataSize(),
              maxConcurrentCallsPerConnection,
              gracePeriodNanos,
              maxRstFramesPerWindow,
              rstWindowNanos,
              sslContext,
              permitKeepAliveTimeNanos,
              permitKeepAliveWithoutCalls,
              keepAliveTimeNanosInEffect(),
              keepAliveTimeoutNanos,
              maxConnectionIdleNanos,
              maxConnectionAgeNanos,
              maxConnectionAgeGraceNanos,
              maxQueuedOutboundBytesPerStream,
              maxQueuedOutboundBytesPerConnection,
              maxContinuationFrames,
              httpProtocols == null ? HttpProtocols.discovered() : HttpProtocols.of(httpProtocols),
              settingsAckTimeoutNanos);
      Http3Transport.Endpoint udp = http3 ? http3Endpoint(options) : null;
      NettyServer server = new NettyServer(address, boss, workers, channelFactory, options);
      if (perConnection != null) {
        server.connectionTls(new ConnectionTls(perConnection, NettySslContexts::forServer));
      }
      return udp == null ? server : new TcpAndUdpServer(server, udp, options);
    }
  }
}
