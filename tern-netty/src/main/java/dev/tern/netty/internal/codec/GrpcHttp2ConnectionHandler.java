package dev.tern.netty.internal.codec;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.DefaultHttp2Connection;
import io.netty.handler.codec.http2.DefaultHttp2ConnectionDecoder;
import io.netty.handler.codec.http2.DefaultHttp2ConnectionEncoder;
import io.netty.handler.codec.http2.DefaultHttp2FrameReader;
import io.netty.handler.codec.http2.DefaultHttp2FrameWriter;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.DefaultHttp2LocalFlowController;
import io.netty.handler.codec.http2.DefaultHttp2RemoteFlowController;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameReader;
import io.netty.handler.codec.http2.Http2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.StreamBufferingEncoder;
import io.netty.handler.codec.http2.UniformStreamByteDistributor;
import io.netty.handler.ssl.NotSslRecordException;
import java.io.IOException;
import javax.net.ssl.SSLHandshakeException;

/**
 * What Tern's client and server HTTP/2 handlers share: the codec stack (Tern's headers decoder, a
 * local flow controller that returns stream window only as the application consumes messages, a
 * remote flow controller that shares the peer's window evenly among streams, a connection window of
 * the configured size) and the event-loop bookkeeping.
 *
 * <p>Event loop only, like every Netty handler: subclasses assert {@link #inEventLoop()} at their
 * entry points; other threads reach them through the connection's {@link WriteQueue}.
 */
public abstract class GrpcHttp2ConnectionHandler extends Http2ConnectionHandler {
  /**
   * Stream window is returned once half of it has been consumed (Netty's and grpc-java's ratio).
   */
  private static final float WINDOW_UPDATE_RATIO = 0.5f;

  /**
   * Buckets of the HPACK encoder's index of its dynamic table (Netty's default: 64). gRPC sends a
   * handful of distinct headers on a connection, so 16 buckets find them as fast, and each
   * connection holds two arrays of 16 references instead of 64 (384 bytes less per connection,
   * which matters for servers holding many idle connections).
   */
  private static final int HPACK_ENCODER_BUCKETS = 16;

  /**
   * How many of the streams this side reset most recently are remembered, to ignore the frames the
   * peer sent on them before it saw the reset.
   */
  private static final int REMEMBERED_RESETS = 64;

  /**
   * How many frames of a header block under 8 KiB each (the HEADERS frame and its CONTINUATIONs but
   * the last) are read, by default, before the connection is closed with GOAWAY(ENHANCE_YOUR_CALM).
   * Netty's default of 16 refuses ordinary senders that split a few KiB of metadata into small
   * frames; 512 takes a block of the header-list limit in 256-byte frames several times over, while
   * a flood of empty CONTINUATIONs (which the header-list limit never stops, since they add no
   * bytes) is still cut off within about 4.5 KiB of frames. The block's size stays bounded by the
   * header-list limit.
   */
  public static final int MAX_SMALL_CONTINUATION_FRAMES = 512;

  /**
   * Default bound on control frames (SETTINGS and PING acks, RST_STREAMs) queued for a peer that
   * does not read ({@link ControlFrameLimitWriter}), on either end: 10,000, as in grpc-java.
   */
  public static final int DEFAULT_MAX_QUEUED_CONTROL_FRAMES = 10_000;

  private final int flowControlWindow;
  private boolean connectionWindowSent;

  /** Ids of streams this side reset, a ring of the last {@link #REMEMBERED_RESETS}; lazy. */
  private int[] recentResets;

  private int recentResetsNext;

  /** Set in handlerAdded; read only on the event loop. */
  private ChannelHandlerContext ctx;

