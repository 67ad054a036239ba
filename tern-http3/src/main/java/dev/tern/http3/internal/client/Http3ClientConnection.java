package dev.tern.http3.internal.client;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.Grpc;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.SecurityLevel;
import dev.tern.Status;
import dev.tern.http3.internal.common.LocalControlStream;
import dev.tern.http3.internal.common.PeerStreamReader;
import dev.tern.http3.internal.frame.Http3Errors;
import dev.tern.http3.internal.frame.Http3Exception;
import dev.tern.netty.internal.client.HostAndPort;
import dev.tern.netty.internal.client.RequestPaths;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ClientStreamListener.RpcProgress;
import dev.tern.spi.ManagedClientTransport;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicClientCodecBuilder;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamLimitChangedEvent;
import io.netty.handler.codec.quic.QuicStreamType;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * A client transport over HTTP/3: one QUIC connection, on a UDP socket of its own, to one address.
 * {@link #start} binds the socket and starts QUIC's handshake (TLS 1.3, ALPN {@code h3}, the
 * server's name checked against the authority's host); once it is done the transport is ready, its
 * control stream carries SETTINGS, and each call opens a bidirectional stream ({@link
 * Http3ResponseStream}); while QUIC allows no more streams (the server's limit on concurrent
 * calls), a call waits for the server's MAX_STREAMS. The server's GOAWAY ends the transport for new
 * calls: calls on streams at or above its id were never processed and end REFUSED (the runtime
 * retries them transparently, on a new connection), the others finish, then the connection closes.
 *
 * <p>Thread-safe: the public methods may be called from any thread and hand their work to the
 * connection's event loop, where all other state lives; what application threads read is volatile
 * (the QUIC channel and attributes, written once, and the shutdown status).
 */
final class Http3ClientConnection implements ManagedClientTransport, PeerStreamReader.Owner {
  /** The QUIC flow-control credit the server gets per stream, and per connection. */
  static final long STREAM_WINDOW = 1024 * 1024;

  static final long CONNECTION_WINDOW = 16 * STREAM_WINDOW;

  /** An idle connection is closed after this long (QUIC's max_idle_timeout). */
  static final long IDLE_TIMEOUT_SECONDS = 120;

  private static final Metadata.Key<String> ALT_USED =
      Metadata.Key.of("alt-used", Metadata.ASCII_STRING_MARSHALLER);

  private static EventLoopGroup sharedGroup;

  private final SocketAddress address;
  private final String authority;
  private final AsciiString authorityAscii;
  private final AsciiString userAgent;
  private final Http3ConnectorProvider.ChannelConnections options;

  /** The {@code alt-used} value of every call (RFC 7838 section 5), or null if not an upgrade. */
  private final String altUsed;

  private final RequestPaths paths = new RequestPaths();
  private final EventLoop loop;

  private volatile boolean started;
  private volatile QuicChannel quic;
  private volatile Attributes attributes = Attributes.EMPTY;
  private volatile Status shutdownStatus;

  // ---- event loop only
  private Listener listener;
  private Channel udp;

  /** Whether QUIC's handshake runs: a shutdown then ends it (a race lost, UDP blocked). */
  private boolean handshaking;

  private boolean handshakeTimedOut;

  private final Set<Http3ResponseStream> calls = new LinkedHashSet<>();

  /** Calls waiting for QUIC to allow another stream (the server's MAX_STREAMS), in order. */
  private final ArrayDeque<Http3ResponseStream> waitingForStream = new ArrayDeque<>();

  private long goAwayId = Long.MAX_VALUE;
  private boolean peerControlStream;
  private boolean shutdownReported;
  private boolean terminated;
  private Status closeStatus;

  Http3ClientConnection(
      SocketAddress address,
      String authority,
      String userAgent,
      String altUsed,
      Http3ConnectorProvider.ChannelConnections options) {
    this.altUsed = altUsed;
    this.address = address;
    this.authority = authority;
    this.authorityAscii = new AsciiString(authority);
    this.userAgent = userAgent == null ? null : new AsciiString(userAgent);
    this.options = options;
    this.loop = group().next();
  }

  private static synchronized EventLoopGroup group() {
    if (sharedGroup == null) {
      sharedGroup =
          new MultiThreadIoEventLoopGroup(
              1, new DefaultThreadFactory("tern-http3-client", true), NioIoHandler.newFactory());
    }
    return sharedGroup;
  }

