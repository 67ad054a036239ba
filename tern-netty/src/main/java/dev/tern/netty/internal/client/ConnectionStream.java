package dev.tern.netty.internal.client;

import io.netty.buffer.ByteBuf;
import java.util.ArrayDeque;

/**
 * One call's stream on Tern's HTTP/2 engine, as {@link ClientHandler} tracks it: its event-loop
 * half, its request headers and DATA while it waits for the server's concurrency limit to let it
 * open, and the bytes handed to the engine against those reported sent ({@link ClientWrites}). It
 * is also the command that opens it: {@link ClientHandler#prepareStream} makes it on the
 * application's thread and returns it to be enqueued, so the call needs no separate command object.
 *
 * <p>Event loop only once enqueued (the write queue publishes it); not thread-safe.
 */
final class ConnectionStream implements Runnable {
  private final ClientHandler handler;
  final ClientStreamState state;

  /** The request headers, until the stream opens; then null. */
  byte[][] fields;

  /**
   * When the server's concurrency limit made it wait ({@link System#nanoTime()}): its {@code
   * grpc-timeout} is shortened by the wait when it opens. Unset for a stream that opened at once.
   */
  long heldSinceNanos;

  /** DATA the call wrote before its stream could open, in order; null once it opened. */
  ArrayDeque<Waiting> waiting;

  /** Bytes handed to the engine, and those of them reported sent to the call. */
  long handedBytes;

  long reportedBytes;

  /** Whether {@link ClientWrites} has it among the streams to report on. */
  boolean reporting;

  /**
   * Whether the connection holds it: from its start on the event loop (waiting for a slot, then
   * open on the wire) until it ends there (its last frame, a reset, or the connection's end).
   */
  boolean live;

  ConnectionStream(ClientHandler handler, ClientStreamState state, byte[][] fields) {
    this.handler = handler;
    this.state = state;
    this.fields = fields;
    state.wire = this;
  }

  /** On the event loop: creates the stream on its connection. */
  @Override
  public void run() {
    handler.createStream(this);
  }

  boolean isOpen() {
    return fields == null;
  }

  /** Keeps DATA written before the stream opened. */
  void hold(ByteBuf data, boolean endOfStream, int bytes, int messages) {
    if (waiting == null) {
      waiting = new ArrayDeque<>(2);
    }
    waiting.add(new Waiting(data, endOfStream, bytes, messages));
  }

  /** Releases the DATA held; the stream will not open. Returns the bytes it counted. */
  int dropWaiting() {
    int bytes = 0;
    if (waiting != null) {
      for (Waiting w : waiting) {
        w.data.release();
        bytes += w.bytes;
      }
      waiting = null;
    }
    return bytes;
  }

  /** DATA written before the stream could open. */
  record Waiting(ByteBuf data, boolean endOfStream, int bytes, int messages) {}
}
