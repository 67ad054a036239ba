package dev.tern.netty.internal.client;

import dev.tern.Status;
import dev.tern.netty.internal.codec.GrpcHttp2ConnectionHandler;
import dev.tern.netty.internal.codec.GrpcResponseHeaders;
import dev.tern.netty.internal.codec.GrpcWire;
import dev.tern.netty.internal.codec.KeepAlivePinger;
import dev.tern.netty.internal.codec.NetworkFailures;
import dev.tern.netty.internal.codec.TlsAttributes;
import dev.tern.netty.internal.codec.WriteQueue;
import dev.tern.netty.internal.io.SocketNode;
import dev.tern.spi.ClientStreamListener.RpcProgress;
import dev.tern.spi.ClientTransport.PingCallback;
import dev.tern.spi.ManagedClientTransport;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.StreamBufferingEncoder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import javax.net.ssl.SSLException;

/**
 * The client end of one HTTP/2 connection: creates streams, routes inbound frames to their {@link
 * ClientStreamState}s, answers pings, follows GOAWAY, and reports the connection's life to the
 * transport listener (ready on the server's first SETTINGS; shutdown; in use; terminated when the
 * channel is gone).
 *
 * <p>Event loop only: all state is confined to the channel's event loop; {@link
 * NettyClientTransport} and {@link NettyClientStream} reach it by enqueueing commands on the
 * connection's {@link WriteQueue}.
 */
final class ClientHandler extends GrpcHttp2ConnectionHandler {
  private static final Logger logger = Logger.getLogger(ClientHandler.class.getName());

  private final NettyClientTransport transport;
  private final ManagedClientTransport.Listener listener;
  private final IntObjectMap<ClientStreamState> streams = new IntObjectHashMap<>();
  private final long maxInboundMetadataSize;

  private boolean ready;
  private boolean shutdownNotified;
  private boolean terminated;

  /** No new streams; close the channel once the last one is gone. */
  private boolean closing;

  private int activeStreams;

  /** Whether the encoder may hold streams waiting for a free slot (see onStreamClosed). */
  private boolean streamsBuffered;

  /** Streams above this id were refused by the server's GOAWAY. */
  private int goAwayLastStreamId = Integer.MAX_VALUE;

  /** Why the connection is going away: what streams still open when it closes end with. */
  private Status goingAwayStatus;

  private final PingTracker pings = new PingTracker();

  private final NettyClientTransport.TransportOptions options;
  private KeepAlivePinger keepAlive;

  /** Whether the server said too_many_pings on this connection (the channel's time doubled). */
  private boolean toldTooManyPings;

  static ClientHandler create(
      NettyClientTransport transport,
      ManagedClientTransport.Listener listener,
      NettyClientTransport.TransportOptions options) {
    Http2Settings settings = new Http2Settings();
    settings.pushEnabled(false);
    settings.maxConcurrentStreams(0);
    Parts parts =
        Parts.create(
            false,
            options.flowControlWindow(),
            options.maxInboundMetadataSize(),
            settings,
            options.maxQueuedControlFrames(),
            MAX_SMALL_CONTINUATION_FRAMES);
    return new ClientHandler(parts, transport, listener, options);
  }

  private ClientHandler(
      Parts parts,
      NettyClientTransport transport,
      ManagedClientTransport.Listener listener,
      NettyClientTransport.TransportOptions options) {
    super(parts, options.flowControlWindow());
    this.transport = transport;
    this.listener = listener;
    this.options = options;
    this.maxInboundMetadataSize = options.maxInboundMetadataSize();
    decoder().frameListener(new FrameListener());
    connection().addListener(new ConnectionListener());
  }

  // ---------------------------------------------------------------- for the streams

