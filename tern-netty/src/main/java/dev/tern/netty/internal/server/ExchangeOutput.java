package dev.tern.netty.internal.server;

import dev.tern.Attributes;
import dev.tern.Status;
import dev.tern.netty.http.HttpRequestHead;
import dev.tern.netty.http.HttpServerProtocol;
import dev.tern.netty.internal.exchange.ExchangeHost;
import dev.tern.netty.internal.exchange.Http2Exchange;
import dev.tern.netty.internal.exchange.Http2Exchanges;
import dev.tern.netty.internal.exchange.Http2StreamOutput;
import dev.tern.netty.internal.http2.Http2Connection;
import dev.tern.netty.internal.http2.Http2Stream;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.Future;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The requests on Tern's HTTP/2 engine that a protocol other than gRPC serves (tern-web's gRPC-Web
 * and Connect): their {@link Http2Exchanges}, written through the engine. {@link ServerHandler}
 * passes on the frames of their streams, each stream's slot holding its {@link ExchangeStream};
 * this is their {@link Http2StreamOutput}: HEADERS and DATA go into the flush's buffer ({@link
 * ServerWrites}), and each write's promise completes once the flush that carried its last byte is
 * written (DATA the engine holds for flow-control credit waits for later flushes). A write on a
 * stream that is no longer active, and writes still held when the stream is reset, fail.
 *
 * <p>Event loop only; not thread-safe.
 */
final class ExchangeOutput implements Http2StreamOutput {
  private final Http2Connection connection;
  private final ServerWrites writes;
  private final Runnable flush;
  private final Http2Exchanges exchanges;
  private ChannelHandlerContext ctx;

  /**
   * @param exchangesChanged told when an exchange starts or ends (they count as calls for the idle
   *     limit)
   * @param flush flushes the connection's buffer to the channel
   */
  ExchangeOutput(
      Http2Connection connection,
      ServerWrites writes,
      ExchangeHost host,
      Runnable exchangesChanged,
      Runnable flush) {
    this.connection = connection;
    this.writes = writes;
    this.flush = flush;
    this.exchanges = new Http2Exchanges(this, host, exchangesChanged);
  }

