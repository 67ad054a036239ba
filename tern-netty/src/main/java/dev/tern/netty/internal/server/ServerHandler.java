package dev.tern.netty.internal.server;

import dev.tern.Attributes;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.netty.internal.codec.ConnectionAgeLimits;
import dev.tern.netty.internal.codec.GrpcHttp2ConnectionHandler;
import dev.tern.netty.internal.codec.GrpcRequestHeaders;
import dev.tern.netty.internal.codec.GrpcWire;
import dev.tern.netty.internal.codec.KeepAlivePinger;
import dev.tern.netty.internal.codec.NettyWritableBufferAllocator;
import dev.tern.netty.internal.codec.NetworkFailures;
import dev.tern.netty.internal.codec.TlsAttributes;
import dev.tern.netty.internal.codec.UnqueuedDataWriter;
import dev.tern.netty.internal.codec.WriteQueue;
import dev.tern.netty.internal.exchange.Http2Exchanges;
import dev.tern.netty.internal.io.SocketNode;
import dev.tern.spi.ServerTransportListener;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The server end of one HTTP/2 connection: validates each request (RST_STREAM PROTOCOL_ERROR for a
 * missing or empty {@code :method}, {@code :scheme} or {@code :path}; 405 for a method other than
 * POST, 415 for a content-type that is not gRPC, both with a short text body; 404 for a path that
 * is not {@code /service/method}, 431 for headers over the limit; each with a {@code grpc-status}),
 * hands calls to the runtime, writes responses, pings a silent client ({@link ServerKeepAlive}),
 * and shuts down gracefully with the double GOAWAY of {@link ServerShutdown}.
 *
 * <p>Bounds what a client that does not read its responses makes the server hold ({@link
 * UnreadResponseLimits}): streams over the bound are reset, a connection over it is closed.
 *
 * <p>Event loop only: all state is confined to the channel's event loop; other threads reach it
 * through the connection's {@link WriteQueue}. The exceptions, callable from any thread, are the
 * accessors of immutable state, {@link #execute}, {@link #executeWithNext}, {@link
 * #markShutdownRequested} and {@link #unreadResponseLimits}.
 */
final class ServerHandler extends GrpcHttp2ConnectionHandler
    implements Http2ServerConnection, StreamHost {
  private static final Logger logger = Logger.getLogger(ServerHandler.class.getName());

  private final NettyServerTransport transport;
  private final ServerOptions options;
  private final IntObjectMap<ServerStreamState> streams = new IntObjectHashMap<>();

  /** Requests served by a protocol other than gRPC, kept apart from the calls. */
  private final Http2Exchanges exchanges;

  private ServerTransportListener transportListener;
  private Attributes streamAttributes = Attributes.EMPTY;
  private boolean ready;
  private final KeepAliveEnforcer keepAliveEnforcer;

  /** Keepalive PINGs ({@link ServerKeepAlive}) once ready; null before that or when disabled. */
  private KeepAlivePinger keepAlive;

  private ConnectionAgeLimits connectionLimits;

  /** Client stream ids only grow: a HEADERS frame at or below this is not a new request. */
  private int lastRequestStreamId;

  /** RST_STREAM frames the client sent (rapid reset). */
  private final ResetRateLimit resetsReceived;

  /** Calls the client reset behind later ones, running until their handlers are done. */
  private final ResetCallSlots resetCalls;

  /** RST_STREAM frames this side sent for the client's stream errors (MadeYouReset). */
  private final ResetRateLimit resetsProvoked;

  /**
   * Why the connection died, if it failed (an I/O error, or a client cut off for not reading its
   * responses): the status of the calls left then.
   */
  private Status connectionFailure;

  private final UnreadResponseLimits unreadResponseLimits;

  /** The double-GOAWAY shutdown; see {@link ServerShutdown}. */
  private final ServerShutdown shutdown;

  static ServerHandler create(NettyServerTransport transport, ServerOptions options) {
    Http2Settings settings = new Http2Settings();
    settings.maxHeaderListSize(options.maxInboundMetadataSize());
    if (options.maxConcurrentCallsPerConnection() != Integer.MAX_VALUE) {
      settings.maxConcurrentStreams(options.maxConcurrentCallsPerConnection());
    }
    Parts parts =
        Parts.create(
            true,
            options.flowControlWindow(),
            options.maxInboundMetadataSize(),
            settings,
            options.maxQueuedControlFrames(),
            options.maxContinuationFrames());
    return new ServerHandler(parts, transport, options);
  }

  private ServerHandler(Parts parts, NettyServerTransport transport, ServerOptions options) {
    super(parts, options.flowControlWindow());
    this.transport = transport;
    this.options = options;
    this.exchanges = new Http2Exchanges(this, transport, this::exchangesChanged);
    this.resetsReceived =
        new ResetRateLimit(options.maxRstFramesPerWindow(), options.rstWindowNanos());
    this.resetsProvoked =
        new ResetRateLimit(options.maxRstFramesPerWindow(), options.rstWindowNanos());
    this.resetCalls = new ResetCallSlots(options.maxConcurrentCallsPerConnection());
    this.unreadResponseLimits =
        new UnreadResponseLimits(
            options.maxQueuedOutboundBytesPerStream(),
            options.maxQueuedOutboundBytesPerConnection());
    this.shutdown = new ServerShutdown(this, options.gracePeriodNanos());
    this.keepAliveEnforcer =
        new KeepAliveEnforcer(
            options.permitKeepAliveTimeNanos(), options.permitKeepAliveWithoutCalls());
    // Every HEADERS or DATA frame that leaves (a large message leaves as many, over time) is
    // activity after which a client's keepalive pings are expected again.
    parts.frameWriter.setListener(keepAliveEnforcer::onDataSent);
    decoder().frameListener(new FrameListener());
    connection().addListener(new ConnectionListener());
  }

  @Override
  public void setTransportListener(ServerTransportListener listener) {
    this.transportListener = listener;
  }

  @Override
  public void execute(Runnable command) {
    transport.execute(command);
  }

  /** Runs {@code command} on the event loop with the next command that is executed. */
  @Override
  public void executeWithNext(Runnable command) {
    transport.executeWithNext(command);
  }

  @Override
  public NettyWritableBufferAllocator bufferAllocator() {
    return options.bufferAllocator();
  }

  /** The bounds on responses the client does not read, for the connection's streams. */
  @Override
  public UnreadResponseLimits unreadResponseLimits() {
    return unreadResponseLimits;
  }

  /**
   * The client does not read the responses queued on the connection: GOAWAY(ENHANCE_YOUR_CALM) and
   * close, without waiting for the GOAWAY to be written (the client may not read it either).
   * Closing releases every queued frame; the calls left end RESOURCE_EXHAUSTED.
   */
  @Override
  public void closeForUnreadResponses() {
    assert inEventLoop();
    if (!ctx().channel().isOpen()) {
      return;
    }
    if (connectionFailure == null) {
      connectionFailure = unreadResponseLimits.connectionStatus();
    }
    Http2Exception tooMuch = unreadResponseLimits.connectionError();
    unreadResponseLimits.logOnce(ctx(), tooMuch);
    onError(ctx(), true, tooMuch);
    ctx().flush();
    ctx().close();
  }

  /**
   * Resets the stream of {@code state} with ENHANCE_YOUR_CALM because its client does not read its
   * responses: the reset drops the DATA waiting for the client's window.
   */
  @Override
  public void resetForUnreadResponses(ServerStreamState state) {
    assert inEventLoop();
    unreadResponseLimits.logOnce(ctx(), unreadResponseLimits.streamError(state.id()));
    resetStream(ctx(), state.id(), Http2Error.ENHANCE_YOUR_CALM.code(), ctx().newPromise());
  }

  /** The connection's channelz counters (touched on the event loop). */
  @Override
  public SocketNode socketNode() {
    return transport.socketNode();
  }

  // ---------------------------------------------------------------- writes for the streams

  @Override
  public void writeHeaders(ServerStreamState state, Http2Headers headers, boolean endStream) {
    assert inEventLoop();
    encoder().writeHeaders(ctx(), state.id(), headers, 0, endStream, ctx().newPromise());
  }

  @Override
  public void writeData(ServerStreamState state, ByteBuf data, int bytes) {
    assert inEventLoop();
    ChannelPromise promise = ctx().newPromise();
    NettyServerStream stream = state.stream();
    promise.addListener(f -> stream.onSentBytes(bytes));
    if (!UnqueuedDataWriter.tryWrite(ctx(), encoder(), state.id(), data, promise)) {
      encoder().writeData(ctx(), state.id(), data, 0, false, promise);
    }
  }

  @Override
  public void writeTrailers(ServerStreamState state, Http2Headers trailers, boolean aborting) {
    assert inEventLoop();
    ChannelPromise promise = ctx().newPromise();
    if (!aborting) {
      promise.addListener((ChannelFuture f) -> state.onTrailersWritten(f.isSuccess(), f.cause()));
    }
    encoder().writeHeaders(ctx(), state.id(), trailers, 0, true, promise);
  }

  /**
   * Resets the stream of {@code state}, unless it is already closed, right after its trailers were
   * written: with NO_ERROR if they went out, as the response is complete and the reset only asks
   * the client to stop sending (RFC 9113 section 8.1); with CANCEL if they still wait behind
   * flow-controlled DATA, as the reset discards them and the client gets no status.
   */
  @Override
  public void resetStreamAfterTrailers(ServerStreamState state) {
    Http2Stream stream = connection().stream(state.id());
    if (stream == null || stream.state() == Http2Stream.State.CLOSED) {
      return;
    }
    Http2Error error =
        encoder().flowController().hasFlowControlled(stream)
            ? Http2Error.CANCEL
            : Http2Error.NO_ERROR;
    resetStream(ctx(), state.id(), error.code(), ctx().newPromise());
  }

  /** The call of {@code state} ended; forget it. */
  @Override
  public void streamClosed(ServerStreamState state) {
    if (streams.remove(state.id()) != null && streams.isEmpty() && connectionLimits != null) {
      if (exchanges.isEmpty()) {
        connectionLimits.onIdle();
      }
    }
  }

  /**
   * A request served by another protocol started or ended: it counts as a call for the idle limit.
   */
  private void exchangesChanged() {
    if (connectionLimits != null) {
      if (exchanges.isEmpty() && streams.isEmpty()) {
        connectionLimits.onIdle();
      } else {
        connectionLimits.onActive();
      }
    }
  }

  // ---------------------------------------------------------------- lifecycle

  /**
   * Called on any thread when the runtime asks for shutdown: requests read after it are refused
   * rather than served, so "no new calls after shutdown()" holds without waiting for the event loop
   * to write the GOAWAY.
   */
  @Override
  public void markShutdownRequested() {
    shutdown.request();
  }

  /** Whether the runtime asked for shutdown (any thread). */
  @Override
  public boolean isShutdownRequested() {
    return shutdown.refusesNewStreams();
  }

  /** Starts the double-GOAWAY graceful shutdown. */
  @Override
  public void gracefulShutdown() {
    assert inEventLoop();
    shutdown.start();
  }

  /** The highest client stream id taken as a request, which the final GOAWAY names. */
  int lastRequestStreamId() {
    return lastRequestStreamId;
  }

  /** Fails every call with {@code status} and closes the connection. */
  @Override
  public void shutdownNow(Status status) {
    assert inEventLoop();
    for (ServerStreamState state : new ArrayList<>(streams.values())) {
      state.abort(status);
    }
    exchanges.abortAll(status);
    shutdown.now();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    noteWriteFailure(ctx);
    try {
      super.channelInactive(ctx);
    } finally {
      Status status =
          connectionFailure != null
              ? connectionFailure
              : Status.UNAVAILABLE.withDescription("connection closed");
      List<ServerStreamState> left = new ArrayList<>(streams.values());
      for (ServerStreamState state : left) {
        state.onReset(status);
      }
      streams.clear();
      exchanges.abortAll(status);
      shutdown.cancelTimer();
      if (keepAlive != null) {
        keepAlive.stop();
      }
      if (connectionLimits != null) {
        connectionLimits.stop();
      }
      transport.terminated();
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    if (keepAlive != null) {
      keepAlive.onRead();
    }
    super.channelRead(ctx, msg);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof SslHandshakeCompletionEvent) {
      SslHandshakeCompletionEvent handshake = (SslHandshakeCompletionEvent) evt;
      if (!handshake.isSuccess()) {
        NetworkFailures.log(ctx, "TLS handshake failed", handshake.cause());
      } else {
        String problem = TlsAttributes.alpnProblem(ctx.channel());
        if (problem != null) {
          logger.log(Level.FINE, problem);
          ctx.close();
        }
      }
    }
    super.userEventTriggered(ctx, evt);
  }

  @Override
  protected void handleServerHeaderDecodeSizeError(ChannelHandlerContext ctx, Http2Stream stream) {
    Status status =
        Status.RESOURCE_EXHAUSTED.withDescription(
            "Request header metadata larger than " + options.maxInboundMetadataSize() + " bytes");
    HttpErrorResponses.write(encoder(), ctx, stream.id(), 431, status);
  }

  /**
   * Bounds the work a peer can cause by opening and at once resetting streams (the "rapid reset"
   * attack, CVE-2023-44487): more than the allowed RST_STREAM frames in one window ends the
   * connection with GOAWAY(ENHANCE_YOUR_CALM). Resets of streams the server already sent a response
   * message on, or that come late in the call's deadline, do not count, nor those of calls queued
   * behind later ones while {@link ResetCallSlots} has room (see onRstStreamRead).
   */
  private void countReset() throws Http2Exception {
    if (resetsReceived.overLimit(System.nanoTime())) {
      throw Http2Exception.connectionError(
          Http2Error.ENHANCE_YOUR_CALM,
          "Too many RST_STREAM frames: more than %d in %d ms",
          options.maxRstFramesPerWindow(),
          TimeUnit.NANOSECONDS.toMillis(options.rstWindowNanos()));
    }
  }

  /**
   * Bounds the work a peer can cause by making this side reset its streams ("MadeYouReset",
   * CVE-2025-8671: a WINDOW_UPDATE of 0, a window overflow, a frame on a closed stream, a malformed
   * request): the same limit as {@link #countReset}, counted apart, ends the connection with
   * GOAWAY(ENHANCE_YOUR_CALM). Resets for this side's own reasons (a deadline, a cancelled call)
   * are not counted.
   */
  private void countProvokedReset(ChannelHandlerContext ctx) {
    if (resetsProvoked.overLimit(System.nanoTime())) {
      onError(
          ctx,
          false,
          Http2Exception.connectionError(
              Http2Error.ENHANCE_YOUR_CALM,
              "Too many streams reset for the client's errors: more than %d in %d ms",
              options.maxRstFramesPerWindow(),
              TimeUnit.NANOSECONDS.toMillis(options.rstWindowNanos())));
    }
  }

  /**
   * A connection error the client caused (what it sent broke the rules or a limit) lingers on
   * close, so the client can read the GOAWAY that says why while it is still sending; what it sent
   * after the error is dropped undecoded.
   */
  @Override
  protected void onConnectionError(
      ChannelHandlerContext ctx, boolean outbound, Throwable cause, Http2Exception http2Ex) {
    if (!outbound) {
      LingeringClose.arm(ctx.channel());
      // Nothing the client sent after the error is decoded (closing at once used to ensure that).
      ByteBuf unread = internalBuffer();
      unread.skipBytes(unread.readableBytes());
    }
    super.onConnectionError(ctx, outbound, cause, http2Ex);
  }

  @Override
  protected void onStreamError(
      ChannelHandlerContext ctx,
      boolean outbound,
      Throwable cause,
      Http2Exception.StreamException http2Ex) {
    // Inbound: the client's frame broke the stream's rules, and the answer is a RST_STREAM.
    boolean provoked = !outbound && !isLateFrameOnResetStream(outbound, http2Ex);
    super.onStreamError(ctx, outbound, cause, http2Ex);
    if (provoked) {
      countProvokedReset(ctx);
    }
  }

  @Override
  protected void onNetworkFailure(ChannelHandlerContext ctx, IOException failure) {
    if (connectionFailure == null) {
      connectionFailure = NetworkFailures.status(failure);
    }
  }

  // ---------------------------------------------------------------- requests

  private void onNewStream(int streamId, GrpcRequestHeaders headers, boolean endOfStream) {
    if (shutdown.refusesNewStreams()) {
      // No new calls after shutdown(), even before its GOAWAY went out. Then the GOAWAY goes out
      // first: a client reads it before the refusal, so it retries the call (REFUSED_STREAM is
      // safe to retry) on another connection instead of this one, which would refuse it again.
      if (shutdown.notStarted()) {
        gracefulShutdown();
      }
      resetStream(ctx(), streamId, Http2Error.REFUSED_STREAM.code(), ctx().newPromise());
      return;
    }
    CharSequence method = headers.method();
    CharSequence path = headers.path();
    if (isEmpty(method) || isEmpty(path) || isEmpty(headers.scheme())) {
      // Malformed (RFC 9113, section 8.3.1): a stream error, not an HTTP response.
      resetStream(ctx(), streamId, Http2Error.PROTOCOL_ERROR.code(), ctx().newPromise());
      countProvokedReset(ctx());
      return;
    }
    boolean post = HttpMethod.POST.asciiName().contentEquals(method);
    CharSequence contentType = headers.contentType();
    if (!post || !GrpcWire.isServedGrpcContentType(contentType)) {
      if (exchanges.serve(streamId, headers, endOfStream, streamAttributes)) {
        return;
      }
      if (!post) {
        respondToNonGrpcRequest(
            streamId,
            405,
            Status.INTERNAL.withDescription("Method '" + method + "' is not supported"));
      } else {
        respondToNonGrpcRequest(
            streamId,
            415,
            Status.INTERNAL.withDescription("Content-Type '" + contentType + "' is not supported"));
      }
      return;
    }
    if (path.length() < 2 || path.charAt(0) != '/') {
      respondWithHttpError(
          streamId,
          404,
          Status.UNIMPLEMENTED.withDescription("Expected path to start with /: " + path));
      return;
    }
    String invalid = headers.invalidBinaryHeader();
    if (invalid != null) {
      respondWithHttpError(streamId, 400, Status.INTERNAL.withDescription(invalid));
      return;
    }
    Metadata metadata = headers.toMetadata();
    String fullMethodName = options.methodNames().of(path);
    CharSequence authority = headers.authority();
    ServerStreamState state =
        new ServerStreamState(this, streamId, options.maxInboundMessageSize());
    NettyServerStream stream =
        new NettyServerStream(
            this, state, authority == null ? null : authority.toString(), streamAttributes);
    state.setStream(stream);
    if (streams.isEmpty() && connectionLimits != null) {
      connectionLimits.onActive();
    }
    streams.put(streamId, state);
    transport.socketNode().streamStarted(false);
    try {
      transportListener.streamCreated(stream, fullMethodName, metadata);
    } catch (RuntimeException e) {
      logger.log(Level.SEVERE, "streamCreated threw for " + fullMethodName, e);
    }
    if (!state.hasListener()) {
      state.abort(Status.INTERNAL.withDescription("server did not accept the stream"));
      return;
    }
    if (endOfStream) {
      state.onEndOfStream();
    }
  }

  private static boolean isEmpty(CharSequence pseudoHeader) {
    return pseudoHeader == null || pseudoHeader.length() == 0;
  }

  private void respondToNonGrpcRequest(int streamId, int httpStatus, Status status) {
    HttpErrorResponses.writeWithBody(encoder(), ctx(), streamId, httpStatus, status);
  }

  private void respondWithHttpError(int streamId, int httpStatus, Status status) {
    HttpErrorResponses.write(encoder(), ctx(), streamId, httpStatus, status);
  }

  /** Inbound frames, from Netty's decoder. */
  private final class FrameListener extends Http2FrameAdapter {
    @Override
    public void onHeadersRead(
        ChannelHandlerContext ctx,
        int streamId,
        Http2Headers headers,
        int padding,
        boolean endOfStream) {
      ServerStreamState state = streams.get(streamId);
      if (state != null) {
        // Trailers from a client: gRPC has none, but the END_STREAM still half-closes.
        if (endOfStream) {
          state.onEndOfStream();
        } else {
          state.abort(Status.INTERNAL.withDescription("Received unexpected HEADERS mid-stream"));
        }
        return;
      }
      if (exchanges.onTrailers(streamId, endOfStream)) {
        return;
      }
      if (streamId <= lastRequestStreamId) {
        return; // trailers of a call that is already over
      }
      lastRequestStreamId = streamId;
      onNewStream(streamId, (GrpcRequestHeaders) headers, endOfStream);
    }

    @Override
    public void onHeadersRead(
        ChannelHandlerContext ctx,
        int streamId,
        Http2Headers headers,
        int streamDependency,
        short weight,
        boolean exclusive,
        int padding,
        boolean endOfStream) {
      onHeadersRead(ctx, streamId, headers, padding, endOfStream);
    }

    @Override
    public int onDataRead(
        ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
      ServerStreamState state = streams.get(streamId);
      if (state == null || state.isClosed()) {
        if (state == null && exchanges.onData(streamId, data, endOfStream)) {
          return padding; // its bytes come back to the window as its protocol consumes them
        }
        return data.readableBytes() + padding;
      }
      state.onData(data.retain(), endOfStream);
      return padding;
    }

    @Override
    public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode)
        throws Http2Exception {
      ServerStreamState state = streams.get(streamId);
      // A reset after a response message cancels a call the client had an answer on (a
      // server stream it has read enough of), and one late in the call's deadline is that
      // deadline expiring: ordinary traffic, paced by the server's answers or the deadline.
      // Only resets of streams that got no message early in their time are what a rapid reset
      // is made of. A stream with no call and no exchange left was answered already (a call
      // refused or shed at once, whose client reset it before reading the answer): its reset
      // cancels no work.
      // A reset of an older stream than the newest is a call queued behind later ones, whose
      // deadline passed on a busy server: it holds a slot instead of counting (ResetCallSlots).
      if (state != null
          ? !state.resetIsOrdinary() && !resetCalls.hold(state, streamId, lastRequestStreamId)
          : exchanges.isOpen(streamId)) {
        countReset();
      }
      exchanges.onReset(streamId, errorCode);
      if (state != null) {
        state.onReset(
            Status.CANCELLED.withDescription(
                "client cancelled (RST_STREAM " + GrpcWire.errorName(errorCode) + ")"));
      }
    }

    @Override
    public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) {
      if (!ready) {
        ready = true;
        Attributes attrs = transport.readyAttributes();
        Attributes returned = transportListener.transportReady(attrs);
        streamAttributes = returned != null ? returned : attrs;
        if (options.maxConnectionIdleNanos() != Long.MAX_VALUE
            || options.maxConnectionAgeNanos() != Long.MAX_VALUE) {
          // Only a connection with a limit holds its clocks (most servers set none).
          connectionLimits =
              new ConnectionAgeLimits(
                  ctx,
                  options.maxConnectionIdleNanos(),
                  options.maxConnectionAgeNanos(),
                  options.maxConnectionAgeGraceNanos(),
                  ServerHandler.this::gracefulShutdown,
                  ServerHandler.this::shutdownNow);
          connectionLimits.start();
        }
        keepAlive =
            ServerKeepAlive.start(
                ctx, encoder(), options, transport.socketNode(), ServerHandler.this::shutdownNow);
      }
    }

    @Override
    public void onPingRead(ChannelHandlerContext ctx, long data) throws Http2Exception {
      if (!keepAliveEnforcer.pingAcceptable(!streams.isEmpty())) {
        // The message becomes the GOAWAY's debug data, which gRPC clients look for.
        throw Http2Exception.connectionError(Http2Error.ENHANCE_YOUR_CALM, "too_many_pings");
      }
    }

    @Override
    public void onPingAckRead(ChannelHandlerContext ctx, long data) {
      shutdown.onPingAck(data);
    }
  }

  /** Stream life from Netty's connection model. */
  private final class ConnectionListener extends Http2ConnectionAdapter {
    @Override
    public void onStreamClosed(Http2Stream stream) {
      exchanges.onStreamClosed(stream.id(), connectionFailure);
      ServerStreamState state = streams.get(stream.id());
      if (state != null) {
        // Netty closes the streams left when the connection dies: say why, if it was an error.
        state.onReset(
            connectionFailure != null
                ? connectionFailure
                : Status.CANCELLED.withDescription("stream closed before the call ended"));
      }
      shutdown.onStreamClosed();
    }
  }
}
