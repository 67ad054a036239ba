package dev.tern.netty.internal.server;

import static dev.tern.netty.internal.http2.Http2FrameException.ENHANCE_YOUR_CALM;
import static dev.tern.netty.internal.http2.Http2FrameException.NO_ERROR;
import static dev.tern.netty.internal.http2.Http2FrameException.PROTOCOL_ERROR;
import static dev.tern.netty.internal.http2.Http2FrameException.REFUSED_STREAM;

import dev.tern.Attributes;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.netty.internal.buffer.NettyWritableBufferAllocator;
import dev.tern.netty.internal.grpc.GrpcFields;
import dev.tern.netty.internal.grpc.GrpcWire;
import dev.tern.netty.internal.http2.HeaderSink;
import dev.tern.netty.internal.http2.Http2Connection;
import dev.tern.netty.internal.http2.Http2ConnectionListener;
import dev.tern.netty.internal.http2.Http2FrameException;
import dev.tern.netty.internal.http2.Http2Settings;
import dev.tern.netty.internal.http2.Http2Stream;
import dev.tern.netty.internal.io.ConnectionAgeLimits;
import dev.tern.netty.internal.io.KeepAlivePinger;
import dev.tern.netty.internal.io.NetworkFailures;
import dev.tern.netty.internal.io.ReadBatchHandOff;
import dev.tern.netty.internal.io.SocketNode;
import dev.tern.netty.internal.io.TlsAttributes;
import dev.tern.spi.HandOff;
import dev.tern.spi.ServerTransportListener;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The server end of one HTTP/2 connection, on Tern's HTTP/2 engine ({@link Http2Connection}). Each
 * read goes to the engine with the flush's one output buffer ({@link ServerWrites}); the calls'
 * halves ({@link NettyServerStream}, {@link ServerStreamState}) reach the connection through this
 * handler's package-private methods.
 *
 * <p>Requests: each header block is decoded straight into {@link RequestHeaders}, which checks RFC
 * 9113 section 8 (a malformed request is reset with PROTOCOL_ERROR and counts toward the engine's
 * reset limit, like the "MadeYouReset" errors the engine finds itself). Then: a request that is not
 * gRPC goes to the server's other protocols (gRPC-Web, Connect: {@link ExchangeOutput}), or gets
 * 405 or 415 with a short text body; 404 for a bad path, 400 for bad base64 in a {@code -bin}
 * field, 431 for headers over the limit, REFUSED_STREAM once shutdown was asked for. A {@code
 * content-length} the body does not match resets the stream.
 *
 * <p>The connection: graceful shutdown is the engine's double GOAWAY, with the grace period's timer
 * here; too frequent client PINGs end it with GOAWAY(ENHANCE_YOUR_CALM, "too_many_pings") ({@link
 * KeepAliveEnforcer}); the idle and age limits are {@link ConnectionAgeLimits}'; the server's own
 * keepalive PINGs are {@link ServerKeepAlive}'s; reading stops while the channel is not writable,
 * so a client that does not read cannot pile up this side's answers. Flood, reset-rate and queue
 * limits are the engine's ({@code Http2Limits}, {@code Http2FloodGuard}).
 *
 * <p>Event loop only: all state is confined to the channel's event loop; other threads reach it
 * through the connection's write queue. The exceptions, callable from any thread, are {@link
 * #execute}, {@link #executeWithNext}, {@link #markShutdownRequested}, {@link
 * #isShutdownRequested}, {@link #bufferAllocator}, {@link #unreadResponseLimits} and {@link
 * #inEventLoop}.
 */
