package dev.tern.netty.internal.http2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayDeque;

/**
 * The sending side of a connection: HEADERS encoded with HPACK at the moment they are written (so
 * blocks reach the peer in the order the encoder's table saw them), and DATA under both send
 * windows (RFC 9113 section 6.9). DATA without credit waits in its stream's queue; trailers and
 * END_STREAM wait behind it. Streams blocked only by the connection's window take turns, one frame
 * each, when credit arrives. Everything is written into the buffer the caller passes, one per
 * flush. One connection's, on its event loop; not thread-safe.
 */
final class Http2Outbound {
  private final Http2FrameWriter writer = new Http2FrameWriter();
  private final HpackEncoder encoder = new HpackEncoder();
  private final Http2Connection connection;
  final Http2SendWindow connectionWindow = new Http2SendWindow(0, 65_535);

  /** Sized for a few streams (none wait on most connections); it grows as more do. */
  private final ArrayDeque<Http2Stream> waiting = new ArrayDeque<>(2);

  private int maxFrameSize = Http2Frames.DEFAULT_MAX_FRAME_SIZE;
  private long queuedBytes;

  /**
   * @param connection told when sending END_STREAM closed a stream ({@link Http2Connection#forget})
   */
  Http2Outbound(Http2Connection connection) {
    this.connection = connection;
  }

  Http2FrameWriter writer() {
    return writer;
  }

  HpackEncoder encoder() {
    return encoder;
  }

  void setMaxFrameSize(int maxFrameSize) {
    writer.setMaxFrameSize(maxFrameSize);
    this.maxFrameSize = maxFrameSize;
  }

  /** DATA queued on all streams. */
  long queuedBytes() {
    return queuedBytes;
  }

  /**
   * Writes a header block now. {@code fields} alternates names and values.
   *
   * @throws IllegalArgumentException an odd number of arrays
   */
  void writeHeaders(ByteBuf out, Http2Stream stream, byte[][] fields, boolean endStream) {
    if ((fields.length & 1) != 0) {
      throw new IllegalArgumentException("fields must alternate names and values: odd length");
    }
    stream.sendHeaders(endStream);
    ByteBuf block = out.alloc().buffer(64 * fields.length + 16);
    try {
      encoder.beginBlock(block);
      for (int i = 0; i < fields.length; i += 2) {
        encoder.header(block, fields[i], fields[i + 1], false);
      }
      writer.writeHeaders(out, stream.id, block, endStream);
    } finally {
      block.release();
    }
    if (stream.isClosed()) {
      connection.forget(stream, false);
    }
  }

  /** Queues DATA (taking ownership of {@code data}) and writes what the windows allow. */
  void sendData(ByteBuf out, Http2Stream stream, ByteBuf data, boolean endStream) {
    if (stream.endStreamQueued || stream.queuedTrailers != null || !stream.localOpen()) {
      data.release();
      throw new IllegalStateException("stream " + stream.id + " was already ended");
    }
    if (data.isReadable()) {
      stream.queueData(data);
      stream.queuedBytes += data.readableBytes();
      queuedBytes += data.readableBytes();
    } else {
      data.release();
    }
    stream.endStreamQueued = endStream;
    drain(out, stream, Integer.MAX_VALUE);
  }

  /** HEADERS ending the stream (trailers): written now, or after the DATA still queued. */
  void sendEndingHeaders(ByteBuf out, Http2Stream stream, byte[][] fields) {
    if (stream.endStreamQueued || stream.queuedTrailers != null || !stream.localOpen()) {
      throw new IllegalStateException("stream " + stream.id + " was already ended");
    }
    if (!stream.hasQueuedData()) {
      writeHeaders(out, stream, fields, true);
    } else {
      stream.queuedTrailers = fields;
    }
  }

  /** Writes what a stream's queue can send now, e.g. after its WINDOW_UPDATE. */
  void drain(ByteBuf out, Http2Stream stream) {
    drain(out, stream, Integer.MAX_VALUE);
  }

  /** Streams waiting for connection credit take turns, one frame each, while it lasts. */
  void drainWaiting(ByteBuf out) {
    while (connectionWindow.available() > 0 && !waiting.isEmpty()) {
      Http2Stream stream = waiting.poll();
      stream.scheduled = false;
      if (!stream.isClosed()) {
        drain(out, stream, 1);
        if (stream.hasQueuedData() && stream.sendWindow.available() > 0) {
          schedule(stream);
        }
      }
    }
  }

  /** A stream closed: its queue is dropped. */
  void forget(Http2Stream stream) {
    queuedBytes -= stream.queuedBytes;
    stream.releaseQueue();
  }

  private void drain(ByteBuf out, Http2Stream stream, int maxFrames) {
    for (int frames = 0; frames < maxFrames; frames++) {
      ByteBuf head = stream.peekData();
      if (head == null) {
        break;
      }
      long credit = Math.min(connectionWindow.available(), stream.sendWindow.available());
      int n = (int) Math.min(credit, Math.min(head.readableBytes(), maxFrameSize));
      if (n <= 0) {
        if (stream.sendWindow.available() > 0) {
          schedule(stream); // blocked by the connection's window only
        }
        return;
      }
      boolean last = n == head.readableBytes() && stream.hasOneQueuedData();
      boolean end = last && stream.endStreamQueued && stream.queuedTrailers == null;
      writer.writeDataFrame(out, stream.id, head, n, end);
      stream.dataSent = true;
      connectionWindow.sent(n);
      stream.sendWindow.sent(n);
      stream.queuedBytes -= n;
      queuedBytes -= n;
      if (!head.isReadable()) {
        stream.pollData().release();
      }
      if (end) {
        stream.endStreamQueued = false;
        stream.sendEndStream();
        if (stream.isClosed()) {
          connection.forget(stream, false);
        }
        return;
      }
    }
    if (stream.hasQueuedData()) {
      return;
    }
    if (stream.queuedTrailers != null) {
      byte[][] trailers = stream.queuedTrailers;
      stream.queuedTrailers = null;
      writeHeaders(out, stream, trailers, true);
    } else if (stream.endStreamQueued) {
      stream.endStreamQueued = false;
      writer.writeData(out, stream.id, Unpooled.EMPTY_BUFFER, true);
      stream.sendEndStream();
      if (stream.isClosed()) {
        connection.forget(stream, false);
      }
    }
  }

  private void schedule(Http2Stream stream) {
    if (!stream.scheduled) {
      stream.scheduled = true;
      waiting.add(stream);
    }
  }

  /** Drops every queue (the connection ended). */
  void close(Iterable<Http2Stream> streams) {
    for (Http2Stream stream : streams) {
      forget(stream);
    }
    waiting.clear();
  }
}