  @Override
  public Runnable start(Listener listener) {
    Objects.requireNonNull(listener, "listener");
    if (started) {
      throw new IllegalStateException("already started");
    }
    started = true;
    if (!(address instanceof InetSocketAddress target)) {
      Status status =
          Status.UNAVAILABLE.withDescription("HTTP/3 needs an IP address, not " + address);
      shutdownStatus = status;
      return () -> {
        listener.transportShutdown(status);
        listener.transportTerminated();
      };
    }
    loop.execute(() -> connect(listener, target));
    return null;
  }

  private void connect(Listener listener, InetSocketAddress target) {
    this.listener = listener;
    if (target.isUnresolved()) {
      target = new InetSocketAddress(target.getHostString(), target.getPort());
      if (target.isUnresolved()) {
        failed(Status.UNAVAILABLE.withDescription("cannot resolve " + target.getHostString()));
        return;
      }
    }
    InetSocketAddress remote = target;
    HostAndPort server = HostAndPort.ofAuthority(authority);
    io.netty.channel.ChannelHandler codec =
        new QuicClientCodecBuilder()
            .sslEngineProvider(
                ch -> options.sslContext().newEngine(ch.alloc(), server.host(), server.port()))
            .maxIdleTimeout(IDLE_TIMEOUT_SECONDS, TimeUnit.SECONDS)
            .initialMaxData(CONNECTION_WINDOW)
            .initialMaxStreamDataBidirectionalLocal(STREAM_WINDOW)
            .initialMaxStreamDataUnidirectional(STREAM_WINDOW)
            // The server's control stream and QPACK's two, with room for greasing ones.
            .initialMaxStreamsUnidirectional(16)
            .build();
    // A loopback server is reached from a loopback address; any other from the wildcard one.
    InetSocketAddress local =
        remote.getAddress().isLoopbackAddress()
            ? new InetSocketAddress(
                remote.getAddress() instanceof Inet6Address ? "::1" : "127.0.0.1", 0)
            : new InetSocketAddress(0);
    ChannelFuture bind =
        new Bootstrap().group(loop).channel(NioDatagramChannel.class).handler(codec).bind(local);
    udp = bind.channel();
    bind.addListener(
        f -> {
          if (!f.isSuccess()) {
            failed(
                Status.UNAVAILABLE
                    .withDescription("cannot bind a UDP socket for HTTP/3: " + f.cause())
                    .withCause(f.cause()));
            return;
          }
          if (shutdownStatus != null) {
            failed(shutdownStatus); // shut down while binding
            return;
          }
          Future<QuicChannel> connect =
              QuicChannel.newBootstrap(udp)
                  .handler(new StreamLimitWatch())
                  .streamHandler(new ServerStreams())
                  .remoteAddress(remote)
                  .connect();
          handshaking = true;
          // Closing the UDP socket ends the handshake (cancelling QUIC's connect future instead
          // makes Netty's codec log a second completion of it).
          ScheduledFuture<?> timeout =
              loop.schedule(
                  () -> {
                    handshakeTimedOut = true;
                    udp.close();
                  },
                  options.connectTimeoutMillis(),
                  TimeUnit.MILLISECONDS);
          connect.addListener(
              c -> {
                timeout.cancel(false);
                handshaking = false;
                if (c.isSuccess()) {
                  connected(connect.getNow());
                } else {
                  failed(
                      Status.UNAVAILABLE
                          .withDescription(handshakeFailure(remote, c.cause()))
                          .withCause(c.cause()));
                }
              });
        });
  }

  private String handshakeFailure(InetSocketAddress remote, Throwable cause) {
    String connection = "HTTP/3 connection to " + remote;
    if (handshakeTimedOut) {
      return connection + " timed out after " + options.connectTimeoutMillis() + " ms";
    }
    if (shutdownStatus != null) {
      return connection + " abandoned: " + shutdownStatus;
    }
    return connection + " failed: " + cause;
  }