  /** Opens the HTTP/2 stream of {@code state} by writing its request headers. */
  void createStream(ClientStreamState state, Http2Headers headers) {
    assert inEventLoop();
    if (state.isClosed()) {
      return; // cancelled while queued
    }
    if (ready && !closing && !ctx().channel().isActive()) {
      // The connection just closed and channelInactive has yet to run: tell the runtime first, as
      // channelInactive would, so that this call, retried, does not pick this transport again.
      if (goingAwayStatus == null) {
        goingAwayStatus = Status.UNAVAILABLE.withDescription("Connection closed");
      }
      notifyShutdown(goingAwayStatus);
    }
    if (closing || !ready || !ctx().channel().isActive()) {
      Status status =
          goingAwayStatus != null
              ? goingAwayStatus
              : Status.UNAVAILABLE.withDescription(
                  closing ? "transport is shut down" : "transport is not ready");
      state.onNotStarted(status, RpcProgress.DROPPED);
      return;
    }
    int id = connection().local().incrementAndGetNextStreamId();
    if (id < 0) {
      // Stream ids exhausted: this connection is done; the channel opens a new one.
      state.onNotStarted(
          Status.UNAVAILABLE.withDescription("HTTP/2 stream ids exhausted"), RpcProgress.DROPPED);
      startShutdown(Status.UNAVAILABLE.withDescription("HTTP/2 stream ids exhausted"));
      return;
    }
    state.setId(id);
    streams.put(id, state);
    streamStarted();
    transport.socketNode().streamStarted(true);
    ChannelPromise promise = ctx().newPromise();
    promise.addListener(
        (ChannelFuture f) -> {
          if (!f.isSuccess()) {
            headersFailed(state, f.cause());
          }
        });
    encoder().writeHeaders(ctx(), id, headers, 0, false, promise);
    if (connection().stream(id) == null && !state.isClosed()) {
      // Over the server's MAX_CONCURRENT_STREAMS: the encoder holds it until a stream closes.
      streamsBuffered = true;
    }
    if (!state.isClosed()) {
      state.onReady();
    }
  }

  private void headersFailed(ClientStreamState state, Throwable cause) {
    if (streams.remove(state.id()) == null) {
      return;
    }
    if (cause instanceof Http2Exception.HeaderListSizeException) {
      state.onNotStarted(
          Status.RESOURCE_EXHAUSTED.withDescription(
              "Request header metadata larger than the server accepts: " + cause.getMessage()),
          RpcProgress.PROCESSED);
    } else if (cause instanceof StreamBufferingEncoder.Http2GoAwayException) {
      state.onNotStarted(
          Status.UNAVAILABLE.withDescription("stream refused by GOAWAY").withCause(cause),
          RpcProgress.REFUSED);
    } else {
      Status status =
          goingAwayStatus != null
              ? goingAwayStatus
              : Status.UNAVAILABLE.withDescription("failed to send request headers");
      state.onNotStarted(status.withCause(cause), RpcProgress.PROCESSED);
    }
    streamDone();
  }

  /** Writes framed bytes of {@code state}; takes ownership of {@code data}. */
  void sendData(
      ClientStreamState state, ByteBuf data, boolean endOfStream, int bytes, int messages) {
    assert inEventLoop();
    NettyClientStream stream = state.stream();
    if (state.isClosed() || state.id() < 0) {
      data.release();
      stream.onSentBytes(bytes);
      return;
    }
    transport.socketNode().messagesSent(messages);
    ChannelPromise promise = ctx().newPromise();
    promise.addListener(f -> stream.onSentBytes(bytes));
    encoder().writeData(ctx(), state.id(), data, 0, endOfStream, promise);
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
    int id = state.id();
    if (id <= 0) {
      return;
    }
    Http2Stream stream = connection().stream(id);
    if (stream != null && stream.state() != Http2Stream.State.CLOSED) {
      resetStream(ctx(), id, Http2Error.CANCEL.code(), ctx().newPromise());
    } else if (stream == null && streams.containsKey(id)) {
      // Still buffered by the encoder (over MAX_CONCURRENT_STREAMS): drop it there.
      resetStream(ctx(), id, Http2Error.CANCEL.code(), ctx().newPromise());
    }
  }

  /** The server ended the stream; if we have not, reset it so both ends free it now. */
  void onEndOfStreamReceived(ClientStreamState state) {
    Http2Stream stream = connection().stream(state.id());
    if (stream != null && stream.state() == Http2Stream.State.OPEN) {
      resetStream(ctx(), state.id(), Http2Error.CANCEL.code(), ctx().newPromise());
    }
  }

  /** The connection's channelz counters (touched on the event loop). */
  SocketNode socketNode() {
    return transport.socketNode();
  }

  // ---------------------------------------------------------------- for the transport

  void ping(PingCallback callback, Executor executor) {
    assert inEventLoop();
    if (closing || terminated || !ready) {
      PingTracker.fail(
          callback,
          executor,
          Status.UNAVAILABLE.withDescription(
              ready ? "transport is shut down" : "transport is not ready"));
      return;
    }
    pings.ping(ctx(), encoder(), callback, executor);
  }

  /** Refuses new streams; closes the connection once the streams in flight are done. */
  void startShutdown(Status status) {
    assert inEventLoop();
    notifyShutdown(status);
    closing = true;
    if (goingAwayStatus == null) {
      goingAwayStatus = status;
    }
    closeIfIdle();
  }

