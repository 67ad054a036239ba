package dev.tern.netty.http;

import dev.tern.Status;
import io.netty.buffer.ByteBuf;

/** Receives the body of one request. Called on the exchange's event loop, one call at a time. */
public interface HttpBodyListener {
  /**
   * The next part of the body ({@code data} may be empty). The listener owns {@code data} and must
   * release it. Its bytes count against the exchange's inbound window until the protocol says, with
   * {@link HttpExchange#consumed}, that it is done with them: a protocol that does not consume
   * stops the peer from sending (HTTP/2 flow control; HTTP/1.1: the connection is no longer read).
   *
   * @param endOfStream whether this is the last part of the body
   */
  void onData(ByteBuf data, boolean endOfStream);

  /**
   * The exchange ended before its response was complete: the client reset the stream or closed the
   * connection, or the server is shutting down now. Nothing more can be written. Called at most
   * once, and no {@link #onData} follows it.
   */
  void onAbort(Status status);

  /**
   * A listener for the body of a request the protocol answered at once (an error, a preflight, a
   * static answer): it releases what arrives and consumes it, so the peer can finish sending and an
   * HTTP/1.1 connection reads on to its next request.
   */
  static HttpBodyListener discarding(HttpExchange exchange) {
    return new DiscardBody(exchange);
  }
}