  public GrpcHttp2ConnectionHandler(Parts parts, int flowControlWindow) {
    super(parts.decoder, parts.encoder, parts.settings);
    parts.controlFrameLimit.lifecycleManager(this);
    if (parts.headersGuard != null) {
      parts.headersGuard.resetHere(this::wasResetHere);
    }
    this.flowControlWindow = flowControlWindow;
    // Large reads join the unconsumed tail of the last one instead of being copied onto it.
    setCumulator(ReadCumulator.INSTANCE);
    // Streams are closed by the transport before it closes the connection, so Netty need not wait.
    gracefulShutdownTimeoutMillis(0);
    connection()
        .addListener(
            new Http2ConnectionAdapter() {
              @Override
              public void onStreamClosed(Http2Stream stream) {
                if (stream.isResetSent()) {
                  rememberReset(stream.id());
                }
              }
            });
  }

  /** The codec objects a handler is built from; made before the handler (super() needs them). */
  public static final class Parts {
    final Http2ConnectionDecoder decoder;
    final Http2ConnectionEncoder encoder;
    final Http2Settings settings;

    /** Reports each HEADERS and DATA frame written (the server's keepalive policy listens). */
    public final ActivityFrameWriter frameWriter;

    /** Bounds the control frames queued for a peer that does not read. */
    final ControlFrameLimitWriter controlFrameLimit;

    /** A server's check of HEADERS on client streams that are over; null on a client. */
    final ClosedStreamHeadersGuard headersGuard;

    private Parts(
        Http2ConnectionDecoder decoder,
        Http2ConnectionEncoder encoder,
        Http2Settings settings,
        ActivityFrameWriter frameWriter,
        ControlFrameLimitWriter controlFrameLimit,
        ClosedStreamHeadersGuard headersGuard) {
      this.decoder = decoder;
      this.encoder = encoder;
      this.settings = settings;
      this.frameWriter = frameWriter;
      this.controlFrameLimit = controlFrameLimit;
      this.headersGuard = headersGuard;
    }

    /**
     * @param maxHeaderListSize the inbound header-list limit the decoder enforces
     * @param settings the initial SETTINGS to send
     * @param maxQueuedControlFrames how many SETTINGS/PING acks and RST_STREAMs may wait to be
     *     written before the connection is closed with ENHANCE_YOUR_CALM
     * @param maxContinuationFrames how many frames of under 8 KiB one inbound header block may take
     *     before the connection is closed with ENHANCE_YOUR_CALM
     */
    public static Parts create(
        boolean server,
        int flowControlWindow,
        long maxHeaderListSize,
        Http2Settings settings,
        int maxQueuedControlFrames,
        int maxContinuationFrames) {
      Http2Connection connection = new DefaultHttp2Connection(server);
      connection
          .local()
          .flowController(
              new DefaultHttp2LocalFlowController(connection, WINDOW_UPDATE_RATIO, true));
      // gRPC gives streams no HTTP/2 priorities, so the default weighted-fair distributor's
      // per-stream priority-queue state would be bookkeeping for nothing: share the window evenly.
      connection
          .remote()
          .flowController(
              new DefaultHttp2RemoteFlowController(
                  connection, new UniformStreamByteDistributor(connection)));
      Http2HeadersEncoder headersEncoder =
          new DefaultHttp2HeadersEncoder(
              Http2HeadersEncoder.NEVER_SENSITIVE, false, HPACK_ENCODER_BUCKETS);
      ControlFrameLimitWriter controlFrameLimit =
          new ControlFrameLimitWriter(
              new OneBufferDataWriter(
                  new OneBufferHeadersWriter(
                      new DefaultHttp2FrameWriter(headersEncoder), headersEncoder)),
              maxQueuedControlFrames);
      ActivityFrameWriter frameWriter = new ActivityFrameWriter(controlFrameLimit);
      Http2ConnectionEncoder encoder = new DefaultHttp2ConnectionEncoder(connection, frameWriter);
      if (!server) {
        // Holds streams beyond the server's MAX_CONCURRENT_STREAMS until others finish.
        encoder = new StreamBufferingEncoder(encoder);
      }
      Http2FrameReader frameReader =
          new DefaultHttp2FrameReader(
              new GrpcHttp2HeadersDecoder(server, maxHeaderListSize), maxContinuationFrames);
      ClosedStreamHeadersGuard headersGuard = null;
      if (server) {
        headersGuard = new ClosedStreamHeadersGuard(frameReader, connection);
        frameReader = headersGuard;
      }
      Http2ConnectionDecoder decoder =
          new DefaultHttp2ConnectionDecoder(connection, encoder, frameReader);
      settings.initialWindowSize(flowControlWindow);
      return new Parts(decoder, encoder, settings, frameWriter, controlFrameLimit, headersGuard);
    }
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
    this.ctx = ctx;
    super.handlerAdded(ctx);
    maybeSendConnectionWindow();
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    super.channelActive(ctx);
    maybeSendConnectionWindow();
  }