  /** Shuts down and fails every stream in flight with {@code status}. */
  void shutdownNow(Status status) {
    assert inEventLoop();
    startShutdown(status);
    goingAwayStatus = status;
    List<ClientStreamState> open = new ArrayList<>(streams.values());
    for (ClientStreamState state : open) {
      cancelStream(state, status);
    }
    ctx().close();
  }

  /** The connection attempt failed (or was abandoned): the transport is over. */
  void connectFailed(Throwable cause) {
    if (terminated) {
      return;
    }
    assert inEventLoop();
    notifyShutdown(
        Status.UNAVAILABLE
            .withDescription("Failed to connect to " + transport.address())
            .withCause(cause));
    notifyTerminated();
  }

  private void closeIfIdle() {
    if (closing && activeStreams == 0 && ctx() != null) {
      ctx().close();
    }
  }

  private void streamStarted() {
    if (activeStreams++ == 0) {
      listener.transportInUse(true);
    }
  }

  private void streamDone() {
    if (--activeStreams == 0) {
      listener.transportInUse(false);
      closeIfIdle();
    }
  }

  private void notifyShutdown(Status status) {
    if (!shutdownNotified) {
      shutdownNotified = true;
      transport.markShutdown(status);
      listener.transportShutdown(status);
    }
  }

  private void notifyTerminated() {
    if (!terminated) {
      notifyShutdown(Status.UNAVAILABLE.withDescription("Connection closed"));
      terminated = true;
      pings.failAll(Status.UNAVAILABLE.withDescription("Connection closed"));
      transport.socketNode().unregister();
      listener.transportTerminated();
    }
  }

  private void goAwayReceived(int lastStreamId, long errorCode, ByteBuf debugData) {
    goAwayLastStreamId = Math.min(goAwayLastStreamId, lastStreamId);
    String debug = debugData.toString(StandardCharsets.UTF_8);
    if (errorCode == Http2Error.ENHANCE_YOUR_CALM.code()
        && "too_many_pings".equals(debug)
        && !toldTooManyPings) {
      // Once per connection: a server may repeat itself for pings already on their way.
      toldTooManyPings = true;
      options.keepAliveTooManyPings();
    }
    Status status =
        Status.UNAVAILABLE.withDescription(
            "GOAWAY received: "
                + GrpcWire.errorName(errorCode)
                + (debug.isEmpty() ? "" : ", debug data: " + debug));
    if (goingAwayStatus == null) {
      goingAwayStatus = status;
    }
    notifyShutdown(status);
    closing = true;
  }

