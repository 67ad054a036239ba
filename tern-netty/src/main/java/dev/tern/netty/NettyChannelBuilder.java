package dev.tern.netty;

import dev.tern.Attributes;
import dev.tern.ForwardingChannelBuilder;
import dev.tern.HttpConnectProxiedSocketAddress;
import dev.tern.ManagedChannelBuilder;
import dev.tern.PerAddressChannelCredentials;
import dev.tern.TlsChannelCredentials;
import dev.tern.internal.channel.AbstractManagedChannelBuilder;
import dev.tern.netty.internal.client.Http3Alternatives;
import dev.tern.netty.internal.client.Http3Connector;
import dev.tern.netty.internal.client.Http3Upgrade;
import dev.tern.netty.internal.client.NettyClientTransport;
import dev.tern.netty.internal.io.DomainSockets;
import dev.tern.netty.internal.io.EventLoops;
import dev.tern.netty.internal.io.NettyProperties;
import dev.tern.spi.ClientTransportFactory;
import dev.tern.spi.ManagedClientTransport;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ReflectiveChannelFactory;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.WeakHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.net.ssl.SSLException;

/**
 * Builds a channel that carries calls over HTTP/2 on Netty, to the servers a target names:
 *
 * <pre>{@code
 * ManagedChannel channel =
 *     NettyChannelBuilder.forAddress("localhost", 50051).sslContext(clientContext).build();
 * }</pre>
 *
 * <p>Options and defaults, beyond those of every channel builder: the event loops are Tern's shared
 * daemon group (native epoll when available, NIO otherwise; see {@code -Ddev.tern.netty.transport})
 * unless {@link #eventLoopGroup} gives one; the channel type follows the group and the address
 * unless {@link #channelType} sets it; the HTTP/2 flow-control window of each stream and of the
 * connection is 1 MiB ({@link #flowControlWindow}); connecting times out after 20 seconds ({@link
 * #connectTimeout}). TLS is on by default (HTTP/2 negotiated by ALPN, the server's name checked
 * against the authority), with the JDK's trusted CAs unless {@link #sslContext} gives a context;
 * {@link #usePlaintext()} selects h2c (HTTP/2 with prior knowledge) instead. With the {@code
 * tern-http3} module on the path, a TLS channel moves to HTTP/3 where a server advertises it
 * ({@link #http3Upgrade}), or uses it from the start ({@link #enableHttp3}).
 *
 * <p>Not thread-safe: configure from one thread, then {@link #build()}.
 */
public final class NettyChannelBuilder extends ForwardingChannelBuilder<NettyChannelBuilder> {
  static {
    // Before any Netty class loads: Tern's defaults for Netty's properties (see NettyProperties).
    NettyProperties.applyDefaults();
  }

  /** Default flow-control window: 1 MiB, enough for a round trip's worth of data on a LAN. */
  public static final int DEFAULT_FLOW_CONTROL_WINDOW = 1024 * 1024;

  private static final long DEFAULT_CONNECT_TIMEOUT_MILLIS = TimeUnit.SECONDS.toMillis(20);

  /** The kinds of address the transport connects to (domain sockets with a native transport). */
  static final Collection<Class<? extends SocketAddress>> SUPPORTED_ADDRESS_TYPES =
      Stream.concat(
              DomainSockets.withDomainSocketTypes(InetSocketAddress.class).stream(),
              Stream.of(HttpConnectProxiedSocketAddress.class))
          .toList();

  private final String target;
  private final SocketAddress directAddress;
  private final String directAuthority;
  private final Assembly assembly = new Assembly();
  private EventLoopGroup eventLoopGroup;
  private ChannelFactory<? extends Channel> channelFactory;
  private int flowControlWindow = DEFAULT_FLOW_CONTROL_WINDOW;
  private long connectTimeoutMillis = DEFAULT_CONNECT_TIMEOUT_MILLIS;
  private SslContext sslContext;
  private PerAddressChannelCredentials perAddress;
  private TlsChannelCredentials tlsCredentials;
  private boolean http3;
  private boolean http3Upgrade = true;
  private long http3HeadStartNanos = DEFAULT_HTTP3_HEAD_START_NANOS;