  /** Opens waiting calls' streams when the server allows more (its MAX_STREAMS). */
  private final class StreamLimitWatch extends ChannelInboundHandlerAdapter {
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
      if (event instanceof QuicStreamLimitChangedEvent) {
        openWaitingCalls();
      }
      ctx.fireUserEventTriggered(event);
    }
  }

  /** Streams the server opens: unidirectional ones are read; a bidirectional one is an error. */
  private final class ServerStreams extends ChannelInitializer<QuicStreamChannel> {
    @Override
    protected void initChannel(QuicStreamChannel ch) {
      if (ch.type() == QuicStreamType.UNIDIRECTIONAL) {
        ch.pipeline().addLast(new PeerStreamReader(Http3ClientConnection.this));
        return;
      }
      connectionError(
          Http3Exception.connection(
              Http3Errors.H3_STREAM_CREATION_ERROR, "the server opened a bidirectional stream"));
    }
  }

  private void connected(QuicChannel channel) {
    quic = channel;
    Attributes.Builder attrs =
        Attributes.newBuilder()
            .set(Grpc.TRANSPORT_ATTR_REMOTE_ADDR, channel.remoteSocketAddress())
            .set(Grpc.TRANSPORT_ATTR_LOCAL_ADDR, channel.localSocketAddress())
            .set(Grpc.TRANSPORT_ATTR_SECURITY_LEVEL, SecurityLevel.PRIVACY_AND_INTEGRITY);
    if (channel.sslEngine() != null) {
      attrs.set(Grpc.TRANSPORT_ATTR_SSL_SESSION, channel.sslEngine().getSession());
    }
    attributes = attrs.build();
    channel.closeFuture().addListener(f -> connectionClosed());
    LocalControlStream.open(channel, options.maxInboundMetadataSize())
        .addListener(
            f -> {
              if (!f.isSuccess()) {
                close(Http3Errors.H3_CLOSED_CRITICAL_STREAM, "cannot open the control stream");
              }
            });
    if (shutdownStatus != null) {
      // Shut down while connecting: no call ever came.
      reportShutdown(shutdownStatus);
      close(Http3Errors.H3_NO_ERROR, "shutdown");
      return;
    }
    listener.transportReady();
  }

  /** The connection never came up. */
  private void failed(Status status) {
    closeStatus = status;
    if (shutdownStatus == null) {
      shutdownStatus = status;
    }
    reportShutdown(status);
    if (udp != null && udp.isOpen()) {
      udp.close().addListener(f -> terminated());
    } else {
      terminated();
    }
  }

  private void connectionClosed() {
    Status status = closeStatus;
    if (status == null) {
      status = Status.UNAVAILABLE.withDescription("HTTP/3 connection closed");
    }
    reportShutdown(status);
    // The streams hear of the close in their own channelInactive; end whatever is left after.
    Status ended = status;
    loop.execute(
        () -> {
          refuseWaitingCalls(ended);
          for (Http3ResponseStream call : new ArrayList<>(calls)) {
            call.connectionClosed(ended);
          }
          udp.close().addListener(f -> terminated());
        });
  }

  private void reportShutdown(Status status) {
    if (!shutdownReported) {
      shutdownReported = true;
      listener.transportShutdown(status);
    }
  }

  private void terminated() {
    if (!terminated) {
      terminated = true;
      listener.transportTerminated();
    }
  }

  private void close(long code, String reason) {
    QuicChannel channel = quic;
    if (channel != null && channel.isOpen()) {
      channel.close(true, (int) code, Unpooled.copiedBuffer(reason, StandardCharsets.UTF_8));
    }
  }

  // ---- calls

  @Override
  public ClientStream newStream(
      MethodDescriptor<?, ?> method, Metadata headers, CallOptions callOptions) {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(headers, "headers");
    Objects.requireNonNull(callOptions, "callOptions");
    if (!started) {
      throw new IllegalStateException("transport not started");
    }
    if (altUsed != null) {
      headers.discardAll(ALT_USED);
      headers.put(ALT_USED, altUsed); // the stream owns the headers
    }
    String callAuthority = callOptions.getAuthority();
    return new Http3ClientStream(
        this,
        paths.of(method),
        callAuthority == null || callAuthority.equals(authority)
            ? authorityAscii
            : new AsciiString(callAuthority),
        headers);
  }

  EventLoop eventLoop() {
    return loop;
  }

  AsciiString userAgent() {
    return userAgent;
  }

  int maxInboundMetadataSize() {
    return options.maxInboundMetadataSize();
  }

  /**
   * On the event loop: opens {@code call}'s stream; or, while QUIC allows no more streams (the
   * server's limit on concurrent calls), queues it until the server allows more; or refuses it if
   * the connection is going away.
   */
  void open(Http3ResponseStream call) {
    QuicChannel channel = quic;
    if (shutdownReported || channel == null || !channel.isActive()) {
      Status status = shutdownStatus;
      call.notStarted(
          Status.UNAVAILABLE.withDescription(
              "HTTP/3 transport is shut down" + (status == null ? "" : ": " + status)),
          RpcProgress.REFUSED);
      return;
    }
    if (calls.isEmpty()) {
      listener.transportInUse(true);
    }
    calls.add(call);
    if (!waitingForStream.isEmpty()
        || channel.peerAllowedStreams(QuicStreamType.BIDIRECTIONAL) <= 0) {
      waitingForStream.add(call);
      return;
    }
    createStream(channel, call);
  }

  /** Opens the streams of waiting calls while QUIC allows. */
  private void openWaitingCalls() {
    QuicChannel channel = quic;
    while (!waitingForStream.isEmpty()
        && channel.isActive()
        && channel.peerAllowedStreams(QuicStreamType.BIDIRECTIONAL) > 0) {
      createStream(channel, waitingForStream.poll());
    }
  }

  /** Ends the waiting calls, which never reached the server: the runtime may retry them. */
  private void refuseWaitingCalls(Status status) {
    while (!waitingForStream.isEmpty()) {
      waitingForStream.poll().notStarted(status, RpcProgress.REFUSED);
    }
  }

  private void createStream(QuicChannel channel, Http3ResponseStream call) {
    channel
        .createStream(QuicStreamType.BIDIRECTIONAL, call)
        .addListener(
            f -> {
              if (!f.isSuccess()) {
                // Nothing reached the server: the runtime may retry the call elsewhere.
                call.notStarted(
                    Status.UNAVAILABLE
                        .withDescription("cannot open an HTTP/3 stream: " + f.cause())
                        .withCause(f.cause()),
                    RpcProgress.REFUSED);
              }
            });
  }

  /** On the event loop: {@code call} has ended. */
  void closed(Http3ResponseStream call) {
    waitingForStream.remove(call); // cancelled while it waited
    if (calls.remove(call) && calls.isEmpty()) {
      listener.transportInUse(false);
      if (shutdownReported) {
        close(Http3Errors.H3_NO_ERROR, "shutdown");
      }
    }
  }

  /** Whether a stream the server's GOAWAY excluded: it was never processed. */
  boolean refusedByGoAway(long streamId) {
    return streamId >= goAwayId;
  }

  // ---- PeerStreamReader.Owner

  @Override
  public boolean peerControlStreamOpened() {
    if (peerControlStream) {
      return false;
    }
    peerControlStream = true;
    return true;
  }

  @Override
  public void connectionError(Http3Exception e) {
    closeStatus = Status.UNAVAILABLE.withDescription("HTTP/3 connection error: " + e.getMessage());
    close(e.code(), e.getMessage());
  }

  @Override
  public void goAway(long id) throws Http3Exception {
    if (id > goAwayId) {
      throw Http3Exception.connection(
          Http3Errors.H3_ID_ERROR, "GOAWAY with id " + id + " above the earlier " + goAwayId);
    }
    goAwayId = id;
    Status status = Status.UNAVAILABLE.withDescription("the server sent GOAWAY");
    if (shutdownStatus == null) {
      shutdownStatus = status;
    }
    reportShutdown(status);
    refuseWaitingCalls(
        Status.UNAVAILABLE.withDescription("the server sent GOAWAY before this call"));
    for (Http3ResponseStream call : new ArrayList<>(calls)) {
      call.goAway(id);
    }
    if (calls.isEmpty()) {
      close(Http3Errors.H3_NO_ERROR, "GOAWAY");
    }
  }

  @Override
  public boolean isClient() {
    return true;
  }

  // ---- the rest of the transport

  @Override
  public void ping(PingCallback callback, Executor executor) {
    Objects.requireNonNull(callback, "callback");
    Objects.requireNonNull(executor, "executor");
    // QUIC's own PINGs are the codec's; it offers no round-trip measurement to hand back.
    executor.execute(
        () ->
            callback.onFailure(
                Status.UNAVAILABLE.withDescription("pings are not supported over HTTP/3")));
  }

  @Override
  public Attributes getAttributes() {
    return attributes;
  }

  @Override
  public void shutdown(Status reason) {
    shutdown(reason, false);
  }

  @Override
  public void shutdownNow(Status reason) {
    shutdown(reason, true);
  }

  /**
   * No new calls; the connection closes once its calls have ended, or at once with {@code now},
   * which cancels them with {@code reason}.
   */
  private void shutdown(Status reason, boolean now) {
    Objects.requireNonNull(reason, "reason");
    if (shutdownStatus == null) {
      shutdownStatus = reason;
    }
    loop.execute(
        () -> {
          if (listener == null) {
            return;
          }
          reportShutdown(reason);
          if (handshaking) {
            udp.close(); // ends the handshake: no call has come, nothing to wait for
            return;
          }
          if (now) {
            closeStatus = reason;
            for (Http3ResponseStream call : new ArrayList<>(calls)) {
              call.cancel(reason);
            }
          }
          if (calls.isEmpty()) {
            close(Http3Errors.H3_NO_ERROR, "shutdown");
          }
        });
  }

  @Override
  public String toString() {
    return "Http3ClientConnection{" + address + "}";
  }
}
