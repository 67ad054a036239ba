package dev.tern.netty.internal.server;

import dev.tern.Attributes;
import dev.tern.Status;
import dev.tern.netty.internal.exchange.ExchangeHost;
import dev.tern.netty.internal.exchange.Http2Exchanges;
import dev.tern.netty.internal.exchange.Http2StreamOutput;
import dev.tern.netty.internal.http2.Http2Connection;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import io.netty.util.concurrent.Future;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The requests on Tern's HTTP/2 engine that a protocol other than gRPC serves (tern-web's gRPC-Web
 * and Connect): their {@link Http2Exchanges}, written through the engine. {@link ServerHandler}
 * passes on the frames of their streams; this is their {@link Http2StreamOutput}: HEADERS and DATA
 * go into the flush's buffer ({@link ServerWrites}), and each write's promise completes once the
 * flush that carried its last byte is written (DATA the engine holds for flow-control credit waits
 * for later flushes). A write on a stream that is no longer active, and writes still held when the
 * stream is reset, fail.
 *
 * <p>Event loop only; not thread-safe.
 */
final class ExchangeOutput implements Http2StreamOutput {
  private final Http2Connection connection;
  private final ServerWrites writes;
  private final Runnable flush;
  private final Http2Exchanges exchanges;
  private ChannelHandlerContext ctx;

  /** Per exchange stream, the writes not yet reported; made for the first exchange. */
  private IntObjectMap<StreamWrites> byStream;

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

  /** Offers a request gRPC does not take to the server's protocols; true if one took it. */
  boolean serve(int streamId, RequestHeaders request, boolean endStream, Attributes attributes) {
    return exchanges.hasProtocols()
        && exchanges.serve(streamId, request.toHttpRequestHead(), endStream, attributes);
  }

  /** Trailers (which end the request); true if the stream is an exchange's. */
  boolean onTrailers(int streamId, boolean endStream) {
    return exchanges.onTrailers(streamId, endStream);
  }

  /**
   * DATA; true if the stream is an exchange's, which then owns the payload's bytes of the window
   * (its padding goes back now). The payload is released either way by the caller's contract: the
   * exchange retains what it keeps.
   */
  boolean onData(int streamId, ByteBuf data, int flowControlled, boolean endStream) {
    int bytes = data.readableBytes();
    if (!exchanges.onData(streamId, data, endStream)) {
      return false;
    }
    data.release(); // the exchange retained it
    if (flowControlled > bytes) {
      connection.consumed(writes.out(), streamId, flowControlled - bytes);
    }
    return true;
  }

  /** Whether {@code streamId} carries an exchange that has not ended. */
  boolean isOpen(int streamId) {
    return exchanges.isOpen(streamId);
  }

  /** The stream was reset, by the client ({@code byPeer}) or by the engine. */
  void onReset(int streamId, long errorCode, boolean byPeer) {
    if (byPeer) {
      exchanges.onReset(streamId, errorCode);
    }
    failWrites(streamId);
  }

  void onStreamClosed(int streamId, Status connectionFailure) {
    exchanges.onStreamClosed(streamId, connectionFailure);
    if (byStream != null) {
      byStream.remove(streamId); // what it handed is still reported at the next flush
    }
  }

  /** The server is shutting down now: every exchange hears it. */
  void abortAll(Status status) {
    exchanges.abortAll(status);
  }

  /** The connection is gone: every exchange's stream is closed. */
  void closeAll(Status status) {
    exchanges.closeAll(status);
    if (byStream != null) {
      for (StreamWrites stream : byStream.values()) {
        stream.fail();
      }
      byStream.clear();
    }
  }

  private void failWrites(int streamId) {
    StreamWrites stream = byStream == null ? null : byStream.remove(streamId);
    if (stream != null) {
      stream.fail();
    }
  }

  // ---------------------------------------------------------------- Http2StreamOutput

  @Override
  public ChannelHandlerContext ctx() {
    return ctx;
  }

  @Override
  public void writeHeaders(
      int streamId, byte[][] headers, boolean endStream, ChannelPromise promise) {
    boolean sent = connection.sendHeaders(writes.out(), streamId, headers, endStream);
    track(streamId, sent, 0, promise);
  }

  @Override
  public void writeData(int streamId, ByteBuf data, boolean endStream, ChannelPromise promise) {
    int bytes = data.readableBytes();
    boolean sent = connection.sendData(writes.out(), streamId, data, endStream);
    track(streamId, sent, bytes, promise);
  }

  private void track(int streamId, boolean sent, int bytes, ChannelPromise promise) {
    if (!sent) {
      promise.tryFailure(new ClosedChannelException());
      return;
    }
    if (byStream == null) {
      byStream = new IntObjectHashMap<>(4);
    }
    StreamWrites stream = byStream.get(streamId);
    if (stream == null) {
      stream = new StreamWrites(streamId);
      byStream.put(streamId, stream);
    }
    stream.handedBytes += bytes;
    stream.promises.add(new Handed(stream.handedBytes, promise));
    writes.handed(stream);
  }

  @Override
  public void resetIfOpen(int streamId, long errorCode) {
    connection.resetStream(writes.out(), streamId, errorCode);
    failWrites(streamId);
  }

  @Override
  public boolean returnBytes(int streamId, int bytes) {
    if (bytes <= 0) {
      return false;
    }
    connection.consumed(writes.out(), streamId, bytes);
    return true;
  }

  @Override
  public void flush() {
    flush.run();
  }

  /** A write's promise, done once the stream's sent bytes reach {@code end}. */
  private record Handed(long end, ChannelPromise promise) {}

  /** One exchange stream's writes that have not been reported. */
  private static final class StreamWrites extends HandedWrites {
    private final int streamId;
    private final ArrayDeque<Handed> promises = new ArrayDeque<>(2);
    private long handedBytes;
    private long reportedBytes;

    StreamWrites(int streamId) {
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