  /** Widens the connection window from HTTP/2's 64 KiB to the configured size, once. */
  private void maybeSendConnectionWindow() throws Http2Exception {
    if (connectionWindowSent || !ctx.channel().isActive()) {
      return;
    }
    connectionWindowSent = true;
    Http2Stream connectionStream = connection().connectionStream();
    int delta =
        flowControlWindow - connection().local().flowController().windowSize(connectionStream);
    if (delta > 0) {
      connection().local().flowController().incrementWindowSize(connectionStream, delta);
      ctx.flush();
    }
  }

  /**
   * The connection-level flow-control windows, for channelz: what the peer lets this side send,
   * then what this side lets the peer send. Event loop only.
   */
  public final long[] flowControlWindows() {
    Http2Stream connectionStream = connection().connectionStream();
    return new long[] {
      connection().remote().flowController().windowSize(connectionStream),
      connection().local().flowController().windowSize(connectionStream)
    };
  }

  /**
   * Closes the connection on an I/O or TLS failure, which the network makes ordinary, logging one
   * FINE line instead of letting it reach the end of the pipeline (where Netty logs a WARNING and a
   * stack trace). HTTP/2 errors and anything else keep Netty's handling.
   */
  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
    IOException network = NetworkFailures.ioFailure(cause);
    if (network == null) {
      super.exceptionCaught(ctx, cause);
      return;
    }
    // A failed handshake was logged (server) or became the calls' status (client) when the TLS
    // handler reported it, just before this.
    if (!(network instanceof SSLHandshakeException || network instanceof NotSslRecordException)) {
      NetworkFailures.log(ctx, "closed", network);
    }
    onNetworkFailure(ctx, network);
    ctx.close();
  }

  /**
   * Ignores a frame on a stream this side reset, once the stream is gone: the peer sent it before
   * it saw the RST_STREAM, and RFC 9113 (section 5.1) says such frames are ignored. Netty would
   * answer each with a RST_STREAM (STREAM_CLOSED) of its own; a DATA frame's bytes have been
   * counted against the connection's window and given back already. A frame on a stream that ended
   * without a reset from this side, or reset longer ago than the last {@value #REMEMBERED_RESETS},
   * still gets Netty's answer.
   */
  @Override
  protected void onStreamError(
      ChannelHandlerContext ctx,
      boolean outbound,
      Throwable cause,
      Http2Exception.StreamException http2Ex) {
    if (!outbound) {
      openStreamRefusedWhileDecoding(http2Ex.streamId());
    }
    if (isLateFrameOnResetStream(outbound, http2Ex)) {
      return;
    }
    super.onStreamError(ctx, outbound, cause, http2Ex);
  }

  /**
   * Gives a stream the peer opened with a HEADERS frame that failed to decode (malformed
   * pseudo-headers, say) a place in Netty's stream model before it is reset. Netty reports that
   * error before it creates the stream, so the id would stay above the last stream the peer opened,
   * and every later frame the peer sent on it before seeing the RST_STREAM (the rest of the call's
   * DATA, a WINDOW_UPDATE, its own RST_STREAM) would be taken for a frame on a stream that was
   * never opened: a connection error (RFC 9113 section 5.1.1) ending every call on the connection.
   * Once created (half-closed, then reset by the caller), those frames are ignored like those of
   * any stream reset here, and DATA's bytes are given back to the connection's window. Ids the peer
   * never used stay idle, so frames on them remain a connection error.
   */
  private void openStreamRefusedWhileDecoding(int streamId) {
    Http2Connection.Endpoint<?> peer = connection().remote();
    if (connection().stream(streamId) != null
        || !peer.isValidStreamId(streamId)
        || streamId <= peer.lastStreamCreated()) {
      return;
    }
    try {
      peer.createStream(streamId, true);
    } catch (Http2Exception e) {
      // Over the concurrent-stream limit or after GOAWAY: Netty resets the id without a stream.
    }
  }

  /** Whether {@link #onStreamError} ignores this error: a late frame on a stream reset here. */
  protected final boolean isLateFrameOnResetStream(
      boolean outbound, Http2Exception.StreamException e) {
    int id = e.streamId();
    return !outbound
        && e.error() == Http2Error.STREAM_CLOSED
        && connection().stream(id) == null
        && wasResetHere(id);
  }

  private void rememberReset(int streamId) {
    if (recentResets == null) {
      recentResets = new int[REMEMBERED_RESETS];
    }
    recentResets[recentResetsNext] = streamId;
    recentResetsNext = (recentResetsNext + 1) % REMEMBERED_RESETS;
  }

  private boolean wasResetHere(int streamId) {
    if (recentResets == null || streamId <= 0) {
      return false;
    }
    for (int id : recentResets) {
      if (id == streamId) {
        return true;
      }
    }
    return false;
  }

  /**
   * When the channel has closed because a write failed with an I/O error (the peer reset the
   * connection while this side was writing, which Netty does not report to exceptionCaught), logs
   * it as exceptionCaught would and tells {@link #onNetworkFailure}. Call first in channelInactive.
   * Netty keeps the failure as the cause of the error a write on the closed channel gets: a write
   * of nothing asks for it.
   */
  protected final void noteWriteFailure(ChannelHandlerContext ctx) {
    if (ctx.channel().isOpen()) {
      return;
    }
    ChannelPromise probe = ctx.newPromise();
    ctx.channel().unsafe().write(Unpooled.EMPTY_BUFFER, probe);
    Throwable closed = probe.cause();
    IOException failure = closed != null ? NetworkFailures.ioFailure(closed.getCause()) : null;
    if (failure != null) {
      NetworkFailures.log(ctx, "closed", failure);
      onNetworkFailure(ctx, failure);
    }
  }

  /** Called with an I/O or TLS failure just before the connection is closed for it. */
  protected void onNetworkFailure(ChannelHandlerContext ctx, IOException failure) {}

  /** The handler's context; valid once added to a pipeline. */
  public final ChannelHandlerContext ctx() {
    return ctx;
  }

  /** Whether the caller runs on this connection's event loop. */
  public final boolean inEventLoop() {
    return ctx == null || ctx.executor().inEventLoop();
  }

  /**
   * Returns {@code numBytes} of stream {@code streamId}'s window to the peer: the application has
   * consumed them. Ignored for a stream already gone.
   *
   * @return whether a WINDOW_UPDATE was written (not flushed)
   */
  public final boolean returnBytes(int streamId, int numBytes) {
    if (streamId <= 0 || numBytes <= 0) {
      return false;
    }
    Http2Stream stream = connection().stream(streamId);
    if (stream == null) {
      return false;
    }
    try {
      return connection().local().flowController().consumeBytes(stream, numBytes);
    } catch (Http2Exception e) {
      onError(ctx, false, e);
      return false;
    }
  }
}
