package dev.tern.netty.internal.client;

import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.netty.internal.codec.GrpcHttp2ConnectionHandler;
import dev.tern.netty.internal.codec.GrpcResponseHeaders;
import dev.tern.netty.internal.codec.KeepAlivePinger;
import dev.tern.netty.internal.codec.OutboundHeaders;
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
import io.netty.util.AsciiString;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.logging.Logger;

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
final class ClientHandler extends GrpcHttp2ConnectionHandler implements ClientConnection {
  private static final Logger logger = Logger.getLogger(ClientHandler.class.getName());

  private final NettyClientTransport transport;
  private final IntObjectMap<ClientStreamState> streams = new IntObjectHashMap<>();
  private final long maxInboundMetadataSize;

  /** Whether the encoder may hold streams waiting for a free slot (see onStreamClosed). */
  private boolean streamsBuffered;

  /** Streams above this id were refused by the server's GOAWAY. */
  private int goAwayLastStreamId = Integer.MAX_VALUE;

  private final PingTracker pings = new PingTracker();
  private final ClientLifecycle life;

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
    this.life = new ClientLifecycle(transport, listener, options, pings);
    this.maxInboundMetadataSize = options.maxInboundMetadataSize();
    decoder().frameListener(new FrameListener());
    connection().addListener(new ConnectionListener());
  }

  // ---------------------------------------------------------------- for the streams

  @Override
  public Runnable prepareStream(
      ClientStreamState state,
      AsciiString scheme,
      AsciiString path,
      AsciiString authority,
      AsciiString userAgent,
      Metadata headers) {
    Http2Headers http2Headers =
        OutboundHeaders.request(scheme, path, authority, userAgent, headers);
    return () -> createStream(state, http2Headers);
  }

  /** Opens the HTTP/2 stream of {@code state} by writing its request headers. */
  private void createStream(ClientStreamState state, Http2Headers headers) {
    assert inEventLoop();
    if (state.isClosed()) {
      return; // cancelled while queued
    }
    if (life.isReady() && !life.closing && !ctx().channel().isActive()) {
      // The connection just closed and channelInactive has yet to run: tell the runtime first, as
      // channelInactive would, so that this call, retried, does not pick this transport again.
      life.notifyShutdown(life.closedStatus());
    }
    if (life.closing || !life.isReady() || !ctx().channel().isActive()) {
      state.onNotStarted(life.notStartedStatus(), RpcProgress.DROPPED);
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
    life.streamStarted();
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
          life.goingAwayStatus != null
              ? life.goingAwayStatus
              : Status.UNAVAILABLE.withDescription("failed to send request headers");
      state.onNotStarted(status.withCause(cause), RpcProgress.PROCESSED);
    }
    streamDone();
  }

  @Override
  public void sendData(
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

  @Override
  public void resetStream(ClientStreamState state) {
    int id = state.id();
    if (id <= 0) {
      return;
    }
    Http2Stream stream = connection().stream(id);
    if (stream != null && stream.state() != Http2Stream.State.CLOSED) {
      resetStream(ctx(), id, Http2Error.CANCEL.code(), ctx().newPromise());
    } else if (stream == null && streams.remove(id) != null) {
      // Still buffered by the encoder (over MAX_CONCURRENT_STREAMS): drop it there, through the
      // encoder, which sends nothing for it. The handler's resetStream would write a RST_STREAM
      // for a stream whose HEADERS the server has not seen, which the server must treat as a
      // connection error (RFC 9113 section 6.4; found by issue 37's overload runs).
      encoder().writeRstStream(ctx(), id, Http2Error.CANCEL.code(), ctx().newPromise());
      streamDone();
    }
  }

  @Override
  public void onEndOfStreamReceived(ClientStreamState state) {
    Http2Stream stream = connection().stream(state.id());
    if (stream != null && stream.state() == Http2Stream.State.OPEN) {
      resetStream(ctx(), state.id(), Http2Error.CANCEL.code(), ctx().newPromise());
    }
  }

  @Override
  public void consumed(int streamId, int bytes) {
    returnBytes(streamId, bytes);
  }

  @Override
  public SocketNode socketNode() {
    return transport.socketNode();
  }

  // ---------------------------------------------------------------- for the transport

  @Override
  public void ping(PingCallback callback, Executor executor) {
    assert inEventLoop();
    if (life.refusePing(callback, executor)) {
      return;
    }
    pings.ping(this::writePing, callback, executor);
  }

  private void writePing(long payload) {
    ChannelPromise promise = ctx().newPromise();
    promise.addListener(
        f -> {
          if (!f.isSuccess()) {
            pings.failAll(
                Status.UNAVAILABLE.withDescription("failed to send PING").withCause(f.cause()));
          }
        });
    encoder().writePing(ctx(), false, payload, promise);
  }

  @Override
  public void startShutdown(Status status) {
    assert inEventLoop();
    life.shutdownRequested(status);
    closeIfIdle();
  }

  @Override
  public void shutdownNow(Status status) {
    assert inEventLoop();
    startShutdown(status);
    life.goingAwayStatus = status;
    List<ClientStreamState> open = new ArrayList<>(streams.values());
    for (ClientStreamState state : open) {
      cancelStream(state, status);
    }
    ctx().close();
  }

  @Override
  public void connectFailed(Throwable cause) {
    life.connectFailed(cause);
  }

  private void closeIfIdle() {
    if (life.closing && !life.hasActiveStreams() && ctx() != null) {
      ctx().close();
    }
  }

  private void streamDone() {
    if (life.streamDone()) {
      closeIfIdle();
    }
  }

  private void goAwayReceived(int lastStreamId, long errorCode, ByteBuf debugData) {
    goAwayLastStreamId = Math.min(goAwayLastStreamId, lastStreamId);
    life.goAwayReceived(errorCode, debugData.toString(StandardCharsets.UTF_8));
  }

  // ---------------------------------------------------------------- channel events

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    noteWriteFailure(ctx);
    Status goingAwayStatus = life.channelClosed(ctx);
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
      life.noStreams();
      life.notifyTerminated();
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    life.onRead();
    super.channelRead(ctx, msg);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    life.tlsEvent(ctx, evt);
    super.userEventTriggered(ctx, evt);
  }

  @Override
  protected void onNetworkFailure(ChannelHandlerContext ctx, IOException failure) {
    life.networkFailure(ctx, failure);
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
      status = life.closedStatus();
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
      life.ready(
          ctx, () -> encoder().writePing(ctx, false, KeepAlivePinger.PAYLOAD, ctx.newPromise()));
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
            life.goingAwayStatus != null
                ? life.goingAwayStatus
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
