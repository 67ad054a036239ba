package dev.tern.netty.http;

import dev.tern.Status;
import io.netty.buffer.ByteBuf;

/**
 * The body listener of a request answered at once (an error, a preflight): releases what arrives
 * and pays it back, so an HTTP/1.1 connection reads past the body to the next request. Made by
 * {@link HttpBodyListener#discarding}. Event loop only.
 */
final class DiscardBody implements HttpBodyListener {
  private final HttpExchange exchange;

  DiscardBody(HttpExchange exchange) {
    this.exchange = exchange;
  }

  @Override
  public void onData(ByteBuf data, boolean endOfStream) {
    int bytes = data.readableBytes();
    data.release();
    exchange.consumed(bytes);
  }

  @Override
  public void onAbort(Status status) {
    // Nothing is held.
  }
}