final class ServerHandler extends ChannelDuplexHandler
    implements Http2ConnectionListener, KeepAlivePinger.Connection {
  private static final Logger logger = Logger.getLogger(ServerHandler.class.getName());

  private final NettyServerTransport transport;
  private final ServerOptions options;
  private final Http2Connection connection;
  private final ServerWrites writes;

  /** The requests the server's other protocols serve (gRPC-Web, Connect); null if it has none. */
  private final ExchangeOutput exchanges;

  /**
   * The calls that have not ended. A frame finds its call in its stream's slot ({@link
   * Http2Stream#attachment}), which holds the call's {@link ConnectionCall}, an exchange's {@link
   * ExchangeOutput.ExchangeStream}, the {@link DeclaredLength} of a request answered without
   * either, or nothing.
   */
  private final ConnectionCalls calls = new ConnectionCalls();

  private final KeepAliveEnforcer keepAliveEnforcer;
  private final UnreadResponseLimits unreadResponseLimits;

  /** Keepalive PINGs ({@link ServerKeepAlive}) once ready; null before that or when disabled. */
  private KeepAlivePinger keepAlive;

  private ChannelHandlerContext ctx;

  /** The loop's hand-off to the server's executor, once a call asked for it (event loop). */
  private HandOff handOff;

  private ServerTransportListener transportListener;
  private Attributes streamAttributes = Attributes.EMPTY;
  private ConnectionAgeLimits connectionLimits;
  private ScheduledFuture<?> graceTimer;
  private ScheduledFuture<?> settingsAckTimer;
  private volatile boolean shutdownRequested;
  private boolean shutdownStarted;

  /** shutdownNow: the connection closes at once, without waiting for the client to finish. */
  private boolean closingNow;

  private boolean ready;

  /** The header block being decoded. */
  private RequestHeaders headers;

  /** The newest stream the client opened (the engine checks that ids grow). */
  private int lastRequestStreamId;

  /**
   * Calls the client reset behind later ones, running until their handlers are done; made at the
   * first reset of a call.
   */
  private ResetCallSlots resetCalls;

  /** Why the connection failed (the status of the calls left), or null. */
  private Status connectionFailure;

  /**
   * False when the client's first bytes follow at once ({@link #prefaceFollows}): this side's
   * SETTINGS then leave with the first read's answers (its SETTINGS ACK) in one write.
   */
  private boolean flushAtStart = true;

  ServerHandler(NettyServerTransport transport, ServerOptions options) {
    this.transport = transport;
    this.options = options;
    this.connection = new Http2Connection(true, options.engineLimits(), this, System::nanoTime);
    this.keepAliveEnforcer =
        new KeepAliveEnforcer(
            options.permitKeepAliveTimeNanos(), options.permitKeepAliveWithoutCalls());
    // Response DATA leaving (a large message leaves over many flushes, as the client's credit
    // comes) is activity after which the client's keepalive pings are welcome again.
    this.writes = new ServerWrites(connection, keepAliveEnforcer::onDataSent, this::networkFailure);
    connection.setDataSplicer(writes::splice);
    this.exchanges =
        options.httpProtocols().list().isEmpty()
            ? null
            : new ExchangeOutput(
                connection, writes, transport, this::exchangesChanged, this::flushNow);
    this.unreadResponseLimits =
        new UnreadResponseLimits(
            options.maxQueuedOutboundBytesPerStream(),
            options.maxQueuedOutboundBytesPerConnection());
  }

  /**
   * Called before this handler is added from within a read whose bytes it gets next (the plaintext
   * protocol detector passes on the client's preface, then ends the read): the flush at that read's
   * end sends this side's SETTINGS, so they need no write of their own. Event loop.
   */
  void prefaceFollows() {
    flushAtStart = false;
  }

  /** Before the channel is registered. */
  void setTransportListener(ServerTransportListener listener) {
    this.transportListener = listener;
  }

  /** The connection's windows for channelz: what this side may send, what the peer may send. */
  long[] flowControlWindows() {
    return connection.connectionWindows();
  }

  // ---------------------------------------------------------------- channel events

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    writes.attach(ctx);
    if (exchanges != null) {
      exchanges.attach(ctx);
    }
    connection.start(writes.out());
    if (flushAtStart) {
      writes.flush(false);
    }
    settingsAckTimer =
        ctx.executor()
            .schedule(
                this::settingsAckTimedOut, options.settingsAckTimeoutNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * The client has not acknowledged this side's SETTINGS in time: GOAWAY(SETTINGS_TIMEOUT) (RFC
   * 9113 section 6.5.3), and the connection ends as at any connection error.
   */
  private void settingsAckTimedOut() {
    settingsAckTimer = null;
    if (connection.awaitingSettingsAck()) {
      connection.settingsAckTimedOut(writes.out());
      flushNow();
    }
  }

  @Override
  public void onSettingsAck() {
    if (settingsAckTimer != null && !connection.awaitingSettingsAck()) {
      settingsAckTimer.cancel(false);
      settingsAckTimer = null;
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf in)) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (keepAlive != null) {
      keepAlive.onRead();
    }
    writes.read(in);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    flushNow();
    ctx.fireChannelReadComplete();
  }

  /** The write queue's drain ends with a flush: this flush's buffer goes out with it. */
  @Override
  public void flush(ChannelHandlerContext ctx) {
    writes.flush(connection.isClosed());
  }

  private void flushNow() {
    writes.flush(connection.isClosed());
  }

  /** Stops reading while the client does not read (so answers to its frames cannot pile up). */
  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    ctx.channel().config().setAutoRead(ctx.channel().isWritable());
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof SslHandshakeCompletionEvent handshake) {
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
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    IOException network = NetworkFailures.ioFailure(cause);
    if (network != null) {
      networkFailure(network);
    } else {
      logger.log(Level.WARNING, "HTTP/2 connection failed; closing it", cause);
    }
    ctx.close();
  }

  /** The connection failed for the network (a read or a write): the calls it ends say so. */
  private void networkFailure(IOException failure) {
    if (connectionFailure == null) {
      connectionFailure = NetworkFailures.status(failure);
    }
    NetworkFailures.log(ctx, "closed", failure);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    connection.close();
    writes.discard();
    Status status =
        connectionFailure != null
            ? connectionFailure
            : Status.UNAVAILABLE.withDescription("connection closed");
    for (ConnectionCall call : calls.snapshot()) {
      call.state.onReset(status);
    }
    if (exchanges != null) {
      exchanges.closeAll(connection.streams(), status);
    }
    stopTimers();
    transport.terminated();
    ctx.fireChannelInactive();
  }

  private void stopTimers() {
    if (keepAlive != null) {
      keepAlive.stop();
    }
    if (settingsAckTimer != null) {
      settingsAckTimer.cancel(false);
    }
    if (graceTimer != null) {
      graceTimer.cancel(false);
    }
    if (connectionLimits != null) {
      connectionLimits.stop();
    }
  }

  // ---------------------------------------------------------------- lifecycle

  /** The runtime asked for shutdown (any thread): requests read from now on are refused. */
  void markShutdownRequested() {
    shutdownRequested = true;
  }

  /** Whether the runtime asked for shutdown (any thread). */
  boolean isShutdownRequested() {
    return shutdownRequested || shutdownStarted;
  }

  /** The engine's double GOAWAY; the second one goes at the PING's answer or after the grace. */
  void gracefulShutdown() {
    assert inEventLoop();
    if (shutdownStarted) {
      return;
    }
    shutdownStarted = true;
    if (!ctx.channel().isActive()) {
      ctx.close();
      return;
    }
    connection.shutdown(writes.out());
    graceTimer =
        ctx.executor()
            .schedule(
                () -> {
                  connection.finishShutdown(writes.out());
                  flushNow();
                },
                options.gracePeriodNanos(),
                TimeUnit.NANOSECONDS);
    flushNow();
  }

  /** Fails every call with {@code status} and closes the connection. */
  void shutdownNow(Status status) {
    assert inEventLoop();
    shutdownStarted = true;
    closingNow = true;
    for (ConnectionCall call : calls.snapshot()) {
      call.state.abort(status);
    }
    if (exchanges != null) {
      exchanges.abortAll(connection.streams(), status);
    }
    connection.goAway(writes.out(), NO_ERROR, "");
    flushNow();
    ctx.close();
  }

  // ---------------------------------------------------------------- for the calls

  /** Any thread. */
  boolean inEventLoop() {
    return ctx == null || ctx.executor().inEventLoop();
  }

  /**
   * How a call's callbacks reach the server's executor: after the loop's reads. Event loop; looked
   * up once per connection (its loop never changes).
   */
  HandOff handOff() {
    HandOff loops = handOff;
    if (loops == null) {
      loops = ctx == null ? HandOff.DIRECT : ReadBatchHandOff.of(ctx.executor());
      handOff = loops;
    }
    return loops;
  }

  /** Runs {@code command} on the event loop, through the connection's write queue (any thread). */
  void execute(Runnable command) {
    transport.execute(command);
  }

  /** Runs {@code command} on the event loop with the next command that is executed (any thread). */
  void executeWithNext(Runnable command) {
    transport.executeWithNext(command);
  }

  /** A call's response HEADERS for {@code headers} (with {@code alt-svc} if HTTP/3 is on). */
  byte[][] responseFields(Metadata headers) {
    return options.withAltSvc(GrpcFields.response(headers));
  }

  /** Any thread. */
  NettyWritableBufferAllocator bufferAllocator() {
    return options.bufferAllocator();
  }

  /**
   * The bounds on responses the client does not read, for the connection's streams (any thread).
   */
  UnreadResponseLimits unreadResponseLimits() {
    return unreadResponseLimits;
  }

  /** The connection's channelz counters. */
  SocketNode socketNode() {
    return transport.socketNode();
  }

  /** The client does not read the responses queued on the connection: end it. */
  void closeForUnreadResponses() {
    assert inEventLoop();
    if (!ctx.channel().isOpen()) {
      return;
    }
    if (connectionFailure == null) {
      connectionFailure = unreadResponseLimits.connectionStatus();
    }
    String tooMuch = unreadResponseLimits.connectionProblem();
    unreadResponseLimits.logOnce(ctx, tooMuch);
    connection.goAway(writes.out(), ENHANCE_YOUR_CALM, tooMuch);
    flushNow();
    ctx.close();
  }

  /** Resets the stream of {@code state} (ENHANCE_YOUR_CALM): its client does not read. */
  void resetForUnreadResponses(ServerStreamState state) {
    unreadResponseLimits.logOnce(ctx, unreadResponseLimits.streamProblem(state.id()));
    connection.resetStream(writes.out(), state.id(), ENHANCE_YOUR_CALM);
  }

  /** Writes the response HEADERS ({@link GrpcFields}' arrays, which may be shared: read only). */
  void writeHeaders(ServerStreamState state, byte[][] headers, boolean endStream) {
    assert inEventLoop();
    keepAliveEnforcer.onDataSent();
    connection.sendHeaders(writes.out(), state.id(), headers, endStream);
  }

  /**
   * Writes framed response bytes (taking ownership of {@code data}); {@link
   * NettyServerStream#onSentBytes} follows once they left.
   */
  void writeData(ServerStreamState state, ByteBuf data, int bytes) {
    assert inEventLoop();
    ConnectionCall call = state.call;
    if (!connection.sendData(writes.out(), state.id(), data, false)) {
      state.stream().onSentBytes(bytes);
      return;
    }
    call.handedBytes += bytes;
    writes.handed(call);
  }

  /**
   * Writes trailers with END_STREAM; unless {@code aborting}, {@link
   * ServerStreamState#onTrailersWritten} follows.
   */
  void writeTrailers(ServerStreamState state, byte[][] trailers, boolean aborting) {
    assert inEventLoop();
    boolean sent = connection.sendHeaders(writes.out(), state.id(), trailers, true);
    if (aborting) {
      return;
    }
    ConnectionCall call = state.call;
    if (!sent) {
      state.onTrailersWritten(false, null);
      return;
    }
    call.trailersHanded = true;
    writes.handed(call);
  }

  /**
   * Resets the stream right after its trailers, unless it is closed already: NO_ERROR once the
   * trailers left (the client need not send more), CANCEL while they still wait behind
   * flow-controlled DATA.
   */
  void resetStreamAfterTrailers(ServerStreamState state) {
    long code = connection.queuedBytes(state.id()) > 0 ? Http2FrameException.CANCEL : NO_ERROR;
    connection.resetStream(writes.out(), state.id(), code);
  }

  /** The call of {@code state} ended; forget it. */
  void streamClosed(ServerStreamState state) {
    if (calls.remove(state.call) && calls.isEmpty() && noExchanges()) {
      exchangesChanged();
    }
  }

  private boolean noExchanges() {
    return exchanges == null || exchanges.isEmpty();
  }

  /** A call or an exchange started or ended: exchanges count as calls for the idle limit. */
  private void exchangesChanged() {
    if (connectionLimits != null) {
      if (calls.isEmpty() && noExchanges()) {
        connectionLimits.onIdle();
      } else {
        connectionLimits.onActive();
      }
    }
  }

  /** The application consumed {@code numBytes} of the stream's request DATA. */
  boolean returnBytes(int streamId, int numBytes) {
    if (numBytes <= 0) {
      return false;
    }
    connection.consumed(writes.out(), streamId, numBytes);
    return true;
  }

  // ---------------------------------------------------------------- Http2ConnectionListener

  @Override
  public HeaderSink onHeadersStart(Http2Stream stream, boolean trailers) {
    if (!trailers) {
      lastRequestStreamId = stream.id();
    }
    headers = new RequestHeaders(trailers);
    return headers;
  }

  @Override
  public void onHeadersEnd(Http2Stream stream, boolean trailers, boolean endStream) {
    RequestHeaders block = headers;
    headers = null;
    int streamId = stream.id();
    Object slot = stream.attachment();
    if (trailers) {
      if (block.malformed() != null) {
        reject(streamId, block.malformed());
      } else if (slot instanceof ConnectionCall call) {
        call.state.onEndOfStream(); // the engine only passes trailers that end the stream
      } else if (slot instanceof ExchangeOutput.ExchangeStream exchange) {
        exchanges.onTrailers(exchange, endStream);
      }
      return;
    }
    block.finishRequest();
    if (block.malformed() == null && endStream && block.contentLength() > 0) {
      reject(streamId, "request without a body, content-length " + block.contentLength());
      return;
    }
    if (block.malformed() != null) {
      reject(streamId, block.malformed());
      return;
    }
    DeclaredLength declared = null;
    if (!endStream && block.contentLength() >= 0) {
      declared = new DeclaredLength(block.contentLength());
      stream.attach(declared); // until a call or an exchange takes it
    }
    onRequest(stream, block, endStream, declared);
  }

  private void reject(int streamId, String reason) {
    connection.rejectStream(writes.out(), streamId, PROTOCOL_ERROR, reason);
  }

  private void onRequest(
      Http2Stream stream, RequestHeaders request, boolean endStream, DeclaredLength declared) {
    int streamId = stream.id();
    if (isShutdownRequested()) {
      // No new calls after shutdown(): the GOAWAY goes first, so the client retries elsewhere.
      if (!shutdownStarted) {
        gracefulShutdown();
      }
      connection.resetStream(writes.out(), streamId, REFUSED_STREAM);
      return;
    }
    CharSequence contentType = request.contentType();
    boolean grpc = request.isPost() && GrpcWire.isServedGrpcContentType(contentType);
    if (!grpc
        && exchanges != null
        && exchanges.serve(stream, request, endStream, streamAttributes, declared)) {
      return;
    }
    CharSequence path = request.path();
    RequestRefusal refusal = RequestRefusal.of(request, contentType, path);
    if (refusal != null) {
      if (refusal.textBody()) {
        respondWithBody(streamId, refusal.httpStatus(), refusal.status());
      } else {
        respond(streamId, refusal.httpStatus(), refusal.status());
      }
      return;
    }
    startCall(stream, request, path, endStream, declared);
  }

  private void startCall(
      Http2Stream stream,
      RequestHeaders request,
      CharSequence path,
      boolean endStream,
      DeclaredLength declared) {
    int streamId = stream.id();
    Metadata metadata = request.toMetadata();
    String fullMethodName = options.methodNames().of(path);
    ServerStreamState state =
        new ServerStreamState(this, streamId, options.maxInboundMessageSize());
    NettyServerStream serverStream =
        new NettyServerStream(this, state, request.authority(), streamAttributes);
    state.setStream(serverStream);
    if (calls.isEmpty() && connectionLimits != null) {
      connectionLimits.onActive();
    }
    ConnectionCall call = new ConnectionCall(state);
    call.declaredLength = declared;
    state.call = call;
    stream.attach(call);
    calls.add(call);
    transport.socketNode().streamStarted(false);
    try {
      transportListener.streamCreated(serverStream, fullMethodName, metadata);
    } catch (RuntimeException e) {
      logger.log(Level.SEVERE, "streamCreated threw for " + fullMethodName, e);
    }
    if (!state.hasListener()) {
      state.abort(Status.INTERNAL.withDescription("server did not accept the stream"));
      return;
    }
    if (endStream) {
      state.onEndOfStream();
    }
  }

  private void respond(int streamId, int httpStatus, Status status) {
    connection.sendHeaders(writes.out(), streamId, GrpcFields.httpError(httpStatus, status), true);
  }

  /** A request that is not gRPC: the status with a short text body. */
  private void respondWithBody(int streamId, int httpStatus, Status status) {
    ByteBuf out = writes.out();
    connection.sendHeaders(out, streamId, GrpcFields.httpErrorWithBody(httpStatus, status), false);
    String text = httpStatus + " " + status.getDescription() + "\n";
    connection.sendData(out, streamId, ByteBufUtil.writeUtf8(ctx.alloc(), text), true);
  }

  @Override
  public void onHeaderListTooLarge(Http2Stream stream, boolean trailers, boolean endStream) {
    headers = null;
    Status status =
        Status.RESOURCE_EXHAUSTED.withDescription(
            "Request header metadata larger than " + options.maxInboundMetadataSize() + " bytes");
    if (stream.attachment() instanceof ConnectionCall call) {
      call.state.abort(status);
    } else if (!trailers) {
      respond(stream.id(), 431, status);
    }
  }

  @Override
  public void onData(Http2Stream stream, ByteBuf data, int flowControlled, boolean endStream) {
    int streamId = stream.id();
    Object slot = stream.attachment();
    String mismatch = checkDeclaredLength(slot, data.readableBytes(), endStream);
    if (mismatch == null && slot instanceof ExchangeOutput.ExchangeStream exchange) {
      exchanges.onData(stream, exchange, data, flowControlled, endStream);
      return;
    }
    ConnectionCall call = slot instanceof ConnectionCall c ? c : null;
    if (mismatch != null || call == null || call.state.isClosed()) {
      data.release();
      connection.consumed(writes.out(), streamId, flowControlled);
      if (mismatch != null) {
        reject(streamId, mismatch);
      }
      return;
    }
    if (flowControlled > data.readableBytes()) {
      connection.consumed(writes.out(), streamId, flowControlled - data.readableBytes());
    }
    call.state.onData(data, endStream);
  }

  /** Why the DATA breaks the request's declared {@code content-length}, or null. */
  private static String checkDeclaredLength(Object slot, int bytes, boolean endStream) {
    DeclaredLength declared =
        slot instanceof HandedWrites writes
            ? writes.declaredLength
            : slot instanceof DeclaredLength d ? d : null;
    return declared == null ? null : declared.received(bytes, endStream);
  }

  @Override
  public boolean resetIsOrdinary(Http2Stream stream) {
    // A stream with no call and no exchange was already answered: its reset cancels nothing. A
    // call queued behind later streams holds a slot instead of counting (ResetCallSlots).
    Object slot = stream.attachment();
    if (slot instanceof ConnectionCall call) {
      return call.state.resetIsOrdinary()
          || resetCalls().hold(call.state, stream.id(), lastRequestStreamId);
    }
    return !(slot instanceof ExchangeOutput.ExchangeStream);
  }

  private ResetCallSlots resetCalls() {
    if (resetCalls == null) {
      resetCalls = new ResetCallSlots(options.maxConcurrentCallsPerConnection());
    }
    return resetCalls;
  }

  @Override
  public void onStreamReset(Http2Stream stream, long errorCode, boolean byPeer) {
    Object slot = stream.attachment();
    if (slot instanceof ExchangeOutput.ExchangeStream exchange) {
      exchanges.onReset(exchange, errorCode, byPeer);
    }
    if (!(slot instanceof ConnectionCall call)) {
      return;
    }
    String who = byPeer ? "client cancelled" : "stream reset";
    call.state.onReset(
        connectionFailure != null && !byPeer
            ? connectionFailure
            : Status.CANCELLED.withDescription(
                who + " (RST_STREAM " + GrpcWire.errorName(errorCode) + ")"));
  }

  @Override
  public void onStreamClosed(Http2Stream stream) {
    if (stream.attachment() instanceof ExchangeOutput.ExchangeStream exchange) {
      exchanges.onStreamClosed(exchange, connectionFailure);
    }
  }

  @Override
  public void onGoAway(int lastStreamId, long errorCode, ByteBuf debugData) {}

  @Override
  public void onSettings(Http2Settings settings) {
    if (ready) {
      return;
    }
    ready = true;
    Attributes attrs = transport.readyAttributes();
    Attributes returned = transportListener.transportReady(attrs);
    streamAttributes = returned != null ? returned : attrs;
    if (options.maxConnectionIdleNanos() != Long.MAX_VALUE
        || options.maxConnectionAgeNanos() != Long.MAX_VALUE) {
      connectionLimits =
          new ConnectionAgeLimits(
              ctx,
              options.maxConnectionIdleNanos(),
              options.maxConnectionAgeNanos(),
              options.maxConnectionAgeGraceNanos(),
              this::gracefulShutdown,
              this::shutdownNow);
      connectionLimits.start();
    }
    keepAlive = ServerKeepAlive.start(ctx, this, options);
  }

  // ---------------------------------------------------------------- keepalive (KeepAlivePinger)

  @Override
  public void writeKeepAlivePing() {
    connection.ping(writes.out(), KeepAlivePinger.PAYLOAD);
  }

  @Override
  public boolean hasOpenCalls() {
    return !calls.isEmpty();
  }

  @Override
  public void keepAlivePingSent() {
    transport.socketNode().keepAliveSent();
  }

  @Override
  public void keepAliveTimedOut() {
    shutdownNow(ServerKeepAlive.timedOut(ctx, options));
  }

  @Override
  public void onPing(long data) throws Http2FrameException {
    if (!keepAliveEnforcer.pingAcceptable(!calls.isEmpty())) {
      // The reason becomes the GOAWAY's debug data, which gRPC clients look for.
      throw Http2FrameException.connection(ENHANCE_YOUR_CALM, "too_many_pings");
    }
  }

  @Override
  public void onConnectionClosed(long errorCode, String reason) {
    if (errorCode != NO_ERROR) {
      if (connectionFailure == null) {
        connectionFailure =
            Status.UNAVAILABLE.withDescription(
                "HTTP/2 connection error " + GrpcWire.errorName(errorCode) + ": " + reason);
      }
      // The client broke a rule: let it read the GOAWAY that says why before the close.
      LingeringClose.arm(ctx.channel());
    } else if (!closingNow) {
      // A graceful end (this side's shutdown or the client's GOAWAY): the client may still be
      // sending, a PING after its GOAWAY (as h2spec's generic/3.8/1 does) or the DATA of a stream
      // refused while the first GOAWAY was on its way. Closing over unread bytes would reset the
      // connection, and the reset can reach the client before the frames that refused its
      // stream: it would then end that call as failed instead of retrying it elsewhere.
      LingeringClose.arm(ctx.channel());
    }
    // The channel closes once the buffer holding the GOAWAY is written (see flush).
  }
}