  // ---------------------------------------------------------------- channel events

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    noteWriteFailure(ctx);
    if (goingAwayStatus == null) {
      goingAwayStatus =
          Status.UNAVAILABLE.withDescription(
              !ready && ctx.pipeline().get(SslHandler.class) == null
                  ? TlsFailures.SERVER_EXPECTS_TLS
                  : "Connection closed");
    }
    closing = true;
    if (keepAlive != null) {
      keepAlive.stop();
    }
    // The runtime must stop choosing this transport before any call learns that it failed:
    // a caller reacting to the failure (a retry, a wait-for-ready call) then gets a new one.
    notifyShutdown(goingAwayStatus);
    try {
      super.channelInactive(ctx);
    } finally {
      // Streams Netty never created (still buffered) are failed by the encoder's close above;
      // anything left over ends here.
      List<ClientStreamState> left = new ArrayList<>(streams.values());
      streams.clear();
      for (ClientStreamState state : left) {
        state.onStreamClosed(goingAwayStatus, false);
      }
      activeStreams = 0;
      notifyTerminated();
    }
  }

  private void startKeepAlive() {
    long keepAliveTimeNanos = options.keepAliveTimeNanos();
    if (keepAliveTimeNanos == Long.MAX_VALUE) {
      return;
    }
    keepAlive =
        new KeepAlivePinger(
            ctx(),
            encoder(),
            keepAliveTimeNanos,
            options.keepAliveTimeoutNanos(),
            options.keepAliveWithoutCalls(),
            () -> activeStreams > 0,
            transport.socketNode()::keepAliveSent,
            () -> {
              goingAwayStatus =
                  Status.UNAVAILABLE.withDescription(
                      "Keepalive failed: no answer to a PING within "
                          + TimeUnit.NANOSECONDS.toMillis(options.keepAliveTimeoutNanos())
                          + " ms; the connection is likely gone");
              ctx().close();
            });
    keepAlive.start();
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
        goingAwayStatus =
            Status.UNAVAILABLE
                .withDescription(TlsFailures.describe(ctx.channel(), handshake.cause()))
                .withCause(handshake.cause());
      } else {
        String problem = TlsAttributes.alpnProblem(ctx.channel());
        if (problem != null) {
          goingAwayStatus = Status.UNAVAILABLE.withDescription(problem);
          ctx.close();
        }
      }
    }
    super.userEventTriggered(ctx, evt);
  }

  @Override
  protected void onNetworkFailure(ChannelHandlerContext ctx, IOException failure) {
    if (goingAwayStatus == null) {
      goingAwayStatus =
          failure instanceof SSLException
              ? Status.UNAVAILABLE
                  .withDescription(TlsFailures.describe(ctx.channel(), failure))
                  .withCause(failure)
              : NetworkFailures.status(failure);
    }
  }

  @Override
  protected void onStreamError(
      ChannelHandlerContext ctx,
      boolean outbound,
      Throwable cause,
      Http2Exception.StreamException http2Ex) {
    ClientStreamState state = streams.get(http2Ex.streamId());
    Status status = null;
    if (state == null) {
      // Not ours (any more).
    } else if (http2Ex instanceof Http2Exception.HeaderListSizeException) {
      status =
          Status.RESOURCE_EXHAUSTED.withDescription(
              outbound
                  ? "Request header metadata larger than the server accepts: "
                      + http2Ex.getMessage()
                  : "Response header metadata larger than " + maxInboundMetadataSize + " bytes");
    } else if (!ctx.channel().isActive()) {
      // Writes cancelled because the connection died: that is what the call must report.
      status =
          goingAwayStatus != null
              ? goingAwayStatus
              : Status.UNAVAILABLE.withDescription("Connection closed");
    } else if (!outbound) {
      status = Status.INTERNAL.withDescription(http2Ex.getMessage()).withCause(cause);
    }
    // An outbound error on a live connection means the stream is closing already; its close
    // reports why.
    if (status != null) {
      state.fail(status, false);
    }
    super.onStreamError(ctx, outbound, cause, http2Ex);
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
      ClientStreamState state = streams.get(streamId);
      if (state != null) {
        state.onHeaders((GrpcResponseHeaders) headers, endOfStream);
      }
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
      ClientStreamState state = streams.get(streamId);
      if (state == null || state.isClosed()) {
        return data.readableBytes() + padding; // nobody will read it: return the window now
      }
      state.onData(data.retain(), endOfStream);
      return padding;
    }

    @Override
    public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
      ClientStreamState state = streams.get(streamId);
      if (state != null) {
        boolean refused = errorCode == Http2Error.REFUSED_STREAM.code();
        Status status = Http2Statuses.fromRstStream(errorCode);
        if (refused) {
          state.onStreamClosed(status, true);
        } else {
          state.onReset(status);
        }
      }
    }

    @Override
    public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) {
      if (!ready) {
        ready = true;
        transport.onReady(ctx.channel());
        startKeepAlive();
        listener.transportReady();
      }
    }

    @Override
    public void onPingAckRead(ChannelHandlerContext ctx, long data) {
      pings.onAck(data);
    }

    @Override
    public void onGoAwayRead(
        ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
      // Netty does not tell connection listeners of every GOAWAY (not of a first one naming
      // 2^31-1, the start of a graceful shutdown), so the frame itself is handled here too.
      goAwayReceived(lastStreamId, errorCode, debugData);
      closeIfIdle();
    }
  }

  /** Stream life from Netty's connection model. */
  private final class ConnectionListener extends Http2ConnectionAdapter {
    @Override
    public void onStreamClosed(Http2Stream stream) {
      if (streamsBuffered) {
        // The buffering encoder (its listener ran first) just sent a waiting stream's frames,
        // possibly from a write-completion callback that nothing flushes after.
        streamsBuffered = ((StreamBufferingEncoder) encoder()).numBufferedStreams() > 0;
        // This handler's flush, not the context's: it writes the flow-controlled frames too.
        ctx().executor().execute(() -> flush(ctx()));
      }
      ClientStreamState state = streams.remove(stream.id());
      if (state == null) {
        return;
      }
      if (stream.id() > goAwayLastStreamId) {
        state.onStreamClosed(
            Status.UNAVAILABLE.withDescription(
                "Stream refused by the server's GOAWAY (last stream " + goAwayLastStreamId + ")"),
            true);
      } else {
        state.onStreamClosed(
            goingAwayStatus != null
                ? goingAwayStatus
                : Status.UNAVAILABLE.withDescription("HTTP/2 stream closed"),
            false);
      }
      streamDone();
    }

    @Override
    public void onGoAwayReceived(int lastStreamId, long errorCode, ByteBuf debugData) {
      // Before Netty closes the streams above lastStreamId, so they are reported REFUSED.
      goAwayReceived(lastStreamId, errorCode, debugData);
    }
  }
}
