package dev.tern.netty.internal.http2;

import static dev.tern.netty.internal.http2.Http2FrameException.COMPRESSION_ERROR;
import static dev.tern.netty.internal.http2.Http2FrameException.PROTOCOL_ERROR;
import static dev.tern.netty.internal.http2.Http2FrameException.REFUSED_STREAM;
import static dev.tern.netty.internal.http2.Http2FrameException.STREAM_CLOSED;

import io.netty.buffer.ByteBuf;

/**
 * What an {@link Http2Connection} does with each frame the reader parsed: the rules of RFC 9113
 * that need the connection's state (section 3.4's SETTINGS first, 5.1's stream states and ids,
 * 5.1.2's concurrency limit, 6.5's SETTINGS, 6.7's PING, 6.8's GOAWAY, 6.9's flow control). A rule
 * broken is thrown as a {@link Http2FrameException}, which {@link Http2Connection#receive} answers.
 * One connection's, on its event loop; not thread-safe.
 */
final class Http2InboundFrames implements Http2FrameListener {
  private final Http2Connection c;
  private int selfDependentStream; // a HEADERS frame's priority named its own stream

  Http2InboundFrames(Http2Connection connection) {
    this.c = connection;
  }

  private void requireSettingsFirst(String frame) throws Http2FrameException {
    if (!c.peerSettingsReceived) {
      throw Http2FrameException.connection(
          PROTOCOL_ERROR, "the peer's first frame must be SETTINGS, not " + frame);
    }
  }

  @Override
  public void onData(int streamId, ByteBuf data, int padding, boolean endStream)
      throws Http2FrameException {
    int flowControlled = data.readableBytes() + padding;
    boolean delivered = false;
    try {
      requireSettingsFirst("DATA");
      c.connectionReceiveWindow.received(flowControlled);
      if (flowControlled == 0 && !endStream) {
        c.guard.controlFrame("empty DATA");
      } else {
        c.guard.work();
      }
      Http2Stream stream = c.streams.get(streamId);
      if (stream == null) {
        if (c.streams.isIdle(streamId)) {
          throw Http2FrameException.connection(
              PROTOCOL_ERROR, "DATA on stream " + streamId + ", which is idle");
        }
        giveBack(flowControlled);
        if (c.streams.recentlyResetHere(streamId)) {
          return; // in flight when this side reset it
        }
        if (!c.streams.isPeerInitiated(streamId) && !c.streams.recentlyClosed(streamId)) {
          throw Http2FrameException.lateOnOwnStream(
              streamId, "DATA on stream " + streamId + ", which is closed");
        }
        throw Http2FrameException.stream(
            streamId, STREAM_CLOSED, "DATA on stream " + streamId + ", which is closed");
      }
      try {
        stream.receiveData(endStream);
        stream.receiveWindow.received(flowControlled);
      } catch (Http2FrameException e) {
        giveBack(flowControlled);
        throw e;
      }
      delivered = true;
      c.listener.onData(stream, data, flowControlled, endStream);
      if (stream.isClosed()) {
        c.forget(stream, false);
      }
    } finally {
      if (!delivered) {
        data.release();
      }
    }
  }

  /** Credit for DATA nobody will consume goes straight back to the connection's window. */
  private void giveBack(int bytes) {
    int increment = c.connectionReceiveWindow.consumed(bytes);
    if (increment > 0) {
      c.outbound.writer().writeWindowUpdate(c.out, 0, increment);
    }
  }

  @Override
  public void onHeaders(int streamId, ByteBuf block, boolean endStream) throws Http2FrameException {
    requireSettingsFirst("HEADERS");
    c.guard.work();
    boolean selfDependent = selfDependentStream == streamId;
    selfDependentStream = 0;
    Http2Stream stream = c.streams.get(streamId);
    if (stream == null) {
      stream = openPeerStream(streamId, block, selfDependent);
      if (stream == null) {
        return;
      }
    } else if (selfDependent) {
      c.discard(block);
      throw Http2FrameException.stream(
          streamId, PROTOCOL_ERROR, "HEADERS of stream " + streamId + " depend on the stream");
    }
    boolean trailers;
    try {
      trailers = stream.receiveHeaders(endStream);
    } catch (Http2FrameException e) {
      c.discard(block);
      throw e;
    }
    HeaderSink sink = c.listener.onHeadersStart(stream, trailers);
    try {
      c.decoder.decode(block, sink);
    } catch (HpackException e) {
      if (e.connectionError()) {
        throw Http2FrameException.connection(COMPRESSION_ERROR, e.getMessage());
      }
      c.listener.onHeaderListTooLarge(stream, trailers, endStream);
      closeIfDone(stream);
      return;
    }
    c.listener.onHeadersEnd(stream, trailers, endStream);
    closeIfDone(stream);
  }

