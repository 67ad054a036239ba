package dev.tern.netty.internal.exchange;

import dev.tern.Attributes;
import dev.tern.Status;
import dev.tern.netty.http.HttpBodyListener;
import dev.tern.netty.http.HttpRequestHead;
import dev.tern.netty.http.HttpServerProtocol;
import dev.tern.netty.internal.grpc.GrpcWire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import java.util.ArrayList;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The streams of one HTTP/2 connection that a protocol other than gRPC serves, each an {@link
 * Http2Exchange}, kept apart from the gRPC calls: the connection's handler offers this the requests
 * gRPC does not take and passes on the frames of their streams. A connection whose server has no
 * such protocol never allocates the map.
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

  private IntObjectMap<Http2Exchange> byStream;

  /** The exchanges of a connection whose frames go out through {@code output}. */
  public Http2Exchanges(Http2StreamOutput output, ExchangeHost host, Runnable exchangesChanged) {
    this.output = output;
    this.host = host;
    this.protocols = host.httpProtocols();
    this.exchangesChanged = exchangesChanged;
  }

  public boolean isEmpty() {
    return byStream == null || byStream.isEmpty();
  }

  /** Whether the server serves any protocol beside gRPC (else there is no head to build). */
  public boolean hasProtocols() {
    return !protocols.list().isEmpty();
  }

  /**
   * Offers a request gRPC does not take to the server's protocols; true if one took it (the stream
   * is then an exchange's), false if the caller is to refuse it.
   */
  public boolean serve(
      int streamId, HttpRequestHead head, boolean endOfStream, Attributes attributes) {
    assert output.ctx().executor().inEventLoop();
    HttpServerProtocol protocol = protocols.find(head);
    if (protocol == null) {
      return false;
    }
    Http2Exchange exchange =
        new Http2Exchange(output, host, streamId, head, attributes, endOfStream);
    if (byStream == null) {
      byStream = new IntObjectHashMap<>(4);
    }
    byStream.put(streamId, exchange);
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
      return true;
    }
    exchange.setBodyListener(listener);
    if (endOfStream) {
      exchange.onData(Unpooled.EMPTY_BUFFER, true);
    }
    return true;
  }

  private Http2Exchange get(int streamId) {
    return byStream == null ? null : byStream.get(streamId);
  }

  /** A HEADERS frame after the request's; true if its stream is an exchange's. */
  public boolean onTrailers(int streamId, boolean endOfStream) {
    Http2Exchange exchange = get(streamId);
    if (exchange == null) {
      return false;
    }
    if (endOfStream) {
      exchange.onData(Unpooled.EMPTY_BUFFER, true); // of a request's trailers, only the end counts
    }
    return true;
  }

  /**
   * A DATA frame on a stream that is no gRPC call's; true if it is an exchange's, which took {@code
   * data} (retained) and returns its bytes to the window as its protocol consumes them.
   */
  public boolean onData(int streamId, ByteBuf data, boolean endOfStream) {
    Http2Exchange exchange = get(streamId);
    if (exchange == null) {
      return false;
    }
    exchange.onData(data.retain(), endOfStream);
    return true;
  }

  /** Whether {@code streamId} carries an exchange that has not ended. */
  public boolean isOpen(int streamId) {
    return get(streamId) != null;
  }

  /** The client reset a stream. */
  public void onReset(int streamId, long errorCode) {
    Http2Exchange exchange = get(streamId);
    if (exchange != null) {
      exchange.peerGone(
          Status.CANCELLED.withDescription(
              "client cancelled (RST_STREAM " + GrpcWire.errorName(errorCode) + ")"));
    }
  }

  /**
   * A stream closed: an exchange's that had not completed its response hears why, {@code
   * connectionFailure} if the connection failed. Called for every stream, gRPC calls' too, so
   * nothing is allocated unless the stream was an exchange's.
   */
  public void onStreamClosed(int streamId, Status connectionFailure) {
    Http2Exchange exchange = byStream == null ? null : byStream.remove(streamId);
    if (exchange != null) {
      boolean completed = exchange.completed();
      exchange.peerGone(
          connectionFailure != null
              ? connectionFailure
              : Status.CANCELLED.withDescription("stream closed before the response ended"));
      host.socketNode().streamEnded(completed);
      exchangesChanged.run();
    }
  }

  /**
   * The connection is gone: every exchange's stream closed, each exchange hears {@code status}
   * (unless its response was complete) and stops counting as a stream.
   */
  public void closeAll(Status status) {
    if (isEmpty()) {
      return;
    }
    for (int streamId : new ArrayList<>(byStream.keySet())) {
      onStreamClosed(streamId, status);
    }
  }

  /** The server is shutting down now, or the connection is gone: every exchange hears it. */
  public void abortAll(Status status) {
    if (isEmpty()) {
      return;
    }
    for (Http2Exchange exchange : new ArrayList<>(byStream.values())) {
      exchange.peerGone(status);
    }
  }
}
