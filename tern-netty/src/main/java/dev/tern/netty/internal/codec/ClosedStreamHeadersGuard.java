package dev.tern.netty.internal.codec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameListener;
import io.netty.handler.codec.http2.Http2FrameListenerDecorator;
import io.netty.handler.codec.http2.Http2FrameReader;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import java.util.function.IntPredicate;

/**
 * The server's frame reader, which gives a client's HEADERS frame on one of its streams that is
 * over the error RFC 9113 requires, where Netty answers it with another:
 *
 * <ul>
 *   <li>on a stream the client half-closed, still open on the server's side (section 5.1,
 *       half-closed (remote)): the stream error STREAM_CLOSED, where Netty says PROTOCOL_ERROR when
 *       the client's END_STREAM came on its HEADERS;
 *   <li>on an id below one the client used already, which it never used (section 5.1.1: new stream
 *       ids only grow): the connection error PROTOCOL_ERROR, where Netty resets the stream;
 *   <li>on a stream that ended normally, so after the client's END_STREAM (section 5.1, closed:
 *       "any frames after receiving a frame with the END_STREAM flag set"): the connection error
 *       STREAM_CLOSED, where Netty resets the stream.
 * </ul>
 *
 * <p>HEADERS on a stream this side reset recently (as the connection handler remembers) stay a late
 * frame the client sent before it saw the reset, which Netty ignores; so do those on a stream
 * created after a GOAWAY this side sent. Only HEADERS are judged: late DATA, WINDOW_UPDATE and
 * RST_STREAM frames are ordinary on a busy connection (they cross the server's reset or END_STREAM
 * in flight) and keep Netty's stream-level handling. The ids a client skipped are remembered as the
 * last {@value #REMEMBERED_GAPS} ranges; an older skipped id counts as a closed stream, still a
 * connection error, with STREAM_CLOSED instead of PROTOCOL_ERROR.
 *
 * <p>Not thread-safe: one per connection, used on its event loop.
 */
final class ClosedStreamHeadersGuard implements Http2FrameReader {
  /** Ranges of skipped stream ids remembered: well-behaved clients skip none. */
  static final int REMEMBERED_GAPS = 16;

  private final Http2FrameReader delegate;
  private final Http2Connection connection;

  /**
   * Skipped id ranges, pairs of first and last, a ring of {@link #REMEMBERED_GAPS}; null until the
   * first gap, so that the connections of well-behaved clients do not hold it.
   */
  private int[] gaps;

  private int gapCount;
  private int nextGap;

  /** The highest client stream id seen in a HEADERS frame; -1 before the first. */
  private int highestSeen = -1;

  private IntPredicate resetHere = id -> false;
  private Http2FrameListener wrappedFor;
  private Http2FrameListener wrapper;

  ClosedStreamHeadersGuard(Http2FrameReader delegate, Http2Connection connection) {
    this.delegate = delegate;
    this.connection = connection;
  }

  /** Tells the guard which stream ids this side reset lately (from the connection handler). */
  void resetHere(IntPredicate resetHere) {
    this.resetHere = resetHere;
  }

  @Override
  public void readFrame(ChannelHandlerContext ctx, ByteBuf input, Http2FrameListener listener)
      throws Http2Exception {
    if (listener != wrappedFor) {
      // Netty's decoder passes its preface listener, then its frame listener, each many times.
      wrappedFor = listener;
      wrapper = new Guarded(listener);
    }
    delegate.readFrame(ctx, input, wrapper);
  }

  @Override
  public Configuration configuration() {
    return delegate.configuration();
  }

  @Override
  public void close() {
    delegate.close();
  }

  /** Throws the connection error for HEADERS on client stream {@code streamId}, if it is over. */
  private void check(int streamId) throws Http2Exception {
    Http2Connection.Endpoint<?> client = connection.remote();
    if (!client.isValidStreamId(streamId)) {
      return; // not a client stream id: Netty's error
    }
    int highest = Math.max(highestSeen, client.lastStreamCreated());
    if (streamId > highest) {
      if (streamId > highest + 2) {
        rememberGap(highest + 2, streamId - 2);
      }
      highestSeen = streamId;
      return;
    }
    Http2Stream stream = connection.stream(streamId);
    if (stream != null) {
      if (stream.state() == Http2Stream.State.HALF_CLOSED_REMOTE && !stream.isResetSent()) {
        // Netty calls a second HEADERS after one with END_STREAM a PROTOCOL_ERROR ("too many
        // headers"); the stream's state decides first.
        throw Http2Exception.streamError(
            streamId,
            Http2Error.STREAM_CLOSED,
            "HEADERS on stream %d after the client's END_STREAM",
            streamId);
      }
      return;
    }
    if (resetHere.test(streamId)
        || (connection.goAwaySent() && streamId > client.lastStreamKnownByPeer())) {
      return;
    }
    if (skipped(streamId)) {
      throw Http2Exception.connectionError(
          Http2Error.PROTOCOL_ERROR,
          "HEADERS opening stream %d after stream %d: stream ids must increase",
          streamId,
          highest);
    }
    throw Http2Exception.connectionError(
        Http2Error.STREAM_CLOSED, "HEADERS on stream %d, which is closed", streamId);
  }

  private void rememberGap(int first, int last) {
    if (gaps == null) {
      gaps = new int[2 * REMEMBERED_GAPS];
    }
    gaps[2 * nextGap] = first;
    gaps[2 * nextGap + 1] = last;
    nextGap = (nextGap + 1) % REMEMBERED_GAPS;
    gapCount = Math.min(gapCount + 1, REMEMBERED_GAPS);
  }

  private boolean skipped(int streamId) {
    for (int i = 0; i < gapCount; i++) {
      if (streamId >= gaps[2 * i] && streamId <= gaps[2 * i + 1]) {
        return true;
      }
    }
    return false;
  }

  /** Netty's listener, with HEADERS checked first. */
  private final class Guarded extends Http2FrameListenerDecorator {
    Guarded(Http2FrameListener listener) {
      super(listener);
    }

    @Override
    public void onHeadersRead(
        ChannelHandlerContext ctx,
        int streamId,
        Http2Headers headers,
        int padding,
        boolean endOfStream)
        throws Http2Exception {
      check(streamId);
      super.onHeadersRead(ctx, streamId, headers, padding, endOfStream);
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
        boolean endOfStream)
        throws Http2Exception {
      check(streamId);
      super.onHeadersRead(
          ctx, streamId, headers, streamDependency, weight, exclusive, padding, endOfStream);
    }
  }
}
