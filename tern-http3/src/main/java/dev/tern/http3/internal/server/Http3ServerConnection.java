package dev.tern.http3.internal.server;

import dev.tern.Attributes;
import dev.tern.Grpc;
import dev.tern.SecurityLevel;
import dev.tern.Status;
import dev.tern.http3.internal.common.LocalControlStream;
import dev.tern.http3.internal.common.PeerStreamReader;
import dev.tern.http3.internal.frame.Http3Errors;
import dev.tern.http3.internal.frame.Http3Exception;
import dev.tern.http3.internal.frame.Http3Frames;
import dev.tern.netty.internal.io.ConnectionAgeLimits;
import dev.tern.netty.internal.io.ReadBatchHandOff;
import dev.tern.netty.internal.server.ServerOptions;
import dev.tern.netty.internal.server.UnreadResponseLimits;
import dev.tern.spi.HandOff;
import dev.tern.spi.ServerListener;
import dev.tern.spi.ServerTransport;
import dev.tern.spi.ServerTransportListener;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledExecutorService;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One QUIC connection serving HTTP/3: the runtime's {@link ServerTransport} for it. It reports the
 * connection when QUIC's handshake is done ({@code transportReady}, with the TLS session), opens
 * its control stream with SETTINGS (QPACK's dynamic table capacity 0, no blocked streams, the
 * server's metadata limit as SETTINGS_MAX_FIELD_SECTION_SIZE), reads the peer's unidirectional
 * streams ({@link PeerStreamReader}) and gives each request stream an {@link Http3RequestStream}. A
 * connection error (RFC 9114 section 8) closes the QUIC connection with its code.
 *
 * <p>Graceful shutdown sends GOAWAY naming the first request stream not served, refuses later ones
 * (H3_REQUEST_REJECTED, safe to retry) and closes the connection when the last call ends.
 *
 * <p>Event loop only (the QUIC channel's), but {@link #shutdown} and {@link #shutdownNow}, which
 * hop onto it.
 */
final class Http3ServerConnection extends ChannelInboundHandlerAdapter
    implements ServerTransport, PeerStreamReader.Owner {
  private static final Logger logger = Logger.getLogger(Http3ServerConnection.class.getName());

  private final QuicChannel channel;
  private final ServerOptions options;
  private final ServerListener serverListener;
  private final UnreadResponseLimits unreadLimits;
  private ServerTransportListener listener;
  private Attributes attributes = Attributes.EMPTY;
  private QuicStreamChannel controlStream;
  private int openCalls;

  /** The next client request stream id GOAWAY would name: one above the highest seen. */
  private long nextRequestStreamId;

  private boolean peerControlStream;
  private boolean shuttingDown;
  private Status closeStatus;
  private boolean terminated;
  private ConnectionAgeLimits ageLimits;

  /** The resets the client sends (Rapid Reset), and those it makes the server send. */
  private final ResetWindow clientResets;

  private final ResetWindow serverResets;

  /** Made when a first call's request is complete; the streams' event loop is the connection's. */
  private StopSendingProbe stopSendingProbe;

  /** The loop's hand-off to the executor, looked up at the first call (event loop). */
  private HandOff handOff;

  Http3ServerConnection(QuicChannel channel, ServerOptions options, ServerListener serverListener) {
    this.channel = channel;
    this.options = options;
    this.serverListener = serverListener;
    this.unreadLimits =
        new UnreadResponseLimits(
            options.maxQueuedOutboundBytesPerStream(),
            options.maxQueuedOutboundBytesPerConnection());
    this.clientResets = new ResetWindow(options.maxRstFramesPerWindow(), options.rstWindowNanos());
    this.serverResets = new ResetWindow(options.maxRstFramesPerWindow(), options.rstWindowNanos());
  }

  /** The bounds on responses queued for a client that does not read them; any thread. */
  UnreadResponseLimits unreadLimits() {
    return unreadLimits;
  }

  /**
   * Closes the connection, whose calls together queue more responses than its bound for a client
   * that does not read them, with H3_EXCESSIVE_LOAD; its calls end RESOURCE_EXHAUSTED.
   */
  void closeForUnreadResponses() {
    closeStatus = unreadLimits.connectionStatus();
    logger.log(
        Level.FINE,
        "HTTP/3 connection {0} cut off: {1}",
        new Object[] {channel, unreadLimits.connectionProblem()});
    close(Http3Errors.H3_EXCESSIVE_LOAD, unreadLimits.connectionProblem());
  }

  /** Where calls whose request is complete wait to be probed for the client's cancel. */
  StopSendingProbe stopSendingProbe() {
    if (stopSendingProbe == null) {
      stopSendingProbe = new StopSendingProbe(channel.eventLoop());
    }
    return stopSendingProbe;
  }

  /**
   * How the calls' callbacks reach the server's executor: after the loop's reads, as on HTTP/2.
   * Event loop; looked up once per connection (its loop never changes).
   */
  HandOff handOff() {
    if (handOff == null) {
      handOff = ReadBatchHandOff.of(channel.eventLoop());
    }
    return handOff;
  }

  ServerOptions options() {
    return options;
  }

  ServerTransportListener listener() {
    return listener;
  }

  Attributes attributes() {
    return attributes;
  }

  /**
   * The connection is reported as soon as its first Initial is accepted, before QUIC's handshake:
   * the runtime's handshake timeout ({@code ServerBuilder.handshakeTimeout}) then bounds the
   * handshake, and a server shutting down closes connections still in it. Its end is reported when
   * it closes, active or not.
   */
  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    listener = serverListener.transportCreated(this);
    channel.closeFuture().addListener(f -> channel.eventLoop().execute(this::terminated));
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    Attributes.Builder attrs =
        Attributes.newBuilder()
            .set(Grpc.TRANSPORT_ATTR_REMOTE_ADDR, channel.remoteSocketAddress())
            .set(Grpc.TRANSPORT_ATTR_LOCAL_ADDR, channel.localSocketAddress())
            .set(Grpc.TRANSPORT_ATTR_SECURITY_LEVEL, SecurityLevel.PRIVACY_AND_INTEGRITY);
    if (channel.sslEngine() != null) {
      attrs.set(Grpc.TRANSPORT_ATTR_SSL_SESSION, channel.sslEngine().getSession());
    }
    Attributes ready = attrs.build();
    Attributes returned = listener.transportReady(ready);
    attributes = returned != null ? returned : ready;
    if (options.maxConnectionIdleNanos() != Long.MAX_VALUE
        || options.maxConnectionAgeNanos() != Long.MAX_VALUE) {
      ageLimits =
          new ConnectionAgeLimits(
              ctx,
              options.maxConnectionIdleNanos(),
              options.maxConnectionAgeNanos(),
              options.maxConnectionAgeGraceNanos(),
              this::shutdown,
              this::shutdownNow);
      ageLimits.start();
    }
    LocalControlStream.open(channel, options.maxInboundMetadataSize())
        .addListener(
            f -> {
              if (!f.isSuccess()) {
                close(Http3Errors.H3_CLOSED_CRITICAL_STREAM, "cannot open the control stream");
                return;
              }
              controlStream = (QuicStreamChannel) f.getNow();
              if (shuttingDown) {
                sendGoAway();
              }
            });
    ctx.fireChannelActive();
  }

  /** A stream the peer opened (its initializer, on the event loop). */
  void streamOpened(QuicStreamChannel stream) {
    if (stream.type() == QuicStreamType.UNIDIRECTIONAL) {
      stream.pipeline().addLast(new PeerStreamReader(this)); // which reads once active
      return;
    }
    nextRequestStreamId = Math.max(nextRequestStreamId, stream.streamId() + 4);
    if (shuttingDown || listener == null) {
      stream.shutdown((int) Http3Errors.H3_REQUEST_REJECTED);
      stream.close();
      return;
    }
    if (openCalls++ == 0 && ageLimits != null) {
      ageLimits.onActive();
    }
    // The request's FIN then arrives as an event while the response can still be written.
    stream.config().setAllowHalfClosure(true);
    stream.pipeline().addLast(new Http3RequestStream(this, stream));
  }

  @Override
  public boolean peerControlStreamOpened() {
    if (peerControlStream) {
      return false;
    }
    peerControlStream = true;
    return true;
  }

  /** A client's GOAWAY asks nothing of a server that never pushes. */
  @Override
  public void goAway(long id) {}

  @Override
  public boolean isClient() {
    return false;
  }

  /** A request stream ended (on the event loop). */
  void streamClosed() {
    if (--openCalls == 0 && ageLimits != null) {
      ageLimits.onIdle();
    }
    if (shuttingDown && openCalls == 0) {
      close(Http3Errors.H3_NO_ERROR, "shutdown");
    }
  }

  /**
   * The client reset a request stream. Resets that are not {@code ordinary} (see {@link
   * Http3RequestStream}) count toward {@code maxRstFramesPerWindow}, as RST_STREAM frames do on
   * HTTP/2: past it the connection is closed with H3_EXCESSIVE_LOAD, so that opening and resetting
   * streams (which frees their QUIC stream slots at once) cannot make the server start calls
   * without bound.
   */
  void clientReset(boolean ordinary) {
    if (!ordinary && clientResets.countAndExceeded(System.nanoTime())) {
      connectionError(
          Http3Exception.connection(
              Http3Errors.H3_EXCESSIVE_LOAD, clientResets.exceeded("stream resets")));
    }
  }

  /**
   * The server reset a request stream for the client's error in it (a malformed request, one
   * without headers). These count toward {@code maxRstFramesPerWindow} apart from the client's own
   * resets, as the resets a client makes the server send do on HTTP/2 (MadeYouReset): past it the
   * connection is closed with H3_EXCESSIVE_LOAD, so that streams the server must reset cannot stand
   * in for the client's own resets.
   */
  void serverReset() {
    if (serverResets.countAndExceeded(System.nanoTime())) {
      connectionError(
          Http3Exception.connection(
              Http3Errors.H3_EXCESSIVE_LOAD,
              serverResets.exceeded("request streams reset for the client's errors")));
    }
  }

  @Override
  public void connectionError(Http3Exception e) {
    logger.log(Level.FINE, "HTTP/3 connection error from {0}: {1}", new Object[] {channel, e});
    closeStatus = Status.UNAVAILABLE.withDescription("HTTP/3 connection error: " + e.getMessage());
    close(e.code(), e.getMessage());
  }

  /** The failure calls end with when the connection goes under them. */
  Status closeStatus() {
    return closeStatus != null
        ? closeStatus
        : Status.UNAVAILABLE.withDescription("HTTP/3 connection closed");
  }

  private void close(long code, String reason) {
    if (channel.isOpen()) {
      channel.close(true, (int) code, Unpooled.copiedBuffer(reason, StandardCharsets.UTF_8));
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    // The streams hear of the close in their own channelInactive, queued behind this; the
    // transport's end is reported after them.
    if (ageLimits != null) {
      ageLimits.stop();
    }
    if (stopSendingProbe != null) {
      stopSendingProbe.stop();
    }
    ctx.channel().eventLoop().execute(this::terminated);
    ctx.fireChannelInactive();
  }

  private void terminated() {
    if (!terminated && listener != null) {
      terminated = true;
      listener.transportTerminated();
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    logger.log(Level.FINE, "HTTP/3 connection failed", cause);
    close(Http3Errors.H3_INTERNAL_ERROR, "internal error");
  }

  @Override
  public void shutdown() {
    channel
        .eventLoop()
        .execute(
            () -> {
              if (shuttingDown) {
                return;
              }
              shuttingDown = true;
              sendGoAway();
              if (openCalls == 0) {
                close(Http3Errors.H3_NO_ERROR, "shutdown");
              }
            });
  }

  private void sendGoAway() {
    if (controlStream == null || !controlStream.isActive()) {
      return;
    }
    ByteBuf out = controlStream.alloc().buffer();
    Http3Frames.writeGoAway(out, nextRequestStreamId);
    controlStream.writeAndFlush(out);
  }

  @Override
  public void shutdownNow(Status reason) {
    channel
        .eventLoop()
        .execute(
            () -> {
              closeStatus = reason;
              close(Http3Errors.H3_NO_ERROR, "server stopped");
            });
  }

  @Override
  public ScheduledExecutorService getScheduledExecutorService() {
    return channel.eventLoop();
  }

  @Override
  public String toString() {
    return "Http3ServerConnection{" + channel.remoteSocketAddress() + "}";
  }
}
