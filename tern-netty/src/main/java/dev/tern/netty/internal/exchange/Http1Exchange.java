package dev.tern.netty.internal.exchange;

import dev.tern.Attributes;
import dev.tern.Status;
import dev.tern.netty.http.HttpBodyListener;
import dev.tern.netty.http.HttpExchange;
import dev.tern.netty.http.HttpRequestHead;
import dev.tern.spi.ServerTransportListener;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.util.Objects;

/**
 * One request and its response on an HTTP/1.1 connection (see {@link HttpExchange}). The response
 * head waits for the first body write, so a body written whole goes out with a {@code
 * Content-Length} in one write; any other is chunked.
 *
 * <p>Event loop only.
 */
final class Http1Exchange implements HttpExchange {
  private final Http1ServerHandler connection;
  private final ChannelHandlerContext ctx;
  private final HttpRequestHead request;

  /** Whether the response may be chunked (the request is HTTP/1.1, not 1.0). */
  private final boolean chunkedAllowed;

  /** Whether the connection stays open for the next request once the response is complete. */
  private boolean keepAlive;

  private HttpBodyListener listener;

  /** Body bytes delivered to the listener and not yet consumed. */
  private int unconsumed;

  private boolean requestComplete;

  /** The head, held until the first body write decides the framing. */
  private HttpResponse pendingHead;

  private boolean headWritten;
  private boolean responseComplete;
  private boolean aborted;

  Http1Exchange(
      Http1ServerHandler connection,
      ChannelHandlerContext ctx,
      HttpRequestHead request,
      boolean keepAlive,
      boolean chunkedAllowed) {
    this.connection = connection;
    this.ctx = ctx;
    this.request = request;
    this.keepAlive = keepAlive;
    this.chunkedAllowed = chunkedAllowed;
  }

  boolean keepAlive() {
    return keepAlive;
  }

  boolean requestComplete() {
    return requestComplete;
  }

  int unconsumed() {
    return unconsumed;
  }

  /** A part of the body, from the connection. */
  void onBody(ByteBuf data, boolean last) {
    if (last) {
      requestComplete = true;
    }
    if (aborted || responseComplete) {
      data.release();
      return;
    }
    unconsumed += data.readableBytes();
    listener.onData(data, last);
  }

  /** The connection closed, or the server is shutting down now, before the response completed. */
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
    return connection.transport().listener();
  }

  @Override
  public Attributes attributes() {
    return connection.attributes();
  }

  @Override
  public EventLoop eventLoop() {
    return ctx.channel().eventLoop();
  }

  @Override
  public ByteBufAllocator alloc() {
    return ctx.alloc();
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
    unconsumed = Math.max(0, unconsumed - bytes);
    connection.onConsumed();
  }

  @Override
  public void writeHead(int status, HttpHeaders headers, boolean endOfStream) {
    assert eventLoop().inEventLoop();
    Objects.requireNonNull(headers, "headers");
    if (headWritten || pendingHead != null) {
      throw new IllegalStateException("response head already written");
    }
    if (!isOpen()) {
      return;
    }
    HttpResponseStatus code = HttpResponseStatus.valueOf(status);
    if (endOfStream) {
      DefaultFullHttpResponse full =
          new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, code, Unpooled.EMPTY_BUFFER);
      full.headers().set(headers).set(HttpHeaderNames.CONTENT_LENGTH, 0);
      headWritten = true;
      finish(full);
      return;
    }
    pendingHead = new DefaultHttpResponse(HttpVersion.HTTP_1_1, code);
    pendingHead.headers().set(headers);
  }

  @Override
  public ChannelFuture writeBody(ByteBuf data, boolean endOfStream) {
    assert eventLoop().inEventLoop();
    Objects.requireNonNull(data, "data");
    if (!isOpen() || !headWritten && pendingHead == null) {
      data.release();
      if (isOpen()) {
        throw new IllegalStateException("writeHead must come before writeBody");
      }
      return ctx.newFailedFuture(new IllegalStateException("exchange is closed"));
    }
    if (pendingHead != null) {
      HttpResponse head = pendingHead;
      pendingHead = null;
      headWritten = true;
      if (endOfStream) {
        DefaultFullHttpResponse full =
            new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1, head.status(), data, head.headers(), trailersNone());
        full.headers().set(HttpHeaderNames.CONTENT_LENGTH, data.readableBytes());
        return finish(full);
      }
      head.headers().remove(HttpHeaderNames.CONTENT_LENGTH);
      if (chunkedAllowed) {
        head.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
      } else {
        keepAlive = false; // an HTTP/1.0 client reads a body of unknown length until the close
      }
      connectionHeader(head.headers());
      ctx.write(head);
    }
    if (endOfStream) {
      return finish(new DefaultLastHttpContent(data));
    }
    return ctx.write(new DefaultHttpContent(data));
  }

  private static HttpHeaders trailersNone() {
    return new DefaultLastHttpContent().trailingHeaders();
  }

  private void connectionHeader(HttpHeaders headers) {
    if (!keepAlive || connection.isShuttingDown()) {
      headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
  }

  /** Writes the response's last part; the connection moves on once it is out. */
  private ChannelFuture finish(Object last) {
    responseComplete = true;
    if (last instanceof HttpResponse) {
      connectionHeader(((HttpResponse) last).headers());
    }
    ChannelFuture done = ctx.writeAndFlush(last);
    done.addListener(f -> connection.exchangeDone(this, f.isSuccess()));
    return done;
  }

  @Override
  public void flush() {
    ctx.flush();
  }

  @Override
  public boolean isOpen() {
    return !responseComplete && !aborted && ctx.channel().isActive();
  }

  @Override
  public void abort() {
    assert eventLoop().inEventLoop();
    if (responseComplete || aborted) {
      return;
    }
    aborted = true;
    if (!headWritten) {
      DefaultFullHttpResponse error =
          new DefaultFullHttpResponse(
              HttpVersion.HTTP_1_1,
              HttpResponseStatus.INTERNAL_SERVER_ERROR,
              Unpooled.EMPTY_BUFFER);
      error
          .headers()
          .set(HttpHeaderNames.CONTENT_LENGTH, 0)
          .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      ctx.writeAndFlush(error).addListener(f -> connection.exchangeDone(this, false));
    } else {
      ctx.flush();
      connection.exchangeDone(this, false);
    }
  }

  @Override
  public String toString() {
    return "Http1Exchange{" + request + "}";
  }
}
