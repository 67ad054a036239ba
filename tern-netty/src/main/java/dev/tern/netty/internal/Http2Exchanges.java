package dev.tern.netty.internal;

import dev.tern.Attributes;
import dev.tern.Status;
import dev.tern.netty.http.HttpBodyListener;
import dev.tern.netty.http.HttpRequestHead;
import dev.tern.netty.http.HttpServerProtocol;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import java.util.ArrayList;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The streams of one HTTP/2 connection that a protocol other than gRPC serves, each an {@link
 * Http2Exchange}: the {@link ServerHandler} offers them the requests gRPC does not take and passes
 * on their frames.
 *
 * <p>Event loop only.
 */
final class Http2Exchanges {
  private static final Logger logger = Logger.getLogger(ServerHandler.class.getName());

  private final ServerHandler handler;
  private final HttpProtocols protocols;
  private final IntObjectMap<Http2Exchange> byStream = new IntObjectHashMap<>(4);

  Http2Exchanges(ServerHandler handler, HttpProtocols protocols) {
    this.handler = handler;
    this.protocols = protocols;
  }

  /**
   * Offers a request that is not gRPC to the server's other protocols; true if one took it (the
   * stream is then an exchange's).
   */
  boolean serve(
      int streamId, GrpcRequestHeaders headers, boolean endOfStream, Attributes attributes) {
    if (protocols.list().isEmpty()) {
      return false;
    }
    HttpRequestHead head = HttpRequestHeads.http2(headers);
    HttpServerProtocol protocol = protocols.find(head);
    if (protocol == null) {
      return false;
    }
    Http2Exchange exchange = new Http2Exchange(handler, streamId, head, attributes);
    byStream.put(streamId, exchange);
    handler.socketNode().streamStarted(false);
    HttpBodyListener listener = null;
    try {
      listener = protocol.serve(exchange);
    } catch (RuntimeException e) {
      logger.log(Level.SEVERE, protocol + ".serve failed for " + head, e);
    }
    if (listener == null) {
      exchange.abort();
      return true;
    }
    exchange.setBodyListener(listener);
    if (endOfStream) {
      exchange.onData(Unpooled.EMPTY_BUFFER, true);
    }
    return true;
  }

  /** A HEADERS frame on a stream; true if it was an exchange's (trailers of its request). */
  boolean onHeaders(int streamId, boolean endOfStream) {
    Http2Exchange exchange = byStream.get(streamId);
    if (exchange == null) {
      return false;
    }
    if (endOfStream) {
      exchange.onData(Unpooled.EMPTY_BUFFER, true); // only the END_STREAM of trailers matters
    }
    return true;
  }

  /**
   * A DATA frame on a stream gRPC does not know; true if it was an exchange's, whose bytes come
   * back to the window as its protocol consumes them.
   */
  boolean onData(int streamId, ByteBuf data, boolean endOfStream) {
    Http2Exchange exchange = byStream.get(streamId);
    if (exchange == null) {
      return false;
    }
    exchange.onData(data.retain(), endOfStream);
    return true;
  }

  /** The client reset a stream. */
  void onReset(int streamId, long errorCode) {
    Http2Exchange exchange = byStream.get(streamId);
    if (exchange != null) {
      exchange.peerGone(
          Status.CANCELLED.withDescription(
              "client cancelled (RST_STREAM " + Http2Statuses.errorName(errorCode) + ")"));
    }
  }

  /** A stream closed; an exchange's that had not completed its response hears {@code status}. */
  void onStreamClosed(int streamId, Status status) {
    Http2Exchange exchange = byStream.remove(streamId);
    if (exchange != null) {
      boolean complete = exchange.completed();
      exchange.peerGone(status);
      handler.socketNode().streamEnded(complete);
    }
  }

  /** The connection is going (closed, or shut down now): every exchange hears {@code status}. */
  void abortAll(Status status) {
    for (Http2Exchange exchange : new ArrayList<>(byStream.values())) {
      exchange.peerGone(status);
    }
  }
}