  private void closeIfDone(Http2Stream stream) {
    if (stream.isClosed() && c.streams.get(stream.id) == stream) {
      c.forget(stream, false);
    }
  }

  /**
   * HEADERS on a stream that is not active: a new stream of the peer's, or a refused, ignored or
   * illegal one.
   *
   * @return the new stream, or null when the block was decoded and dropped
   */
  private Http2Stream openPeerStream(int streamId, ByteBuf block, boolean selfDependent)
      throws Http2FrameException {
    if (!c.streams.isIdle(streamId)) {
      c.discard(block);
      if (c.streams.recentlyResetHere(streamId)) {
        return null; // in flight when this side reset it
      }
      if (c.streams.recentlyClosed(streamId)) {
        throw Http2FrameException.connection(
            STREAM_CLOSED, "HEADERS on stream " + streamId + ", which is closed");
      }
      if (!c.streams.isPeerInitiated(streamId)) {
        // One of this side's streams, closed longer ago than is remembered: most likely one this
        // side reset whose answer was in flight (a slow peer answering calls whose deadlines
        // passed, many resets ago). As for DATA, only that stream is refused; the others go on.
        throw Http2FrameException.lateOnOwnStream(
            streamId, "HEADERS on stream " + streamId + ", which is closed");
      }
      throw Http2FrameException.connection(
          PROTOCOL_ERROR,
          "HEADERS on stream "
              + streamId
              + ", not above the last stream "
              + (c.streams.isPeerInitiated(streamId) ? "the peer opened" : "this side opened"));
    }
    if (!c.server && !c.streams.isPeerInitiated(streamId)) {
      throw Http2FrameException.connection(
          PROTOCOL_ERROR, "HEADERS on stream " + streamId + ", which this side never opened");
    }
    c.streams.acceptPeerStreamId(streamId);
    if (c.goAwaySent && streamId > c.goAwayLastStreamId) {
      // Opened after this side's GOAWAY named its last stream (section 6.8): refused rather than
      // silently ignored, so the client knows at once it may retry the request elsewhere.
      c.discard(block);
      throw Http2FrameException.stream(
          streamId,
          REFUSED_STREAM,
          "stream " + streamId + " opened after GOAWAY named stream " + c.goAwayLastStreamId);
    }
    if (selfDependent) {
      c.discard(block);
      throw Http2FrameException.stream(
          streamId, PROTOCOL_ERROR, "HEADERS of stream " + streamId + " depend on the stream");
    }
    if (c.streams.activePeerStreams() >= c.limits.maxConcurrentStreams()) {
      c.discard(block);
      throw Http2FrameException.stream(
          streamId,
          REFUSED_STREAM,
          "stream "
              + streamId
              + " over SETTINGS_MAX_CONCURRENT_STREAMS "
              + c.limits.maxConcurrentStreams());
    }
    Http2Stream stream =
        new Http2Stream(streamId, c.peerInitialWindowSize, c.limits.initialWindowSize());
    c.streams.addPeerStream(stream);
    return stream;
  }

  @Override
  public void onPriority(int streamId, int dependency, boolean exclusive, int weight)
      throws Http2FrameException {
    requireSettingsFirst("PRIORITY");
    if (dependency == streamId) {
      selfDependentStream = streamId; // only from HEADERS: the reader refuses it in PRIORITY
    }
  }

  @Override
  public void onRstStream(int streamId, long errorCode) throws Http2FrameException {
    requireSettingsFirst("RST_STREAM");
    if (c.streams.isIdle(streamId)) {
      throw Http2FrameException.connection(
          PROTOCOL_ERROR, "RST_STREAM on stream " + streamId + ", which is idle");
    }
    Http2Stream stream = c.streams.get(streamId);
    if (stream == null) {
      return;
    }
    // A reset after this side's DATA cancels a stream the peer had an answer on (a stream it read
    // enough of), and the listener knows a reset late in a call's deadline: ordinary traffic,
    // paced by this side's answers or the deadline. Only the other resets of streams that got no
    // DATA are what a Rapid Reset is made of.
    if (!stream.dataSent && !c.listener.resetIsOrdinary(stream)) {
      c.guard.reset();
    }
    c.leave(stream, false);
    c.listener.onStreamReset(stream, errorCode, true);
    c.closed(stream);
    c.maybeFinish();
  }

