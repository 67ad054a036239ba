package dev.tern.netty.internal.http2;

import static dev.tern.netty.internal.http2.Http2FrameException.PROTOCOL_ERROR;
import static dev.tern.netty.internal.http2.Http2FrameException.STREAM_CLOSED;

import io.netty.buffer.ByteBuf;
import java.util.ArrayDeque;

/**
 * One stream's state machine (RFC 9113 section 5.1, without the reserved states: push is refused),
 * its two flow-control windows and the DATA waiting for send credit.
 *
 * <pre>
 *   IDLE --HEADERS--> OPEN --END_STREAM received--> HALF_CLOSED_REMOTE --END_STREAM sent--> CLOSED
 *                      |  --END_STREAM sent-----> HALF_CLOSED_LOCAL --END_STREAM received--> CLOSED
 *   any state --RST_STREAM sent or received--> CLOSED
 * </pre>
 *
 * <p>Frames received in a state that does not allow them are errors with the code section 5.1 and
 * 6.x give: DATA or HEADERS once the peer ended its side is STREAM_CLOSED; trailers without
 * END_STREAM are PROTOCOL_ERROR (section 8.1).
 *
 * <p>The transport sees a stream only as a handle in {@link Http2ConnectionListener}'s callbacks:
 * its {@link #id()} and one slot for the transport's own per-stream state ({@link #attach}), so the
 * transport finds a stream's call from the stream, with no map of its own keyed by id. The slot's
 * type is the transport's business; the connection clears it once the stream closed and the
 * listener heard of it ({@link Http2ConnectionListener#onStreamClosed}).
 *
 * <p>One connection's, on its event loop; not thread-safe.
 */
public final class Http2Stream {
  enum State {
    IDLE,
    OPEN,
    HALF_CLOSED_LOCAL,
    HALF_CLOSED_REMOTE,
    CLOSED
  }

  final int id;
  final Http2SendWindow sendWindow;
  final Http2ReceiveWindow receiveWindow;
  private State state = State.IDLE;
  private boolean headersReceived;

  // Outbound, waiting for send credit (see Http2Outbound): the oldest buffer, and the others in
  // a deque made only when a second one waits; a unary call's one message never needs it (about 56
  // bytes a stream on bench-compare's client allocation row).
  private ByteBuf queueHead;
  private ArrayDeque<ByteBuf> queueRest;
  long queuedBytes;
  boolean endStreamQueued;
  byte[][] queuedTrailers;
  boolean scheduled; // in Http2Outbound's round

  /** Whether this side wrote DATA on the stream (an answer the peer may cancel after reading). */
  boolean dataSent;

  /** The transport's per-stream state, or null. */
  private Object attachment;

  Http2Stream(int id, long sendWindow, int receiveWindow) {
    this.id = id;
    this.sendWindow = new Http2SendWindow(id, sendWindow);
    this.receiveWindow = new Http2ReceiveWindow(id, receiveWindow, receiveWindow);
  }

  /** The stream's id. */
  public int id() {
    return id;
  }

  /** What the transport attached to this stream, or null (always null once it closed). */
  public Object attachment() {
    return attachment;
  }

  /**
   * Attaches the transport's state for this stream (null to clear it), replacing what was attached.
   */
  public void attach(Object attachment) {
    this.attachment = attachment;
  }

  State state() {
    return state;
  }

  boolean isClosed() {
    return state == State.CLOSED;
  }

  /** Whether the peer may still send DATA or trailers. */
  boolean remoteOpen() {
    return state == State.OPEN || state == State.HALF_CLOSED_LOCAL;
  }

  /** Whether this side may still send. */
  boolean localOpen() {
    return state == State.OPEN || state == State.HALF_CLOSED_REMOTE;
  }

  /**
   * A complete header block arrived.
   *
   * @return whether it is trailers (the stream's second block), not its first
   */
  boolean receiveHeaders(boolean endStream) throws Http2FrameException {
    boolean trailers = headersReceived;
    if (state == State.IDLE) {
      state = State.OPEN;
    } else if (!remoteOpen()) {
      throw Http2FrameException.stream(
          id,
          STREAM_CLOSED,
          "HEADERS on stream " + id + " after the peer ended it (" + state + ")");
    } else if (trailers && !endStream) {
      throw Http2FrameException.stream(
          id, PROTOCOL_ERROR, "trailers on stream " + id + " without END_STREAM");
    }
    headersReceived = true;
    if (endStream) {
      receiveEndStream();
    }
    return trailers;
  }

  /** The last header block was a 1xx response: the next is the response's head again. */
  void informationalResponse() {
    headersReceived = false;
  }

  /** A DATA frame arrived; checked before its bytes are counted against the stream's window. */
  void receiveData(boolean endStream) throws Http2FrameException {
    if (!remoteOpen()) {
      throw Http2FrameException.stream(
          id, STREAM_CLOSED, "DATA on stream " + id + " after the peer ended it (" + state + ")");
    }
    if (!headersReceived) {
      throw Http2FrameException.stream(
          id, PROTOCOL_ERROR, "DATA on stream " + id + " before its HEADERS");
    }
    if (endStream) {
      receiveEndStream();
    }
  }

  private void receiveEndStream() {
    state = state == State.HALF_CLOSED_LOCAL ? State.CLOSED : State.HALF_CLOSED_REMOTE;
  }

  /** This side sends HEADERS (the first block, or trailers with {@code endStream}). */
  void sendHeaders(boolean endStream) {
    if (state == State.IDLE) {
      state = State.OPEN;
    } else if (!localOpen()) {
      throw new IllegalStateException("stream " + id + " cannot send HEADERS: " + state);
    }
    if (endStream) {
      sendEndStream();
    }
  }

  /** This side sent END_STREAM (on DATA or trailers). */
  void sendEndStream() {
    if (!localOpen()) {
      throw new IllegalStateException("stream " + id + " cannot end: " + state);
    }
    state = state == State.HALF_CLOSED_REMOTE ? State.CLOSED : State.HALF_CLOSED_LOCAL;
  }

  /** RST_STREAM sent or received; releases the queued DATA. */
  void close() {
    state = State.CLOSED;
    releaseQueue();
  }

  /** Queues {@code data} behind the DATA already waiting. */
  void queueData(ByteBuf data) {
    if (queueHead == null) {
      queueHead = data;
    } else {
      if (queueRest == null) {
        queueRest = new ArrayDeque<>(2);
      }
      queueRest.add(data);
    }
  }

  /** The oldest DATA waiting, or null. */
  ByteBuf peekData() {
    return queueHead;
  }

  /** Removes the oldest DATA waiting and returns it, or null. */
  ByteBuf pollData() {
    ByteBuf head = queueHead;
    queueHead = queueRest == null ? null : queueRest.poll();
    return head;
  }

  boolean hasQueuedData() {
    return queueHead != null;
  }

  /** Whether exactly one buffer of DATA waits. */
  boolean hasOneQueuedData() {
    return queueHead != null && (queueRest == null || queueRest.isEmpty());
  }

  void releaseQueue() {
    for (ByteBuf b; (b = pollData()) != null; ) {
      b.release();
    }
    queuedBytes = 0;
    queuedTrailers = null;
    endStreamQueued = false;
  }
}
