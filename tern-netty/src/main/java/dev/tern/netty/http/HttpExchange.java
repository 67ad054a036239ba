package dev.tern.netty.http;

import dev.tern.Attributes;
import dev.tern.spi.ServerTransportListener;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * One HTTP request and its response, on HTTP/1.1 or HTTP/2, as a {@link HttpServerProtocol} serves
 * it. The transport hides the HTTP version: HTTP/2 stream or HTTP/1.1 message, chunked or with a
 * {@code Content-Length}, keep-alive or close.
 *
 * <p>Event loop only: every method but {@link #eventLoop} must be called on {@link #eventLoop()}; a
 * protocol whose calls write from application threads hops there first.
 */
public interface HttpExchange {
  /** The request's head. */
  HttpRequestHead request();

  /**
   * The server's runtime for this connection: {@code streamCreated} starts a call, {@code
   * lookupMethod} finds a method's descriptor (for its schema, its type, whether it is safe).
   */
  ServerTransportListener calls();

  /** The connection's attributes as the runtime's transport filters left them (addresses, TLS). */
  Attributes attributes();

  /** The connection's event loop, on which the exchange lives. Callable from any thread. */
  EventLoop eventLoop();

  /** The connection's buffer allocator, for response bodies. */
  ByteBufAllocator alloc();

  /**
   * Sets where the request body goes. The transport calls {@link HttpServerProtocol#serve} and sets
   * the listener it returns; protocols do not call this.
   */
  void setBodyListener(HttpBodyListener listener);

  /**
   * Returns {@code bytes} of the body to the inbound window (see {@link HttpBodyListener#onData}).
   */
  void consumed(int bytes);

  /**
   * Writes the response's status and headers (names lower-case; no pseudo-headers, no {@code
   * content-length} or {@code transfer-encoding}: the transport chooses the framing). Once only,
   * before any body.
   *
   * @param endOfStream the response has no body: it ends here
   */
  void writeHead(int status, HttpHeaders headers, boolean endOfStream);

  /**
   * Writes part of the response body; the exchange takes ownership of {@code data}. On HTTP/1.1 a
   * body written whole (the first write also the last) goes out with a {@code Content-Length},
   * anything else chunked.
   *
   * @param endOfStream the response ends with this part
   * @return completes when the part left (or failed to leave) the connection
   */
  ChannelFuture writeBody(ByteBuf data, boolean endOfStream);

  /**
   * Writes what is queued to the socket. A write with {@code endOfStream} flushes by itself; a
   * protocol that streams a response calls this after the parts it wants sent now.
   */
  void flush();

  /** Whether the response may still be written (not complete, not aborted). */
  boolean isOpen();

  /**
   * Abandons the exchange: RST_STREAM(CANCEL) on HTTP/2; on HTTP/1.1, closing the connection if the
   * response has begun (else an empty 500 is written first, so the client is not left waiting). The
   * body listener's {@link HttpBodyListener#onAbort} is not called for an abort the protocol asked
   * for itself.
   */
  void abort();
}