  @Override
  public void onSettings(Http2Settings settings) throws Http2FrameException {
    if (c.peerSettingsReceived) {
      c.guard.controlFrame("SETTINGS");
    }
    c.peerSettingsReceived = true;
    long value = settings.get(Http2Settings.ENABLE_PUSH);
    if (!c.server && value == 1) {
      throw Http2FrameException.connection(PROTOCOL_ERROR, "SETTINGS_ENABLE_PUSH 1 from a server");
    }
    value = settings.get(Http2Settings.HEADER_TABLE_SIZE);
    if (value >= 0) {
      c.outbound.encoder().setPeerHeaderTableSize(value);
    }
    value = settings.get(Http2Settings.MAX_CONCURRENT_STREAMS);
    if (value >= 0) {
      c.peerMaxConcurrentStreams = value;
    }
    value = settings.get(Http2Settings.MAX_FRAME_SIZE);
    if (value >= 0) {
      c.outbound.setMaxFrameSize((int) value);
    }
    value = settings.get(Http2Settings.INITIAL_WINDOW_SIZE);
    long delta = value >= 0 ? value - c.peerInitialWindowSize : 0;
    if (delta != 0) {
      for (Http2Stream stream : c.streams.active()) {
        stream.sendWindow.adjustInitial(delta);
      }
      c.peerInitialWindowSize = value;
    }
    c.outbound.writer().writeSettingsAck(c.out);
    if (delta > 0) {
      for (Http2Stream stream : c.streams.active()) {
        if (!stream.isClosed()) {
          c.outbound.drain(c.out, stream);
        }
      }
    }
    c.listener.onSettings(settings);
  }

  @Override
  public void onSettingsAck() throws Http2FrameException {
    requireSettingsFirst("a SETTINGS acknowledgement");
    if (c.unackedSettings == 0) {
      return; // nothing to apply; RFC 9113 names no error for it
    }
    c.unackedSettings--;
    c.reader.setMaxFrameSize(c.limits.maxFrameSize());
    c.listener.onSettingsAck();
  }

  @Override
  public void onPing(long data, boolean ack) throws Http2FrameException {
    requireSettingsFirst("PING");
    if (!ack) {
      c.guard.controlFrame("PING");
      c.listener.onPing(data);
      c.outbound.writer().writePing(c.out, data, true);
    } else if (c.shutdownPingSent && data == Http2Connection.SHUTDOWN_PING) {
      c.sendFinalGoAway();
    } else {
      c.listener.onPingAck(data);
    }
  }

  @Override
  public void onGoAway(int lastStreamId, long errorCode, ByteBuf debugData)
      throws Http2FrameException {
    requireSettingsFirst("GOAWAY");
    c.goAwayReceived = true;
    for (Http2Stream stream : c.streams.active()) {
      if (!c.streams.isPeerInitiated(stream.id) && stream.id > lastStreamId) {
        c.leave(stream, false);
        c.listener.onStreamReset(stream, REFUSED_STREAM, true);
        c.closed(stream);
      }
    }
    c.listener.onGoAway(lastStreamId, errorCode, debugData);
    c.maybeFinish();
  }

  @Override
  public void onWindowUpdate(int streamId, int increment) throws Http2FrameException {
    requireSettingsFirst("WINDOW_UPDATE");
    if (streamId == 0) {
      c.outbound.connectionWindow.increment(increment);
      c.outbound.drainWaiting(c.out);
      return;
    }
    if (c.streams.isIdle(streamId)) {
      throw Http2FrameException.connection(
          PROTOCOL_ERROR, "WINDOW_UPDATE on stream " + streamId + ", which is idle");
    }
    Http2Stream stream = c.streams.get(streamId);
    if (stream != null) {
      stream.sendWindow.increment(increment);
      c.outbound.drain(c.out, stream);
    }
  }
}
