package dev.tern.netty.internal.exchange;

import dev.tern.Attributes;
import dev.tern.Status;
import dev.tern.netty.http.HttpBodyListener;
import dev.tern.netty.http.HttpExchange;
import dev.tern.netty.http.HttpRequestHead;
import dev.tern.netty.internal.http2.Http2FrameException;
import dev.tern.netty.internal.http2.Http2Stream;
import dev.tern.spi.ServerTransportListener;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * One request and its response on an HTTP/2 stream, for a protocol other than gRPC (see {@link
 * HttpExchange}). Body bytes count against the stream's flow-control window until the protocol
 * consumes them, so a client cannot make the server hold more than one window per stream.
 *
 * <p>The connection finds it from its stream's slot ({@link Http2Stream#attachment}), through what
 * the connection attached there; it writes through {@link Http2StreamOutput} with that stream.
 *
 * <p>Event loop only.
 */
public final class Http2Exchange implements HttpExchange {
  private static final byte[] STATUS = latin1(":status");

  private final Http2StreamOutput output;
  private final ExchangeHost host;
  private final Http2Stream stream;
  private final HttpRequestHead request;
  private final Attributes attributes;
  private HttpBodyListener listener;
  private boolean headWritten;
  private boolean requestComplete;
  private boolean responseComplete;
  private boolean aborted;

  Http2Exchange(
      Http2StreamOutput output,
      ExchangeHost host,
      Http2Stream stream,
      HttpRequestHead request,
      Attributes attributes,
      boolean requestComplete) {
    this.output = output;
    this.host = host;
    this.stream = stream;
    this.request = request;
    this.attributes = attributes;
    this.requestComplete = requestComplete;
  }

  /** Whether the whole response was written. */
  boolean completed() {
    return responseComplete;
  }

  /** A DATA frame's payload (retained for the listener), from the connection. */
  void onData(ByteBuf data, boolean endOfStream) {
    if (endOfStream) {
      requestComplete = true;
    }
    if (aborted || responseComplete || listener == null) {
      // Nobody reads it any more: straight back to the window.
      int bytes = data.readableBytes();
      data.release();
      output.returnBytes(stream, bytes);
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
    return host.listener();
  }

  @Override
  public Attributes attributes() {
    return attributes;
  }

  @Override
  public EventLoop eventLoop() {
    return output.ctx().channel().eventLoop();
  }

  @Override
  public ByteBufAllocator alloc() {
    return output.ctx().alloc();
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
    // A protocol consumes when its application reads, outside the connection's reads (whose end
    // flushes): the WINDOW_UPDATE goes out now, or the client waits for it.
    if (output.returnBytes(stream, bytes)) {
      flush();
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
    byte[][] out = new byte[2 * (headers.size() + 1)][];
    out[0] = STATUS;
    out[1] = latin1(Integer.toString(status));
    int n = 2;
    Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence();
    while (it.hasNext()) {
      Map.Entry<CharSequence, CharSequence> header = it.next();
      out[n++] = latin1(header.getKey().toString().toLowerCase(Locale.ROOT));
      out[n++] = latin1(header.getValue());
    }
    // Complete before the write: on Tern's engine the stream may close within it.
    responseComplete = endOfStream;
    ChannelPromise promise = output.ctx().newPromise();
    output.writeHeaders(stream, out, endOfStream, promise);
    if (endOfStream) {
      responded(promise);
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
      return output.ctx().newFailedFuture(new IllegalStateException("exchange is closed"));
    }
    responseComplete = endOfStream; // before the write, as in writeHead
    ChannelPromise promise = output.ctx().newPromise();
    output.writeData(stream, data, endOfStream, promise);
    if (endOfStream) {
      responded(promise);
    }
    return promise;
  }

  /**
   * The response's last frame is written: flush, and once it is out ask a client still sending the
   * body to stop, with RST_STREAM(NO_ERROR) (RFC 9113 section 8.1), since nothing reads it now.
   */
  private void responded(ChannelFuture last) {
    responseComplete = true;
    flush();
    if (!requestComplete) {
      last.addListener(
          f -> {
            if (f.isSuccess()) {
              resetIfOpen(Http2FrameException.NO_ERROR);
            }
          });
    }
  }

  @Override
  public void flush() {
    output.flush();
  }

  @Override
  public boolean isOpen() {
    return !responseComplete && !aborted && output.ctx().channel().isActive();
  }

  @Override
  public void abort() {
    assert eventLoop().inEventLoop();
    if (responseComplete || aborted) {
      return;
    }
    aborted = true;
    resetIfOpen(Http2FrameException.CANCEL);
  }

  /** Resets the stream with {@code errorCode} and flushes, unless it is closed already. */
  private void resetIfOpen(long errorCode) {
    output.resetIfOpen(stream, errorCode);
    flush();
  }

  /** A header's bytes, one per character, as HTTP/1.1's encoder writes them. */
  private static byte[] latin1(CharSequence s) {
    return s.toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  @Override
  public String toString() {
    return "Http2Exchange{" + stream.id() + " " + request + "}";
  }
}