  void attach(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  boolean isEmpty() {
    return exchanges.isEmpty();
  }

  /**
   * Offers a request gRPC does not take to the server's protocols; true if one took it, and then
   * {@code stream}'s slot holds the exchange's {@link ExchangeStream} (which keeps {@code
   * declared}, the body's count against its {@code content-length}, or null).
   */
  boolean serve(
      Http2Stream stream,
      RequestHeaders request,
      boolean endStream,
      Attributes attributes,
      DeclaredLength declared) {
    if (!exchanges.hasProtocols()) {
      return false;
    }
    HttpRequestHead head = request.toHttpRequestHead();
    HttpServerProtocol protocol = exchanges.find(head);
    if (protocol == null) {
      return false;
    }
    ExchangeStream slot = new ExchangeStream(stream.id());
    slot.declaredLength = declared;
    stream.attach(slot);
    exchanges.serve(protocol, stream, head, endStream, attributes, e -> slot.exchange = e);
    return true;
  }

  /** Trailers (which end the request) on the exchange's stream. */
  void onTrailers(ExchangeStream slot, boolean endStream) {
    exchanges.onTrailers(slot.exchange, endStream);
  }

  /**
   * DATA on the exchange's stream, which then owns the payload's bytes of the window (its padding
   * goes back now). The payload is released here: the exchange retains what it keeps.
   */
  void onData(
      Http2Stream stream,
      ExchangeStream slot,
      ByteBuf data,
      int flowControlled,
      boolean endStream) {
    int bytes = data.readableBytes();
    exchanges.onData(slot.exchange, data, endStream);
    data.release(); // the exchange retained it
    if (flowControlled > bytes) {
      connection.consumed(writes.out(), stream.id(), flowControlled - bytes);
    }
  }

  /** The exchange's stream was reset, by the client ({@code byPeer}) or by the engine. */
  void onReset(ExchangeStream slot, long errorCode, boolean byPeer) {
    if (byPeer) {
      exchanges.onReset(slot.exchange, errorCode);
    }
    slot.fail();
  }

  /** The exchange's stream closed; what it handed is still reported at the next flush. */
  void onStreamClosed(ExchangeStream slot, Status connectionFailure) {
    exchanges.onStreamClosed(slot.exchange, connectionFailure);
  }

  /** The server is shutting down now: every exchange of {@code streams} (the active) hears it. */
  void abortAll(List<Http2Stream> streams, Status status) {
    for (Http2Stream stream : streams) {
      if (stream.attachment() instanceof ExchangeStream slot) {
        exchanges.abort(slot.exchange, status);
      }
    }
  }

  /**
   * The connection is gone: every exchange of {@code streams} (those still active when it went) is
   * closed, and what it still held fails.
   */
  void closeAll(List<Http2Stream> streams, Status status) {
    for (Http2Stream stream : streams) {
      if (stream.attachment() instanceof ExchangeStream slot) {
        stream.attach(null);
        slot.fail();
        exchanges.onStreamClosed(slot.exchange, status);
      }
    }
  }

  // ---------------------------------------------------------------- Http2StreamOutput

  @Override
  public ChannelHandlerContext ctx() {
    return ctx;
  }

  @Override
  public void writeHeaders(
      Http2Stream stream, byte[][] headers, boolean endStream, ChannelPromise promise) {
    boolean sent = connection.sendHeaders(writes.out(), stream.id(), headers, endStream);
    track(stream, sent, 0, promise);
  }

  @Override
  public void writeData(
      Http2Stream stream, ByteBuf data, boolean endStream, ChannelPromise promise) {
    int bytes = data.readableBytes();
    boolean sent = connection.sendData(writes.out(), stream.id(), data, endStream);
    track(stream, sent, bytes, promise);
  }

  /** Keeps {@code promise} with the stream's slot until its bytes left. */
  private void track(Http2Stream stream, boolean sent, int bytes, ChannelPromise promise) {
    if (!sent) {
      promise.tryFailure(new ClosedChannelException());
      return;
    }
    // The stream may have closed within the write, clearing its slot: the write is then reported
    // at the next flush all the same, apart from the slot.
    ExchangeStream slot =
        stream.attachment() instanceof ExchangeStream attached
            ? attached
            : new ExchangeStream(stream.id());
    slot.handedBytes += bytes;
    slot.promises.add(new Handed(slot.handedBytes, promise));
    writes.handed(slot);
  }

  @Override
  public void resetIfOpen(Http2Stream stream, long errorCode) {
    Object slot = stream.attachment();
    connection.resetStream(writes.out(), stream.id(), errorCode);
    if (slot instanceof ExchangeStream exchangeStream) {
      exchangeStream.fail();
    }
  }

  @Override
  public boolean returnBytes(Http2Stream stream, int bytes) {
    if (bytes <= 0) {
      return false;
    }
    connection.consumed(writes.out(), stream.id(), bytes);
    return true;
  }

  @Override
  public void flush() {
    flush.run();
  }

  /** A write's promise, done once the stream's sent bytes reach {@code end}. */
  private record Handed(long end, ChannelPromise promise) {}

  /**
   * What an exchange's stream holds in its slot: the exchange, and its writes that have not been
   * reported.
   */
  static final class ExchangeStream extends HandedWrites {
    private final int streamId;
    private final ArrayDeque<Handed> promises = new ArrayDeque<>(2);
    private Http2Exchange exchange;
    private long handedBytes;
    private long reportedBytes;

    ExchangeStream(int streamId) {
      this.streamId = streamId;
    }

    @Override
    int streamId() {
      return streamId;
    }

    @Override
    Consumer<Future<?>> collect(long queued, Runnable onDataSent) {
      long sent = handedBytes - queued - reportedBytes;
      if (sent > 0) {
        onDataSent.run();
        reportedBytes += sent;
      }
      List<ChannelPromise> done = null;
      while (!promises.isEmpty() && promises.peekFirst().end() <= reportedBytes) {
        if (done == null) {
          done = new ArrayList<>(2);
        }
        done.add(promises.pollFirst().promise());
      }
      if (done == null) {
        return null;
      }
      List<ChannelPromise> completed = done;
      return written -> {
        for (ChannelPromise promise : completed) {
          if (written.isSuccess()) {
            promise.trySuccess();
          } else {
            promise.tryFailure(written.cause());
          }
        }
      };
    }

    @Override
    boolean allReported() {
      return promises.isEmpty();
    }

    /** The stream was reset or the connection is gone: what is still held will not leave. */
    void fail() {
      for (Handed handed : promises) {
        handed.promise().tryFailure(new ClosedChannelException());
      }
      promises.clear();
      reportedBytes = handedBytes;
    }
  }
}