  /**
   * How long QUIC runs alone before TCP joins the race: RFC 8305's recommended connection attempt
   * delay (250 ms).
   */
  private static final long DEFAULT_HTTP3_HEAD_START_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

  /** The shortest keepalive time (grpc-java's): 10 seconds. */
  static final long MIN_KEEPALIVE_TIME_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final KeepAliveTime keepAliveTime =
      new KeepAliveTime(Long.MAX_VALUE, MIN_KEEPALIVE_TIME_NANOS);
  private long keepAliveTimeoutNanos = TimeUnit.SECONDS.toNanos(20);
  private boolean keepAliveWithoutCalls;

  private NettyChannelBuilder(String target, SocketAddress directAddress, String directAuthority) {
    this.target = target;
    this.directAddress = directAddress;
    this.directAuthority = directAuthority;
  }

  /**
   * A builder for a channel to {@code host:port}: the host is resolved by DNS (every address it
   * has, re-resolved when connections fail), as for the target {@code dns:///host:port}.
   *
   * @throws IllegalArgumentException if {@code host} is empty or {@code port} is not 0..65535
   */
  public static NettyChannelBuilder forAddress(String host, int port) {
    Objects.requireNonNull(host, "host");
    if (host.isEmpty()) {
      throw new IllegalArgumentException("host must not be empty");
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be in 0..65535, was " + port);
    }
    return new NettyChannelBuilder("dns:///" + hostPort(host, port), null, null);
  }

  /**
   * A builder for a channel to {@code address} alone, with no name resolution: an {@link
   * InetSocketAddress} (an unresolved one is looked up when connecting), or a Unix domain socket,
   * Netty's {@code io.netty.channel.unix.DomainSocketAddress} (a path, or on Linux an abstract name
   * starting with {@code '\0'}) or the JDK's {@code java.net.UnixDomainSocketAddress}. A domain
   * socket needs Netty's native epoll or io_uring transport ({@code
   * io.netty:netty-transport-native-epoll}, classifier {@code linux-x86_64}): a group of that kind
   * uses its domain socket channel, and connections wanted on a NIO group run on Tern's shared
   * native group instead; without any, calls fail UNAVAILABLE naming the missing dependency. The
   * default authority of a domain socket is {@code localhost}.
   */
  public static NettyChannelBuilder forAddress(SocketAddress address) {
    Objects.requireNonNull(address, "address");
    String authority;
    if (address instanceof InetSocketAddress inet) {
      authority = hostPort(inet.getHostString(), inet.getPort());
    } else if (address instanceof HttpConnectProxiedSocketAddress proxied) {
      InetSocketAddress server = proxied.getTargetAddress();
      authority = hostPort(server.getHostString(), server.getPort());
    } else {
      authority = DomainSockets.DEFAULT_AUTHORITY;
    }
    return new NettyChannelBuilder(address.toString(), address, authority);
  }

  /**
   * A builder for a channel to {@code target}, a name the registered resolvers understand: {@code
   * host:port}, {@code dns:///host:port}, {@code dns://DNS_SERVER:PORT/host:port}, {@code
   * ipv4:10.0.0.1:50051,10.0.0.2:50051}, {@code ipv6:[::1]:50051}, {@code unix:/path} or {@code
   * unix-abstract:name}. The target is checked by {@link #build()}, which throws {@link
   * IllegalArgumentException} saying what is wrong with a malformed one.
   *
   * <p>The scheme {@code h3} names a server to call over HTTP/3 from the start: {@code
   * h3://host:port} (or {@code h3:///host:port}, as in {@code dns:///host:port}) is the DNS target
   * {@code dns:///host:port} with {@link #enableHttp3} on, and {@code
   * h3://DNS_SERVER:PORT/host:port} asks that DNS server. See docs/http3.md.
   */
  public static NettyChannelBuilder forTarget(String target) {
    Objects.requireNonNull(target, "target");
    String dns = Http3Target.toDnsTarget(target);
    if (dns != null) {
      NettyChannelBuilder builder = new NettyChannelBuilder(dns, null, null);
      builder.http3 = true;
      return builder;
    }
    return new NettyChannelBuilder(target, null, null);
  }

  private static String hostPort(String host, int port) {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }

  /**
   * The event loops for the channel's connections; the caller owns them (the channel does not shut
   * them down). Default: Tern's shared daemon group.
   */
  public NettyChannelBuilder eventLoopGroup(EventLoopGroup group) {
    this.eventLoopGroup = Objects.requireNonNull(group, "group");
    return this;
  }

  /**
   * The channel class, which must suit the event loop group and the address (e.g. {@code
   * EpollSocketChannel} for TCP on an epoll group). Default: the socket channel of the group's kind
   * (epoll, io_uring or NIO), or its domain socket channel for a domain socket address.
   *
   * @throws IllegalArgumentException if {@code type} has no public no-argument constructor
   */
  public NettyChannelBuilder channelType(Class<? extends Channel> type) {
    Objects.requireNonNull(type, "type");
    this.channelFactory = new ReflectiveChannelFactory<>(type);
    return this;
  }

  /**
   * The HTTP/2 flow-control window of each stream and of the connection, in bytes (default 1 MiB).
   * A larger window lets one call send more before the reader catches up.
   *
   * @throws IllegalArgumentException if {@code bytes} is not positive
   */
  public NettyChannelBuilder flowControlWindow(int bytes) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("flowControlWindow must be positive, was " + bytes);
    }
    this.flowControlWindow = bytes;
    return this;
  }

  /**
   * How long establishing a TCP connection may take (default 20 seconds); calls waiting for it fail
   * UNAVAILABLE after that, and the channel retries with backoff.
   *
   * @throws IllegalArgumentException if {@code timeout} is not positive or over {@code
   *     Integer.MAX_VALUE} milliseconds
   */
  public NettyChannelBuilder connectTimeout(long timeout, TimeUnit unit) {
    Objects.requireNonNull(unit, "unit");
    long millis = unit.toMillis(timeout);
    if (timeout <= 0 || millis > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("connectTimeout out of range: " + timeout + " " + unit);
    }
    this.connectTimeoutMillis = Math.max(1, millis);
    return this;
  }

  /**
   * Keepalive PINGs after {@code time} with nothing read (default: never); see {@link
   * ManagedChannelBuilder#keepAliveTime}. A time below 10 seconds is raised to 10 seconds (gRFC
   * A8), so that a channel cannot ping a server more often than any gRPC server is likely to allow.
   * Each GOAWAY(ENHANCE_YOUR_CALM, "too_many_pings") doubles the channel's keepalive time for its
   * later connections. {@code Long.MAX_VALUE}, or any time of 1,000 days or more, disables it.
   *
   * @throws IllegalArgumentException if {@code time} is not positive
   */
  @Override
  public NettyChannelBuilder keepAliveTime(long time, TimeUnit unit) {
    super.keepAliveTime(time, unit); // checks the arguments
    keepAliveTime.set(time, unit);
    return this;
  }

  /**
   * Lowers the 10-second minimum of {@link #keepAliveTime}: for tests that cannot wait that long.
   */
  NettyChannelBuilder keepAliveTimeMinimum(long time, TimeUnit unit) {
    keepAliveTime.minimum(time, unit);
    return this;
  }

  /** The keepalive time connections will use: at least the minimum, or Long.MAX_VALUE for none. */
  long keepAliveTimeNanosInEffect() {
    return keepAliveTime.nanosInEffect();
  }

  /**
   * How long to wait for the answer to a keepalive PING before closing the connection (default 20
   * seconds); calls on it then fail UNAVAILABLE.
   *
   * @throws IllegalArgumentException if {@code timeout} is not positive
   */
  @Override
  public NettyChannelBuilder keepAliveTimeout(long timeout, TimeUnit unit) {
    super.keepAliveTimeout(timeout, unit); // checks the arguments
    this.keepAliveTimeoutNanos = unit.toNanos(timeout);
    return this;
  }

  /**
   * Whether keepalive PINGs are sent also while no call is open (default false: an idle connection
   * is not probed, and servers reject such pings unless they permit them).
   */
  @Override
  public NettyChannelBuilder keepAliveWithoutCalls(boolean enable) {
    this.keepAliveWithoutCalls = enable;
    return this;
  }

  /**
   * Lets {@code credentials} choose the TLS of each connection from its address's attributes (for
   * {@link NettyChannelProvider}); addresses they choose none for use this builder's own security.
   */
  NettyChannelBuilder perAddressCredentials(PerAddressChannelCredentials credentials) {
    this.perAddress = Objects.requireNonNull(credentials, "credentials");
    return this;
  }

  /**
   * Uses TLS with {@code sslContext}, a client context (build it with {@link
   * NettySslContexts#forClient}, adding trust material and, for mutual TLS, a key); implies {@link
   * #useTransportSecurity()}. Without it, TLS uses {@code NettySslContexts.forClient()} as is (the
   * JDK's default trusted CAs).
   *
   * @throws IllegalArgumentException if {@code sslContext} is a server context
   */
  public NettyChannelBuilder sslContext(SslContext sslContext) {
    Objects.requireNonNull(sslContext, "sslContext");
    if (!sslContext.isClient()) {
      throw new IllegalArgumentException("sslContext must be a client context");
    }
    this.sslContext = sslContext;
    this.tlsCredentials = null; // a context alone cannot give QUIC its trust
    return useTransportSecurity();
  }

  /**
   * Uses TLS from {@code credentials} (trust roots or trust manager, and a client certificate when
   * they have one), as {@code Grpc.newChannelBuilder} with them does; implies {@link
   * #useTransportSecurity()}. Unlike {@link #sslContext}, it also gives HTTP/3 ({@link
   * #enableHttp3}) its TLS.
   *
   * @throws IllegalArgumentException if the credentials cannot make a TLS context
   */
  public NettyChannelBuilder tlsCredentials(TlsChannelCredentials credentials) {
    Objects.requireNonNull(credentials, "credentials");
    sslContext(NettySslContexts.forClient(credentials));
    this.tlsCredentials = credentials;
    return this;
  }

  /**
   * Calls over HTTP/3 (QUIC, RFC 9114, on UDP) instead of HTTP/2: one QUIC connection per address,
   * TLS 1.3 with ALPN {@code h3}, trusting what {@link #tlsCredentials} (or {@code
   * Grpc.newChannelBuilder} with {@code TlsChannelCredentials}) trusts, or the JDK's trusted CAs
   * when no TLS was configured; every call type, metadata, deadlines, cancellation, compression and
   * the inbound size limits as on HTTP/2. Needs the {@code tern-http3} module on the class or
   * module path. The event loop group, channel type, flow-control window, keepalive and HTTP
   * CONNECT proxies do not apply to HTTP/3 connections. See docs/http3.md. Default: off (HTTP/2),
   * on for an {@code h3:} target ({@link #forTarget}).
   *
   * <p>{@code build()} throws {@link IllegalStateException} if tern-http3 is missing, if the
   * channel is plaintext (HTTP/3 always runs over TLS), or if TLS came from a bare {@link
   * #sslContext}, which QUIC's TLS cannot use.
   */
  public NettyChannelBuilder enableHttp3() {
    this.http3 = true;
    return this;
  }

  /**
   * Whether the channel moves to HTTP/3 where a server advertises it (default: on, when the {@code
   * tern-http3} module is on the path and the channel uses TLS that QUIC can use: the JDK's trusted
   * CAs or {@link #tlsCredentials}, not a bare {@link #sslContext}). A response's {@code alt-svc}
   * naming {@code h3} on the same host (RFC 7838; another host is ignored, as is a malformed value)
   * is remembered per server address for its max-age ({@code ma}, 24 hours by default; {@code
   * clear} forgets it), and the HTTP/2 connection that heard it first retires as after a GOAWAY:
   * its calls finish on it, and new calls go to a new connection, which races QUIC against TCP (see
   * {@link #http3RaceHeadStart}). The first ready carries the calls. If QUIC fails or loses (UDP
   * blocked, no answer, a failed handshake), the connection is HTTP/2 and no call fails; QUIC to
   * that server is then not tried again for 5 minutes, doubling with each failure up to a day. No
   * effect with {@link #enableHttp3}, which uses HTTP/3 from the start. See docs/http3.md.
   */
  public NettyChannelBuilder http3Upgrade(boolean enabled) {
    this.http3Upgrade = enabled;
    return this;
  }

  /**
   * How long a connection racing QUIC against TCP ({@link #http3Upgrade}) lets QUIC try alone
   * before starting TCP too (default 250 ms, RFC 8305's connection attempt delay); TCP starts at
   * once if QUIC fails first. A QUIC handshake that TCP overtakes counts as a failure.
   *
   * @throws IllegalArgumentException if {@code time} is negative
   */
  public NettyChannelBuilder http3RaceHeadStart(long time, TimeUnit unit) {
    Objects.requireNonNull(unit, "unit");
    if (time < 0) {
      throw new IllegalArgumentException("http3RaceHeadStart must not be negative: " + time);
    }
    this.http3HeadStartNanos = unit.toNanos(time);
    return this;
  }

  /** The channel's HTTP/3 upgrade, or null when it has none (see {@link #http3Upgrade}). */
  private Http3Upgrade http3UpgradeForBuild(ScheduledExecutorService timer) {
    if (!http3Upgrade
        || http3
        || perAddress != null
        || isPlaintextForHttp3()
        || (sslContext != null && tlsCredentials == null)) {
      return null;
    }
    Http3Connector connector =
        ServiceLoader.load(Http3Connector.class, NettyChannelBuilder.class.getClassLoader())
            .findFirst()
            .orElse(null);
    if (connector == null) {
      return null;
    }
    TlsChannelCredentials credentials = tlsCredentials;
    int maxInboundMetadataSize = assembly.maxInboundMetadataSizeForBuild();
    int timeoutMillis = (int) connectTimeoutMillis;
    return new Http3Upgrade(
        new Http3Alternatives(System::nanoTime),
        () -> connector.newConnections(credentials, true, maxInboundMetadataSize, timeoutMillis),
        http3HeadStartNanos,
        timer);
  }

  private Http3Connector.Connections http3Connections(int maxInboundMetadataSize) {
    if (isPlaintextForHttp3()) {
      throw new IllegalStateException(
          "enableHttp3() needs TLS: HTTP/3 always runs over TLS 1.3, not usePlaintext()");
    }
    if (sslContext != null && tlsCredentials == null) {
      throw new IllegalStateException(
          "enableHttp3() needs TLS configured from credentials (tlsCredentials or"
              + " TlsChannelCredentials), not an SslContext, which QUIC's TLS cannot use");
    }
    Http3Connector connector =
        ServiceLoader.load(Http3Connector.class, NettyChannelBuilder.class.getClassLoader())
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "enableHttp3() needs the tern-http3 module (dev.tern:tern-http3) on the"
                            + " class path or module path"));
    return connector.newConnections(
        tlsCredentials, true, maxInboundMetadataSize, (int) connectTimeoutMillis);
  }

  private boolean isPlaintextForHttp3() {
    return assembly.plaintext();
  }

  @Override
  protected ManagedChannelBuilder<?> delegate() {
    return assembly;
  }

  /** The runtime's channel builder, with this transport's parts. */
  private final class Assembly extends AbstractManagedChannelBuilder<Assembly> {
    boolean plaintext() {
      return isPlaintext();
    }

    int maxInboundMetadataSizeForBuild() {
      return maxInboundMetadataSize();
    }

    private SslContext sslContextForBuild() {
      if (isPlaintext()) {
        return null;
      }
      if (sslContext != null) {
        return sslContext;
      }
      try {
        return NettySslContexts.forClient().build();
      } catch (SSLException e) {
        throw new IllegalStateException("cannot create the default TLS client context", e);
      }
    }

    @Override
    protected ClientTransportFactory buildTransportFactory() {
      EventLoopGroup group =
          eventLoopGroup != null ? eventLoopGroup : EventLoops.sharedWorkerGroup();
      // A null channel factory lets each transport pick the one for the group and its address.
      NettyClientTransport.TransportOptions options =
          new NettyClientTransport.TransportOptions(
              group,
              channelFactory,
              flowControlWindow,
              maxInboundMetadataSize(),
              (int) connectTimeoutMillis,
              sslContextForBuild());
      long keepAliveNanos = keepAliveTimeNanosInEffect();
      if (keepAliveNanos != Long.MAX_VALUE) {
        options =
            options.withKeepAlive(keepAliveNanos, keepAliveTimeoutNanos, keepAliveWithoutCalls);
      }
      Http3Upgrade upgrade = http3UpgradeForBuild(group);
      if (upgrade != null) {
        options = options.withHttp3Alternatives(upgrade.alternatives());
      }
      return new TransportFactory(
          options,
          group,
          perAddress == null ? null : new AddressTls(perAddress),
          http3 ? http3Connections(maxInboundMetadataSize()) : null,
          upgrade);
    }

    @Override
    protected String target() {
      return target;
    }

    @Override
    protected SocketAddress directAddress() {
      return directAddress;
    }

    @Override
    protected String authority() {
      return directAuthority;
    }

    @Override
    protected int defaultPort() {
      return isPlaintext() ? 80 : 443;
    }

    @Override
    protected Collection<Class<? extends SocketAddress>> supportedAddressTypes() {
      return SUPPORTED_ADDRESS_TYPES;
    }
  }

  /**
   * The TLS contexts {@link PerAddressChannelCredentials} choose, built once per credentials
   * instance. Thread-safe: the cache is synchronized; the credentials are thread-safe by contract.
   */
  private static final class AddressTls {
    private final PerAddressChannelCredentials credentials;

    /** Keyed by identity (credentials do not override equals); entries go with them. */
    private final Map<TlsChannelCredentials, SslContext> contexts = new WeakHashMap<>();

    AddressTls(PerAddressChannelCredentials credentials) {
      this.credentials = credentials;
    }

    /**
     * The options of a connection to an address with {@code attributes}: {@code options} with the
     * TLS and server name the credentials choose, or {@code options} itself for the channel's own.
     */
    NettyClientTransport.TransportOptions optionsFor(
        NettyClientTransport.TransportOptions options, Attributes attributes) {
      TlsChannelCredentials tls = credentials.credentialsFor(attributes);
      if (tls == null) {
        return options;
      }
      SslContext context;
      synchronized (contexts) {
        context = contexts.computeIfAbsent(tls, t -> NettySslContexts.forClient(t, false));
      }
      return options.withTlsCheckedByTrustManager(context, credentials.serverNameFor(attributes));
    }
  }

  /**
   * Creates {@link NettyClientTransport}s sharing one set of options, or HTTP/3 transports from
   * {@code http3} when the channel has HTTP/3 on, or races of both from {@code upgrade} where a
   * server advertised HTTP/3. Owns nothing that needs releasing: the event loops are shared or the
   * application's. Thread-safe (immutable apart from a volatile flag).
   */
  private static final class TransportFactory implements ClientTransportFactory {
    private final NettyClientTransport.TransportOptions options;
    private final EventLoopGroup group;
    private final AddressTls addressTls;
    private final Http3Connector.Connections http3;
    private final Http3Upgrade upgrade;
    private volatile boolean closed;

    TransportFactory(
        NettyClientTransport.TransportOptions options,
        EventLoopGroup group,
        AddressTls addressTls,
        Http3Connector.Connections http3,
        Http3Upgrade upgrade) {
      this.options = options;
      this.group = group;
      this.addressTls = addressTls;
      this.http3 = http3;
      this.upgrade = upgrade;
    }

    @Override
    public ManagedClientTransport newClientTransport(
        SocketAddress address, String authority, String userAgent) {
      return newClientTransport(address, authority, userAgent, Attributes.EMPTY);
    }

    @Override
    public ManagedClientTransport newClientTransport(
        SocketAddress address, String authority, String userAgent, Attributes addressAttributes) {
      if (closed) {
        throw new IllegalStateException("transport factory is closed");
      }
      if (http3 != null) {
        return http3.newTransport(address, authority, userAgent);
      }
      NettyClientTransport.TransportOptions chosen =
          addressTls == null ? options : addressTls.optionsFor(options, addressAttributes);
      NettyClientTransport tcp = new NettyClientTransport(address, authority, userAgent, chosen);
      return upgrade == null ? tcp : upgrade.newTransport(address, authority, userAgent, tcp);
    }

    @Override
    public ScheduledExecutorService getScheduledExecutorService() {
      return group;
    }

    /** A request from the application's thread goes to the connection's event loop. */
    @Override
    public boolean requestsCrossThreads() {
      return true;
    }

    @Override
    public void close() {
      closed = true;
    }
  }
}
