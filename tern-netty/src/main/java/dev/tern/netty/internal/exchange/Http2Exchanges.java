package dev.tern.netty.internal.exchange;

import dev.tern.Attributes;
import dev.tern.Status;
import dev.tern.netty.http.HttpBodyListener;
import dev.tern.netty.http.HttpRequestHead;
import dev.tern.netty.http.HttpServerProtocol;
import dev.tern.netty.internal.grpc.GrpcWire;
import dev.tern.netty.internal.http2.Http2Stream;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The streams of one HTTP/2 connection that a protocol other than gRPC serves, each an {@link
 * Http2Exchange}, kept apart from the gRPC calls: the connection's handler offers this the requests
 * gRPC does not take and passes on the frames of their streams, with the exchange it found in the
 * stream's slot ({@link Http2Stream#attachment}); this keeps no map of its own, only their count.
 *
 * <p>Event loop only.
 */
public final class Http2Exchanges {
  private static final Logger logger = Logger.getLogger(Http2Exchanges.class.getName());

  private final Http2StreamOutput output;
  private final ExchangeHost host;
  private final HttpProtocols protocols;

  /** Told when an exchange starts or ends: exchanges count as calls for the idle limit. */
  private final Runnable exchangesChanged;

  /** The exchanges served whose stream has not closed. */
  private int open;

  /** The exchanges of a connection whose frames go out through {@code output}. */
  public Http2Exchanges(Http2StreamOutput output, ExchangeHost host, Runnable exchangesChanged) {
    this.output = output;
    this.host = host;
    this.protocols = host.httpProtocols();
    this.exchangesChanged = exchangesChanged;
  }

  public boolean isEmpty() {
    return open == 0;
  }

  /** Whether the server serves any protocol beside gRPC (else there is no head to build). */
  public boolean hasProtocols() {
    return !protocols.list().isEmpty();
  }

  /**
   * The protocol that serves {@code head}, or null if gRPC's refusal is the answer (the caller then
   * need not prepare the stream for an exchange).
   */
  public HttpServerProtocol find(HttpRequestHead head) {
    return protocols.find(head);
  }

  /**
   * Serves a request gRPC does not take with {@code protocol} (from {@link #find}): the exchange
   * the caller keeps in the stream's slot until {@link #onStreamClosed}. The caller attaches what
   * finds it before this, since the protocol may write at once.
   */
  public Http2Exchange serve(
      HttpServerProtocol protocol,
      Http2Stream stream,
      HttpRequestHead head,
      boolean endOfStream,
      Attributes attributes,
      Consumer<Http2Exchange> attach) {
    assert output.ctx().executor().inEventLoop();
    Http2Exchange exchange = new Http2Exchange(output, host, stream, head, attributes, endOfStream);
    attach.accept(exchange);
    open++;
    host.socketNode().streamStarted(false);
    exchangesChanged.run();
    HttpBodyListener listener = null;
    try {
      listener = protocol.serve(exchange);
    } catch (RuntimeException e) {
      logger.log(Level.SEVERE, protocol + ".serve failed for " + head, e);
    }
    if (listener == null) {
      exchange.abort();
      return exchange;
    }
    exchange.setBodyListener(listener);
    if (endOfStream) {
      exchange.onData(Unpooled.EMPTY_BUFFER, true);
    }
    return exchange;
  }

  /** A HEADERS frame after the request's, on {@code exchange}'s stream. */
  public void onTrailers(Http2Exchange exchange, boolean endOfStream) {
    if (endOfStream) {
      exchange.onData(Unpooled.EMPTY_BUFFER, true); // of a request's trailers, only the end counts
    }
  }

  /**
   * A DATA frame on {@code exchange}'s stream, which takes {@code data} (retained) and returns its
   * bytes to the window as its protocol consumes them.
   */
  public void onData(Http2Exchange exchange, ByteBuf data, boolean endOfStream) {
    exchange.onData(data.retain(), endOfStream);
  }

  /** The client reset {@code exchange}'s stream. */
  public void onReset(Http2Exchange exchange, long errorCode) {
    exchange.peerGone(
        Status.CANCELLED.withDescription(
            "client cancelled (RST_STREAM " + GrpcWire.errorName(errorCode) + ")"));
  }

  /** The server is shutting down now: {@code exchange} hears {@code status}. */
  public void abort(Http2Exchange exchange, Status status) {
    exchange.peerGone(status);
  }

  /**
   * {@code exchange}'s stream closed, or the connection is gone: unless it completed its response
   * it hears why ({@code connectionFailure} if the connection failed), and it stops counting as a
   * stream. Once per exchange.
   */
  public void onStreamClosed(Http2Exchange exchange, Status connectionFailure) {
    boolean completed = exchange.completed();
    exchange.peerGone(
        connectionFailure != null
            ? connectionFailure
            : Status.CANCELLED.withDescription("stream closed before the response ended"));
    open--;
    host.socketNode().streamEnded(completed);
    exchangesChanged.run();
  }
}
