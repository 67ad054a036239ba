package dev.tern.netty.internal.http2;

import static dev.tern.netty.internal.http2.Http2FrameException.ENHANCE_YOUR_CALM;
import static dev.tern.netty.internal.http2.Http2FrameException.NO_ERROR;
import static dev.tern.netty.internal.http2.Http2FrameException.PROTOCOL_ERROR;
import static dev.tern.netty.internal.http2.Http2FrameException.SETTINGS_TIMEOUT;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * One HTTP/2 connection (RFC 9113), client or server side, made for gRPC: it drives the {@link
 * Http2FrameReader}, HPACK and the {@link Http2FrameWriter}, keeps the streams' state machines
 * ({@link Http2Stream}, {@link Http2Streams}) and flow control ({@link Http2ReceiveWindow}, {@link
 * Http2Outbound}), and reports to an {@link Http2ConnectionListener}.
 *
 * <p>Bytes in, bytes out: {@link #receive} consumes what the socket read and writes every answer
 * (SETTINGS and PING acknowledgements, WINDOW_UPDATEs, RST_STREAMs, GOAWAY, queued DATA that got
 * credit) into the one buffer the caller passes; the send methods write into the buffer given the
 * same way. The caller writes and flushes that buffer; nothing here holds a promise.
 *
 * <p>Errors never escape as exceptions: a stream error is answered with RST_STREAM (and {@link
 * Http2ConnectionListener#onStreamReset}), a connection error with GOAWAY and {@link
 * Http2ConnectionListener#onConnectionClosed}, after which everything received is discarded. Misuse
 * by the transport (sending on a stream it ended, opening streams as a server) is an {@link
 * IllegalStateException}.
 *
 * <p>Limits ({@link Http2Limits}, docs/security.md): SETTINGS_MAX_CONCURRENT_STREAMS
 * (REFUSED_STREAM beyond it), header block and header list sizes, the queued DATA per stream and
 * per connection, and {@link Http2FloodGuard}'s counts of control frames without work and of
 * resets. The SETTINGS acknowledgement timeout is the transport's timer: it calls {@link
 * #settingsAckTimedOut} while {@link #awaitingSettingsAck} is true.
 *
 * <p>Threads: one connection belongs to one event loop; not thread-safe.
 */
public final class Http2Connection {
  static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(US_ASCII);

  /** The opaque data of the PING that separates the two GOAWAYs of a graceful shutdown. */
  public static final long SHUTDOWN_PING = 0x7465_726e_2d67_6f61L;

  private static final HeaderSink DISCARD = (name, value, sensitive) -> {};

  final boolean server;
  final Http2Limits limits;
  final Http2ConnectionListener listener;
  final Http2FrameReader reader;
  final HpackDecoder decoder;
  final Http2Streams streams;
  final Http2Outbound outbound;
  final Http2ReceiveWindow connectionReceiveWindow;
  final Http2FloodGuard guard;
  private final Http2InboundFrames inbound;

  private int prefaceBytes;
  boolean peerSettingsReceived;
  int unackedSettings;
  long peerInitialWindowSize = 65_535;
  long peerMaxConcurrentStreams = Long.MAX_VALUE;
  boolean goAwaySent;
  int goAwayLastStreamId = Integer.MAX_VALUE;
  boolean shutdownPingSent;
  boolean goAwayReceived;
  private boolean closed;

  /** The buffer answers go into, during a call. */
  ByteBuf out;

  /**
   * @param nanoClock {@link System#nanoTime} or a test's clock, for the reset-rate window
   */
  public Http2Connection(
      boolean server,
      Http2Limits limits,
      Http2ConnectionListener listener,
      LongSupplier nanoClock) {
    this.server = server;
    this.limits = limits;
    this.listener = listener;
    this.reader =
        new Http2FrameReader(limits.maxHeaderBlockBytes(), limits.maxContinuationFrames());
    this.decoder =
        new HpackDecoder(limits.maxHeaderListSize(), HpackDecoder.DEFAULT_HEADER_TABLE_SIZE);
    this.streams = new Http2Streams(server);
    this.outbound = new Http2Outbound(this);
    this.connectionReceiveWindow = new Http2ReceiveWindow(0, 65_535, limits.connectionWindowSize());
    this.guard =
        new Http2FloodGuard(
            limits.maxControlFramesWithoutWork(),
            limits.maxResetsPerWindow(),
            limits.resetWindowNanos(),
            nanoClock);
    this.inbound = new Http2InboundFrames(this);
  }

  /**
   * Lets large DATA payloads leave without being copied into the buffer of a flush (see {@link
   * Http2FrameWriter#SPLICE_MIN_BYTES}); without one, every payload is copied.
   */
  public void setDataSplicer(Http2DataSplicer splicer) {
    outbound.writer().setDataSplicer(splicer);
  }

  /**
   * Writes this side's connection preface: the client's magic string, then SETTINGS (and a
   * WINDOW_UPDATE raising the connection's receive window).
   */
  public void start(ByteBuf out) {
    if (!server) {
      out.writeBytes(PREFACE);
    }
    Http2Settings settings = new Http2Settings();
    if (!server) {
      settings.set(Http2Settings.ENABLE_PUSH, 0);
    }
    settings
        .set(Http2Settings.MAX_CONCURRENT_STREAMS, limits.maxConcurrentStreams())
        .set(Http2Settings.INITIAL_WINDOW_SIZE, limits.initialWindowSize())
        .set(Http2Settings.MAX_HEADER_LIST_SIZE, limits.maxHeaderListSize());
    if (limits.maxFrameSize() != Http2Frames.DEFAULT_MAX_FRAME_SIZE) {
      settings.set(Http2Settings.MAX_FRAME_SIZE, limits.maxFrameSize());
    }
    outbound.writer().writeSettings(out, settings);
    unackedSettings++;
    int increment = connectionReceiveWindow.initialIncrement();
    if (increment > 0) {
      outbound.writer().writeWindowUpdate(out, 0, increment);
    }
  }

  /**
   * Reads every readable byte of {@code in} (not released) and writes the answers into {@code out}.
   */
  public void receive(ByteBuf in, ByteBuf out) {
    if (closed) {
      in.skipBytes(in.readableBytes());
      return;
    }
    ByteBuf saved = this.out;
    this.out = out;
    try {
      if (server && prefaceBytes < PREFACE.length && !readPreface(in)) {
        return;
      }
      while (true) {
        try {
          reader.read(in, inbound);
          return;
        } catch (Http2FrameException e) {
          if (e.connectionError()) {
            fail(e.errorCode(), e.getMessage());
            in.skipBytes(in.readableBytes());
            return;
          }
          streamError(e);
          if (closed) {
            // The stream error was one too many (a reset flood): nothing after it is read.
            in.skipBytes(in.readableBytes());
            return;
          }
        }
      }
    } finally {
      this.out = saved;
    }
  }

  private boolean readPreface(ByteBuf in) {
    while (prefaceBytes < PREFACE.length && in.isReadable()) {
      if (in.readByte() != PREFACE[prefaceBytes]) {
        fail(PROTOCOL_ERROR, "not an HTTP/2 client preface (byte " + prefaceBytes + " differs)");
        in.skipBytes(in.readableBytes());
        return false;
      }
      prefaceBytes++;
    }
    return prefaceBytes == PREFACE.length;
  }

  /** Whether {@link #openStream} may be called now (a client, below the peer's stream limit). */
  public boolean canOpenStream() {
    return !server
        && !closed
        && !goAwaySent
        && !goAwayReceived
        && streams.nextLocalStreamId() > 0
        && streams.activeLocalStreams() < peerMaxConcurrentStreams;
  }

  /**
   * A client's new stream: writes its HEADERS ({@code fields} alternates names and values).
   *
   * @param attachment the transport's state for the stream ({@link Http2Stream#attach})
   * @return the stream's id
   * @throws IllegalStateException unless {@link #canOpenStream()}
   */
  public int openStream(ByteBuf out, byte[][] fields, boolean endStream, Object attachment) {
    if (!canOpenStream()) {
      throw new IllegalStateException(
          server ? "a server does not open streams" : "no stream can be opened now");
    }
    Http2Stream stream =
        new Http2Stream(
            streams.nextLocalStreamId(), peerInitialWindowSize, limits.initialWindowSize());
    stream.attach(attachment);
    streams.addLocalStream(stream);
    outbound.writeHeaders(out, stream, fields, endStream);
    return stream.id;
  }

  /**
   * HEADERS on a stream: response headers, or with {@code endStream} trailers (written after the
   * DATA still waiting for credit).
   *
   * @return false if the stream is no longer active (reset or closed): nothing was written
   */
  public boolean sendHeaders(ByteBuf out, int streamId, byte[][] fields, boolean endStream) {
    Http2Stream stream = streams.get(streamId);
    if (stream == null || closed) {
      return false;
    }
    ByteBuf saved = this.out;
    this.out = out;
    try {
      if (endStream) {
        outbound.sendEndingHeaders(out, stream, fields);
      } else {
        outbound.writeHeaders(out, stream, fields, false);
      }
    } finally {
      this.out = saved;
    }
    return true;
  }

  /**
   * DATA on a stream, taking ownership of {@code data}: written as far as both send windows allow,
   * the rest queued until the peer gives credit. Beyond the queue limits the stream is reset
   * (ENHANCE_YOUR_CALM, reported to {@link Http2ConnectionListener#onStreamReset}) or the
   * connection ends.
   *
   * @return false if the stream is no longer active: {@code data} was released, nothing written
   */
  public boolean sendData(ByteBuf out, int streamId, ByteBuf data, boolean endStream) {
    Http2Stream stream = streams.get(streamId);
    if (stream == null || closed) {
      data.release();
      return false;
    }
    ByteBuf saved = this.out;
    this.out = out;
    try {
      outbound.sendData(out, stream, data, endStream);
      if (stream.queuedBytes > limits.maxQueuedBytesPerStream()) {
        resetLocally(stream, ENHANCE_YOUR_CALM, true);
      } else if (outbound.queuedBytes() > limits.maxQueuedBytesPerConnection()) {
        fail(
            ENHANCE_YOUR_CALM,
            "more than " + limits.maxQueuedBytesPerConnection() + " bytes waiting for the peer");
      }
    } finally {
      this.out = saved;
    }
    return true;
  }

  /**
   * Whether this side has yet to end a stream (it is active, and no END_STREAM of this side's was
   * written or queued): a client whose call the server ended early resets it then.
   */
  public boolean isLocalOpen(int streamId) {
    Http2Stream stream = streams.get(streamId);
    return stream != null && stream.localOpen();
  }

  /**
   * Whether the peer sent GOAWAY. True already while the streams it refused are reported to {@link
   * Http2ConnectionListener#onStreamReset}, before {@link Http2ConnectionListener#onGoAway}.
   */
  public boolean goAwayReceived() {
    return goAwayReceived;
  }

  /** DATA of a stream waiting for send credit (0 for a stream that is not active). */
  public long queuedBytes(int streamId) {
    Http2Stream stream = streams.get(streamId);
    return stream == null ? 0 : stream.queuedBytes;
  }

  /**
   * The application took {@code bytes} of a stream's DATA (the {@code flowControlled} counts of
   * {@link Http2ConnectionListener#onData}): WINDOW_UPDATEs are written once half a window is due.
   */
  public void consumed(ByteBuf out, int streamId, int bytes) {
    Http2Stream stream = streams.get(streamId);
    if (closed || stream == null) {
      return; // a closed stream gave its unconsumed bytes back when it closed
    }
    int increment = connectionReceiveWindow.consumed(bytes);
    if (increment > 0) {
      outbound.writer().writeWindowUpdate(out, 0, increment);
    }
    if (stream.remoteOpen()) {
      increment = stream.receiveWindow.consumed(bytes);
      if (increment > 0) {
        outbound.writer().writeWindowUpdate(out, streamId, increment);
      }
    }
  }

  /**
   * The header block just received on {@code streamId}, without END_STREAM, was an informational
   * (1xx) response, which a client skips (RFC 9113 section 8.1): the stream's next block is its
   * response's head again, not its trailers.
   */
  public void informationalResponse(int streamId) {
    Http2Stream stream = streams.get(streamId);
    if (stream != null) {
      stream.informationalResponse();
    }
  }

  /** Resets a stream (a cancelled call): RST_STREAM, its queue dropped, no listener call. */
  public void resetStream(ByteBuf out, int streamId, long errorCode) {
    Http2Stream stream = streams.get(streamId);
    if (stream == null || closed) {
      return;
    }
    ByteBuf saved = this.out;
    this.out = out;
    try {
      resetLocally(stream, errorCode, false);
    } finally {
      this.out = saved;
    }
  }

  /**
   * Resets a stream whose request the transport found malformed (RFC 9113 section 8.1.1): a stream
   * error of the peer's making, so it counts toward the reset limit of {@link Http2FloodGuard} like
   * the errors this connection finds itself, and {@link Http2ConnectionListener#onStreamReset}
   * follows.
   */
  public void rejectStream(ByteBuf out, int streamId, long errorCode, String reason) {
    if (closed) {
      return;
    }
    ByteBuf saved = this.out;
    this.out = out;
    try {
      streamError(Http2FrameException.stream(streamId, errorCode, reason));
    } finally {
      this.out = saved;
    }
  }

  /** A PING; its answer comes to {@link Http2ConnectionListener#onPingAck}. */
  public void ping(ByteBuf out, long data) {
    if (!closed) {
      outbound.writer().writePing(out, data, false);
    }
  }

  /**
   * Begins a graceful shutdown. A server sends GOAWAY with the largest stream id and a PING; when
   * the PING's answer shows the client has seen it, a second GOAWAY names the last stream that will
   * be processed, and newer streams are ignored (RFC 9113 section 6.8). A client sends one GOAWAY.
   * Once no stream is active, {@link Http2ConnectionListener#onConnectionClosed} follows.
   */
  public void shutdown(ByteBuf out) {
    if (closed || goAwaySent) {
      return;
    }
    ByteBuf saved = this.out;
    this.out = out;
    try {
      goAwaySent = true;
      if (server) {
        writeGoAway(Integer.MAX_VALUE, NO_ERROR, "");
        outbound.writer().writePing(out, SHUTDOWN_PING, false);
        shutdownPingSent = true;
      } else {
        goAwayLastStreamId = streams.lastPeerStreamId();
        writeGoAway(goAwayLastStreamId, NO_ERROR, "");
        maybeFinish();
      }
    } finally {
      this.out = saved;
    }
  }

  /**
   * Ends a server's graceful shutdown without waiting longer for its PING's answer (the transport's
   * grace period ran out): the second GOAWAY names the last stream taken now. Nothing happens
   * unless {@link #shutdown} started a shutdown that is still waiting for that answer.
   */
  public void finishShutdown(ByteBuf out) {
    if (closed || !shutdownPingSent) {
      return;
    }
    ByteBuf saved = this.out;
    this.out = out;
    try {
      sendFinalGoAway();
    } finally {
      this.out = saved;
    }
  }

  /**
   * Ends the connection at once for the transport's own reason (shutdownNow, a keepalive failure, a
   * limit of its own): GOAWAY with {@code errorCode} and {@code reason} naming the last stream
   * taken, every active stream reported reset, then {@link
   * Http2ConnectionListener#onConnectionClosed}.
   */
  public void goAway(ByteBuf out, long errorCode, String reason) {
    ByteBuf saved = this.out;
    this.out = out;
    try {
      fail(errorCode, reason);
    } finally {
      this.out = saved;
    }
  }

  /**
   * The connection's flow-control windows, for channelz: what this side may still send, and what
   * the peer may still send, in bytes.
   */
  public long[] connectionWindows() {
    return new long[] {outbound.connectionWindow.available(), connectionReceiveWindow.available()};
  }

  /** Whether this side's SETTINGS await their acknowledgement. */
  public boolean awaitingSettingsAck() {
    return unackedSettings > 0;
  }

  /** The transport's timer found the SETTINGS unacknowledged too long: GOAWAY(SETTINGS_TIMEOUT). */
  public void settingsAckTimedOut(ByteBuf out) {
    if (closed || unackedSettings == 0) {
      return;
    }
    ByteBuf saved = this.out;
    this.out = out;
    try {
      fail(SETTINGS_TIMEOUT, "SETTINGS not acknowledged in time");
    } finally {
      this.out = saved;
    }
  }

  /** Whether the connection is over (a connection error, or a finished graceful shutdown). */
  public boolean isClosed() {
    return closed;
  }

  /**
   * The active streams, both sides', now: a copy, for the transport's rare walks over them (a
   * shutdown, the channel gone), during which they may close.
   */
  public List<Http2Stream> streams() {
    return streams.active();
  }

  /** Active streams, both sides'. */
  public int activeStreams() {
    return streams.activePeerStreams() + streams.activeLocalStreams();
  }

  /** Releases every buffer held (a partial frame, queued DATA); the channel is gone. */
  public void close() {
    closed = true;
    reader.close();
    outbound.close(streams.active());
  }

  // What Http2InboundFrames and Http2Outbound call back.

  /** A stream error: RST_STREAM, counted as a reset the peer caused unless it did not. */
  void streamError(Http2FrameException e) {
    if (e.counted()) {
      try {
        guard.reset();
      } catch (Http2FrameException flood) {
        fail(flood.errorCode(), flood.getMessage());
        return;
      }
    }
    Http2Stream stream = streams.get(e.streamId());
    if (stream != null) {
      resetLocally(stream, e.errorCode(), true);
    } else {
      outbound.writer().writeRstStream(out, e.streamId(), e.errorCode());
      streams.rememberReset(e.streamId());
    }
  }

  private void resetLocally(Http2Stream stream, long errorCode, boolean notify) {
    outbound.writer().writeRstStream(out, stream.id, errorCode);
    leave(stream, true);
    if (notify) {
      listener.onStreamReset(stream, errorCode, false);
    }
    closed(stream);
    maybeFinish();
  }

  /** A stream closed (or reset): its queue dropped, it leaves the active streams. */
  void forget(Http2Stream stream, boolean resetHere) {
    leave(stream, resetHere);
    closed(stream);
    maybeFinish();
  }

  /**
   * The first half of {@link #forget}, for a reset (or a GOAWAY's refusal), whose listener must
   * hear why the stream ended (a refusal is safe to retry) between the two halves; the caller then
   * calls {@link #closed} and {@link #maybeFinish} (which may end a connection that has gone away
   * once this was its last stream).
   */
  void leave(Http2Stream stream, boolean resetHere) {
    outbound.forget(stream);
    giveBackUnconsumed(stream);
    stream.close();
    streams.remove(stream, resetHere);
  }

  /** The stream's last event: the listener hears it closed, and its attachment is cleared. */
  void closed(Http2Stream stream) {
    listener.onStreamClosed(stream);
    stream.attach(null);
  }

  /**
   * A stream is closing: the DATA its reader received and did not consume goes back to the
   * connection's window now, since nobody will consume it (a reader that stopped at an oversized
   * message, a response that ended before the request). Its later {@link #consumed} calls are
   * ignored.
   */
  private void giveBackUnconsumed(Http2Stream stream) {
    int bytes = stream.receiveWindow.takeUnconsumed();
    if (bytes > 0 && !closed && out != null) {
      int increment = connectionReceiveWindow.consumed(bytes);
      if (increment > 0) {
        outbound.writer().writeWindowUpdate(out, 0, increment);
      }
    }
  }

  /** A connection error: GOAWAY, every stream reset, the listener told, the rest discarded. */
  void fail(long errorCode, String reason) {
    if (closed) {
      return;
    }
    closed = true;
    writeGoAway(streams.lastPeerStreamId(), errorCode, reason);
    for (Http2Stream stream : streams.active()) {
      outbound.forget(stream);
      stream.close();
      streams.remove(stream, true);
      listener.onStreamReset(stream, errorCode, false);
      closed(stream);
    }
    reader.stop();
    listener.onConnectionClosed(errorCode, reason);
  }

  void writeGoAway(int lastStreamId, long errorCode, String reason) {
    byte[] debug = reason.getBytes(UTF_8);
    outbound
        .writer()
        .writeGoAway(
            out,
            lastStreamId,
            errorCode,
            Unpooled.wrappedBuffer(debug, 0, Math.min(debug.length, 256)));
  }

  /** The second GOAWAY of a server's graceful shutdown, naming the last stream taken. */
  void sendFinalGoAway() {
    shutdownPingSent = false;
    goAwayLastStreamId = streams.lastPeerStreamId();
    writeGoAway(goAwayLastStreamId, NO_ERROR, "");
    maybeFinish();
  }

  /** Ends a graceful shutdown once the last stream closed. */
  void maybeFinish() {
    if (!closed && (goAwaySent || goAwayReceived) && !shutdownPingSent && activeStreams() == 0) {
      closed = true;
      reader.close();
      listener.onConnectionClosed(NO_ERROR, "graceful shutdown complete");
    }
  }

  /** Decodes a header block nobody will see, to keep HPACK in step with the peer. */
  void discard(ByteBuf block) throws Http2FrameException {
    try {
      decoder.decode(block, DISCARD);
    } catch (HpackException e) {
      if (e.connectionError()) {
        throw Http2FrameException.connection(Http2FrameException.COMPRESSION_ERROR, e.getMessage());
      }
    }
  }
}
