package dev.tern.netty.internal.client;

import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.netty.internal.grpc.GrpcFields;
import dev.tern.netty.internal.grpc.GrpcWire;
import dev.tern.netty.internal.http2.HeaderSink;
import dev.tern.netty.internal.http2.Http2Connection;
import dev.tern.netty.internal.http2.Http2ConnectionListener;
import dev.tern.netty.internal.http2.Http2FrameException;
import dev.tern.netty.internal.http2.Http2Settings;
import dev.tern.netty.internal.http2.Http2Stream;
import dev.tern.netty.internal.io.KeepAlivePinger;
import dev.tern.netty.internal.io.NetworkFailures;
import dev.tern.netty.internal.io.ReadBatchHandOff;
import dev.tern.netty.internal.io.SocketNode;
import dev.tern.spi.ClientStreamListener.RpcProgress;
import dev.tern.spi.ClientTransport.PingCallback;
import dev.tern.spi.HandOff;
import dev.tern.spi.ManagedClientTransport;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.AsciiString;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The client end of one HTTP/2 connection, on Tern's HTTP/2 engine ({@link Http2Connection}): it
 * writes the preface and SETTINGS, opens each call's stream with request headers built straight
 * from its {@link Metadata} ({@link GrpcFields#request}), decodes response headers and trailers
 * into the holder {@link ClientStreamState} reads ({@link ResponseHeaderSink}), and maps
 * RST_STREAM, GOAWAY and connection errors to the calls' statuses. A stream over the server's
 * SETTINGS_MAX_CONCURRENT_STREAMS waits, with the DATA its call writes, until one closes, and then
 * goes out with its {@code grpc-timeout} shortened by its wait. Every frame of a flush goes into
 * one buffer ({@link ClientWrites}).
 *
 * <p>Event loop only: all state is confined to the channel's event loop; {@link
 * NettyClientTransport} and {@link NettyClientStream} reach it through the connection's write queue
 * (only {@link #prepareStream} runs on the application's thread, and touches no state).
 */
final class ClientHandler extends ChannelDuplexHandler implements Http2ConnectionListener {
  private static final Logger logger = Logger.getLogger(ClientHandler.class.getName());

  private final NettyClientTransport transport;
  private final int maxInboundMetadataSize;
  private final Http2Connection connection;
  private final ClientWrites writes;

  /** Streams waiting for a free slot under the server's concurrency limit, oldest first. */
  private final Map<ClientStreamState, ConnectionStream> waiting = new LinkedHashMap<>();

  /** Streams the engine reset for a connection error, until onConnectionClosed ends them. */
  private final List<ConnectionStream> endedByConnectionError = new ArrayList<>(0);

  private final PingTracker pings = new PingTracker();

  /** Where advertised HTTP/3 alternatives go, or null when the channel does not upgrade. */
  private final Http3Alternatives alternatives;

  private final ClientLifecycle life;
  private ChannelHandlerContext ctx;

  /**
   * The loop's hand-off to the calls' executors: written once on the loop as the handler is added,
   * read by the application's threads as their calls start.
   */
  private volatile HandOff handOff = HandOff.DIRECT;

  /** The sink of every header block, reset at each block's start (blocks never interleave). */
  private final ResponseHeaderSink block = new ResponseHeaderSink();

  ClientHandler(
      NettyClientTransport transport,
      ManagedClientTransport.Listener listener,
      NettyClientTransport.TransportOptions options) {
    this.transport = transport;
    this.maxInboundMetadataSize = options.maxInboundMetadataSize();
    this.connection = new Http2Connection(false, ClientLimits.of(options), this, System::nanoTime);
    this.writes = new ClientWrites(connection, this::networkFailure);
    connection.setDataSplicer(writes::splice);
    this.life = new ClientLifecycle(transport, listener, options, pings);
    this.alternatives = options.http3Alternatives();
  }

  // ---------------------------------------------------------------- for the streams

  /**
   * On the application's thread: builds the request headers of {@code state}'s call from {@code
   * headers} (read, not kept) and returns the command that opens the stream on the event loop.
   */
  Runnable prepareStream(
      ClientStreamState state,
      AsciiString scheme,
      AsciiString path,
      AsciiString authority,
      AsciiString userAgent,
      Metadata headers) {
    // The transport's AsciiStrings span their arrays, which are shared, not copied, per call: the
    // engine never modifies a field's bytes.
    byte[][] fields =
        GrpcFields.request(
            GrpcWire.bytes(scheme),
            GrpcWire.bytes(path),
            GrpcWire.bytes(authority),
            userAgent == null ? null : GrpcWire.bytes(userAgent),
            headers);
    return new ConnectionStream(this, state, fields);
  }

  /** Runs on the event loop as the command {@link #prepareStream} returned. */
  void createStream(ConnectionStream stream) {
    assert inEventLoop();
    ClientStreamState state = stream.state;
    if (state.isClosed()) {
      return; // cancelled while queued
    }
    if (life.isReady() && !life.closing && !ctx.channel().isActive()) {
      // The connection just closed and channelInactive has yet to run: tell the runtime first, as
      // channelInactive would, so that this call, retried, does not pick this transport again.
      life.notifyShutdown(life.closedStatus());
    }
    if (life.closing || !life.isReady() || !ctx.channel().isActive() || connection.isClosed()) {
      state.onNotStarted(life.notStartedStatus(), RpcProgress.DROPPED);
      return;
    }
    life.streamStarted();
    transport.socketNode().streamStarted(true);
    stream.live = true;
    if (waiting.isEmpty() && connection.canOpenStream()) {
      open(stream); // the usual case, without the map's entry and iterator
    } else {
      stream.heldSinceNanos = System.nanoTime();
      waiting.put(state, stream);
      openWaiting();
    }
    if (!state.isClosed()) {
      state.onReady();
    }
  }

  /**
   * Opens the waiting streams the server's concurrency limit lets through, oldest first, each with
   * its {@code grpc-timeout} shortened by its wait: the server anchors the call's deadline when the
   * stream arrives, and a timeout computed at the call's start would give it time the client no
   * longer has (its reset at the client's deadline would then look early to the server's Rapid
   * Reset guard).
   */
  private void openWaiting() {
    Iterator<ConnectionStream> it = waiting.values().iterator();
    while (it.hasNext() && connection.canOpenStream()) {
      ConnectionStream stream = it.next();
      it.remove();
      GrpcFields.shortenTimeout(stream.fields, System.nanoTime() - stream.heldSinceNanos);
      open(stream);
    }
  }

  /** Opens {@code stream} with its request HEADERS and sends the DATA that waited for it. */
  private void open(ConnectionStream stream) {
    byte[][] fields = stream.fields;
    stream.fields = null;
    int id = connection.openStream(writes.out(), fields, false, stream);
    stream.state.setId(id);
    if (stream.waiting != null) {
      for (ConnectionStream.Waiting w : stream.waiting) {
        send(stream, w.data(), w.endOfStream(), w.bytes(), w.messages());
      }
      stream.waiting = null;
    }
  }

  /** Writes framed bytes of {@code state}; takes ownership of {@code data}. */
  void sendData(
      ClientStreamState state, ByteBuf data, boolean endOfStream, int bytes, int messages) {
    assert inEventLoop();
    ConnectionStream stream = state.wire;
    if (state.isClosed() || !stream.live) {
      data.release();
      state.stream().onSentBytes(bytes);
      return;
    }
    if (!stream.isOpen()) {
      stream.hold(data, endOfStream, bytes, messages);
      return;
    }
    send(stream, data, endOfStream, bytes, messages);
  }

  private void send(
      ConnectionStream stream, ByteBuf data, boolean endOfStream, int bytes, int messages) {
    transport.socketNode().messagesSent(messages);
    writes.handed(stream, bytes);
    connection.sendData(writes.out(), stream.state.id(), data, endOfStream);
  }

  /** The application cancelled: RST_STREAM(CANCEL) and report {@code status}. */
  void cancelStream(ClientStreamState state, Status status) {
    assert inEventLoop();
    if (state.isClosed()) {
      return;
    }
    state.cancel(status);
    resetStream(state);
  }

  /** Sends RST_STREAM(CANCEL) for {@code state}'s stream, if it is open on the wire. */
  void resetStream(ClientStreamState state) {
    ConnectionStream held = waiting.remove(state);
    if (held != null) {
      held.live = false;
      state.stream().onSentBytes(held.dropWaiting());
      streamDone();
      return;
    }
    if (state.id() > 0) {
      connection.resetStream(writes.out(), state.id(), Http2FrameException.CANCEL);
      removeStream(state.wire);
    }
  }

  /** The server ended the stream; if this side has not, reset it so both ends free it now. */
  void onEndOfStreamReceived(ClientStreamState state) {
    if (connection.isLocalOpen(state.id())) {
      connection.resetStream(writes.out(), state.id(), Http2FrameException.CANCEL);
    }
    removeStream(state.wire);
  }

  /** The application took {@code bytes} of a stream's DATA: flow-control credit goes back. */
  void consumed(int streamId, int bytes) {
    if (bytes > 0) {
      connection.consumed(writes.out(), streamId, bytes);
    }
  }

  boolean inEventLoop() {
    return ctx == null || ctx.executor().inEventLoop();
  }

  /** The connection's channelz counters. */
  SocketNode socketNode() {
    return transport.socketNode();
  }

  // ---------------------------------------------------------------- for the transport

  /** A measured PING. */
  void ping(PingCallback callback, Executor executor) {
    assert inEventLoop();
    if (life.refusePing(callback, executor)) {
      return;
    }
    pings.ping(payload -> connection.ping(writes.out(), payload), callback, executor);
  }

  /** Refuses new streams; closes the connection once the streams in flight are done. */
  void startShutdown(Status status) {
    assert inEventLoop();
    life.shutdownRequested(status);
    closeIfIdle();
  }

  /** Shuts down and fails every stream in flight with {@code status}. */
  void shutdownNow(Status status) {
    assert inEventLoop();
    startShutdown(status);
    life.goingAwayStatus = status;
    for (ConnectionStream stream : liveStreams()) {
      cancelStream(stream.state, status);
    }
    ctx.close();
  }

  /** The connection attempt failed (or was abandoned): the transport is over. */
  void connectFailed(Throwable cause) {
    life.connectFailed(cause);
  }

  /** The CONNECT tunnel through a proxy failed: the connection's status, before it closes. */
  void tunnelFailed(Status status) {
    if (life.goingAwayStatus == null) {
      life.goingAwayStatus = status;
    }
  }

  /** What this side may still send and the peer may still send on the connection, in bytes. */
  long[] flowControlWindows() {
    return connection.connectionWindows();
  }

  /** The streams the connection holds: those waiting for a slot, then those open on the wire. */
  private List<ConnectionStream> liveStreams() {
    List<ConnectionStream> all = new ArrayList<>(waiting.values());
    for (Http2Stream http2 : connection.streams()) {
      if (http2.attachment() instanceof ConnectionStream stream && stream.live) {
        all.add(stream);
      }
    }
    return all;
  }

  /** The stream on the wire ended here: its slot goes to a waiting stream, if any. */
  private void removeStream(ConnectionStream stream) {
    if (stream.live) {
      stream.live = false;
      streamDone();
      openWaiting();
    }
  }

  /** The stream of the engine's {@code http2}, if the connection still holds it; else null. */
  private static ConnectionStream live(Http2Stream http2) {
    return http2.attachment() instanceof ConnectionStream stream && stream.live ? stream : null;
  }

  private void streamDone() {
    if (life.streamDone()) {
      closeIfIdle();
    }
  }

  /**
   * Once closing and idle, says GOAWAY and closes (after the flush that carries it); a channel
   * still connecting has no one to say it to and closes at once, which ends the attempt.
   */
  private void closeIfIdle() {
    if (!life.closing || life.hasActiveStreams() || ctx == null) {
      return;
    }
    if (ctx.channel().isActive()) {
      connection.shutdown(writes.out());
      writes.flush(true);
    } else {
      ctx.close();
    }
  }

  // ---------------------------------------------------------------- channel events

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    writes.attach(ctx);
    handOff = ReadBatchHandOff.of(ctx.executor());
  }

  /**
   * How a call's responses reach its executor: after the loop's reads (see {@link
   * ReadBatchHandOff}). Any thread; looked up once per connection, on its loop (its loop never
   * changes); {@link HandOff#DIRECT} until then.
   */
  HandOff handOff() {
    return handOff;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    connection.start(writes.out());
    writes.flush(false);
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf in)) {
      ctx.fireChannelRead(msg);
      return;
    }
    life.onRead();
    writes.read(in);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    writes.flush(connection.isClosed());
  }

  /** The write queue's drain ends with a flush: this flush's buffer goes out with it. */
  @Override
  public void flush(ChannelHandlerContext ctx) {
    writes.flush(connection.isClosed());
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    life.tlsEvent(ctx, evt);
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    IOException network = NetworkFailures.ioFailure(cause);
    if (network != null) {
      networkFailure(network);
    } else {
      if (life.goingAwayStatus == null) {
        life.goingAwayStatus =
            Status.UNAVAILABLE.withDescription("Connection failed: " + cause).withCause(cause);
      }
      logger.log(Level.FINE, "HTTP/2 connection failed; closing it", cause);
    }
    ctx.close();
  }

  /** The connection failed for the network (a read or a write): the calls it ends say so. */
  private void networkFailure(IOException failure) {
    life.networkFailure(ctx, failure);
    NetworkFailures.log(ctx, "closed", failure);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    Status status = life.channelClosed(ctx);
    List<ConnectionStream> left = liveStreams();
    connection.close();
    writes.discard();
    waiting.clear();
    for (ConnectionStream stream : left) {
      stream.live = false;
      // A stream still waiting for a slot never reached the server: safe to retry.
      boolean neverSent = !stream.isOpen();
      stream.dropWaiting();
      stream.state.onStreamClosed(status, neverSent);
    }
    life.noStreams();
    life.notifyTerminated();
    ctx.fireChannelInactive();
  }

  // ---------------------------------------------------------------- Http2ConnectionListener

  @Override
  public HeaderSink onHeadersStart(Http2Stream http2, boolean trailers) {
    block.start();
    return block;
  }

  @Override
  public void onHeadersEnd(Http2Stream http2, boolean trailers, boolean endStream) {
    int streamId = http2.id();
    GrpcResponseHeaders headers = block.headers();
    String malformed = block.malformed();
    ConnectionStream stream = live(http2);
    if (stream == null) {
      return;
    }
    if (malformed != null) {
      stream.state.fail(
          Status.INTERNAL.withDescription("Malformed response headers: " + malformed), true);
      return;
    }
    if (!trailers && !endStream && Http2Statuses.isInformational(headers.status())) {
      // A 1xx response (RFC 9113 section 8.1), which the call skips: the next block is the
      // response's head again, not its trailers.
      connection.informationalResponse(streamId);
    }
    if (!trailers && headers.altSvc() != null) {
      heardAltSvc(headers.altSvc());
    }
    stream.state.onHeaders(headers, endStream);
    if (endStream) {
      removeStream(stream);
    }
  }

  /**
   * A response advertised alternatives: once one makes HTTP/3 usable for this server, the
   * connection retires as after a GOAWAY (its calls finish here; new calls go to a new connection,
   * which races QUIC against TCP). At most once per connection.
   */
  private void heardAltSvc(String value) {
    if (alternatives != null
        && !life.closing
        && alternatives.heard(transport.address(), transport.authority(), value)) {
      startShutdown(
          Status.UNAVAILABLE.withDescription(
              "the server offers HTTP/3 (alt-svc): new calls go to a new connection"));
    }
  }

  @Override
  public void onHeaderListTooLarge(Http2Stream http2, boolean trailers, boolean endStream) {
    ConnectionStream stream = live(http2);
    if (stream != null) {
      stream.state.fail(
          Status.RESOURCE_EXHAUSTED.withDescription(
              "Response header metadata larger than " + maxInboundMetadataSize + " bytes"),
          true);
    }
  }

  @Override
  public void onData(Http2Stream http2, ByteBuf data, int flowControlled, boolean endStream) {
    int streamId = http2.id();
    ConnectionStream stream = live(http2);
    if (stream == null || stream.state.isClosed()) {
      data.release();
      consumed(streamId, flowControlled); // nobody will read it: the window goes back now
      return;
    }
    consumed(streamId, flowControlled - data.readableBytes()); // the padding
    stream.state.onData(data, endStream);
    if (endStream) {
      removeStream(stream);
    }
  }

  /**
   * The engine has let the stream go: only now does its slot count as free. {@link #removeStream}
   * runs earlier, from the stream's last frame, when the engine still counts it; without this a
   * stream waiting for that slot would wait for the next stream to end, or for its deadline.
   */
  @Override
  public void onStreamClosed(Http2Stream http2) {
    if (!waiting.isEmpty()) {
      openWaiting();
    }
  }

  @Override
  public void onStreamReset(Http2Stream http2, long errorCode, boolean byPeer) {
    ConnectionStream stream = live(http2);
    if (stream == null) {
      return;
    }
    if (!byPeer && connection.isClosed()) {
      // A connection error: onConnectionClosed, next, ends the calls with its reason (the engine
      // forgets the stream before that, so it is kept here until then).
      endedByConnectionError.add(stream);
      return;
    }
    removeStream(stream);
    Status status = Http2Statuses.fromRstStream(errorCode);
    if (errorCode == Http2FrameException.REFUSED_STREAM && byPeer) {
      if (connection.goAwayReceived()) {
        // Refused by a GOAWAY, reported before onGoAway: the runtime must stop choosing this
        // transport before the call is retried, or the retry would come back here.
        life.closing = true;
        life.notifyShutdown(Status.UNAVAILABLE.withDescription("GOAWAY received"));
        status = Status.UNAVAILABLE.withDescription("Stream refused by the server's GOAWAY");
      }
      stream.state.onStreamClosed(status, true); // not processed: safe to retry
    } else if (byPeer) {
      stream.state.onReset(status);
    } else {
      // This side's engine reset it: a stream error of the server's making, or a queue limit.
      stream.state.fail(
          Status.INTERNAL.withDescription(
              "HTTP/2 stream error, stream reset with " + GrpcWire.errorName(errorCode)),
          false);
    }
  }

  @Override
  public void onGoAway(int lastStreamId, long errorCode, ByteBuf debugData) {
    life.goAwayReceived(errorCode, debugData.toString(StandardCharsets.UTF_8));
    // Streams still waiting for a slot never reached the server: safe to retry elsewhere.
    Status refused =
        Status.UNAVAILABLE.withDescription(
            "Stream refused by the server's GOAWAY (last stream " + lastStreamId + ")");
    for (ConnectionStream stream : new ArrayList<>(waiting.values())) {
      waiting.remove(stream.state);
      stream.state.stream().onSentBytes(stream.dropWaiting());
      stream.state.onStreamClosed(refused, true);
      streamDone();
    }
    closeIfIdle();
  }

  @Override
  public void onSettings(Http2Settings settings) {
    life.ready(ctx, () -> connection.ping(writes.out(), KeepAlivePinger.PAYLOAD));
    openWaiting();
  }

  @Override
  public void onPingAck(long data) {
    pings.onAck(data);
  }

  @Override
  public void onConnectionClosed(long errorCode, String reason) {
    if (life.goingAwayStatus == null) {
      String error = "HTTP/2 connection error " + GrpcWire.errorName(errorCode) + ": " + reason;
      // ENHANCE_YOUR_CALM is this side's limit on what the server sends (a flood): the connection
      // was cut for load, not for a broken rule.
      life.goingAwayStatus =
          errorCode == Http2FrameException.NO_ERROR
              ? Status.UNAVAILABLE.withDescription("Connection closed")
              : errorCode == Http2FrameException.ENHANCE_YOUR_CALM
                  ? Status.UNAVAILABLE.withDescription(error)
                  : Status.INTERNAL.withDescription(error);
    }
    life.closing = true;
    Status status = life.goingAwayStatus;
    List<ConnectionStream> left = liveStreams();
    left.addAll(endedByConnectionError);
    endedByConnectionError.clear();
    for (ConnectionStream stream : left) {
      boolean neverSent = !stream.isOpen();
      if (neverSent) {
        waiting.remove(stream.state);
        stream.live = false;
        stream.state.stream().onSentBytes(stream.dropWaiting());
        streamDone();
      } else {
        removeStream(stream);
      }
      stream.state.onStreamClosed(status, neverSent);
    }
    // The channel closes after the flush that carries the GOAWAY (see flush).
  }
}
