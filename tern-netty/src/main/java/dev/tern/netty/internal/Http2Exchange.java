package dev.tern.netty.internal;

import dev.tern.Attributes;
import dev.tern.Status;
import dev.tern.netty.http.HttpBodyListener;
import dev.tern.netty.http.HttpExchange;
import dev.tern.netty.http.HttpRequestHead;
import dev.tern.spi.ServerTransportListener;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * One request and its response on an HTTP/2 stream, for a protocol other than gRPC (see {@link
 * HttpExchange}). Body bytes count against the stream's flow-control window until the protocol
 * consumes them, so a client cannot make the server hold more than one window per stream.
 *
 * <p>Event loop only.
 */
final class Http2Exchange implements HttpExchange {
  private final ServerHandler handler;
  private final int streamId;
  private final HttpRequestHead request;
  private final Attributes attributes;
  private HttpBodyListener listener;
  private boolean headWritten;
  private boolean responseComplete;
  private boolean aborted;

  Http2Exchange(
      ServerHandler handler, int streamId, HttpRequestHead request, Attributes attributes) {
    this.handler = handler;
    this.streamId = streamId;
    this.request = request;
    this.attributes = attributes;
  }

  int streamId() {
    return streamId;
  }

  /** Whether the whole response was written. */
  boolean completed() {
    return responseComplete;
  }

  /** A DATA frame's payload (retained for the listener), from the connection. */
  void onData(ByteBuf data, boolean endOfStream) {
    if (aborted || listener == null) {
      int bytes = data.readableBytes();
      data.release();
      handler.returnBytes(streamId, bytes);
      return;
    }
    listener.onData(data, endOfStream);
  }

  /** The client reset the stream, or the connection is gone, before the response completed. */
  void peerGone(Status status) {
    if (responseComplete || aborted) {
      return;
    }
    aborted = true;
    if (listener != null) {
      listener.onAbort(status);
    }
  }

  // ---- HttpExchange

  @Override
  public HttpRequestHead request() {
    return request;
  }

  @Override
  public ServerTransportListener calls() {
    return handler.transportListener();
  }

  @Override
  public Attributes attributes() {
    return attributes;
  }

  @Override
  public EventLoop eventLoop() {
    return handler.ctx().channel().eventLoop();
  }

  @Override
  public ByteBufAllocator alloc() {
    return handler.ctx().alloc();
  }

  @Override
  public void setBodyListener(HttpBodyListener listener) {
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  @Override
  public void consumed(int bytes) {
    assert eventLoop().inEventLoop();
    if (bytes < 0) {
      throw new IllegalArgumentException("bytes must be >= 0: " + bytes);
    }
    if (bytes > 0) {
      handler.returnBytes(streamId, bytes);
    }
  }

  @Override
  public void writeHead(int status, HttpHeaders headers, boolean endOfStream) {
    assert eventLoop().inEventLoop();
    Objects.requireNonNull(headers, "headers");
    if (headWritten) {
      throw new IllegalStateException("response head already written");
    }
    if (!isOpen()) {
      return;
    }
    headWritten = true;
    Http2Headers out = new DefaultHttp2Headers(false, headers.size() + 1);
    out.status(AsciiString.of(Integer.toString(status)));
    Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence();
    while (it.hasNext()) {
      Map.Entry<CharSequence, CharSequence> header = it.next();
      out.add(
          AsciiString.of(header.getKey().toString().toLowerCase(Locale.ROOT)), header.getValue());
    }
    if (endOfStream) {
      responseComplete = true;
    }
    handler.encoder().writeHeaders(handler.ctx(), streamId, out, 0, endOfStream, newPromise());
    if (endOfStream) {
      flush();
    }
  }

  @Override
  public ChannelFuture writeBody(ByteBuf data, boolean endOfStream) {
    assert eventLoop().inEventLoop();
    Objects.requireNonNull(data, "data");
    if (!isOpen() || !headWritten) {
      data.release();
      if (isOpen()) {
        throw new IllegalStateException("writeHead must come before writeBody");
      }
      return handler.ctx().newFailedFuture(new IllegalStateException("exchange is closed"));
    }
    if (endOfStream) {
      responseComplete = true;
    }
    ChannelPromise promise = newPromise();
    handler.encoder().writeData(handler.ctx(), streamId, data, 0, endOfStream, promise);
    if (endOfStream) {
      flush();
    }
    return promise;
  }

  @Override
  public void flush() {
    // Through the HTTP/2 handler, not past it: DATA waits in its flow controller until the
    // handler's own flush writes the pending bytes, which handler.ctx().flush() would skip.
    handler.ctx().channel().flush();
  }

  @Override
  public boolean isOpen() {
    return !responseComplete && !aborted && handler.ctx().channel().isActive();
  }

  @Override
  public void abort() {
    assert eventLoop().inEventLoop();
    if (responseComplete || aborted) {
      return;
    }
    aborted = true;
    handler.resetStream(handler.ctx(), streamId, Http2Error.CANCEL.code(), newPromise());
    flush();
  }

  private ChannelPromise newPromise() {
    return handler.ctx().newPromise();
  }

  @Override
  public String toString() {
    return "Http2Exchange{" + streamId + " " + request + "}";
  }
}
