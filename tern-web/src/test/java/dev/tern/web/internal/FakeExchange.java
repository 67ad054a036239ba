package dev.tern.web.internal;

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
import io.netty.channel.DefaultChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpHeaders;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An {@link HttpExchange} that records the response instead of sending it, on a real event loop (so
 * the protocols' hops from application threads are real). Checks the contract: event loop only,
 * head once before the body, nothing after the end. Response bodies are copied and released as they
 * are written. Test-thread methods are marked; the rest run on the event loop.
 */
final class FakeExchange implements HttpExchange {
  private final HttpRequestHead request;
  private final ServerTransportListener calls;
  private final EventLoop loop;
  private final EmbeddedChannel channel = new EmbeddedChannel();
  private final ByteArrayOutputStream body = new ByteArrayOutputStream();
  private final List<byte[]> writes = new ArrayList<>();
  private final List<String> violations = new ArrayList<>();
  final CompletableFuture<Void> ended = new CompletableFuture<>();
  private HttpBodyListener listener;
  private int status;
  private HttpHeaders headers;
  private boolean aborted;
  private long consumed;
  private long received;

  FakeExchange(HttpRequestHead request, ServerTransportListener calls, EventLoop loop) {
    this.request = request;
    this.calls = calls;
    this.loop = loop;
  }

  private void check() {
    if (!loop.inEventLoop()) {
      violations.add("called off the event loop: " + new Throwable().getStackTrace()[1]);
    }
  }

  @Override
  public HttpRequestHead request() {
    return request;
  }

  @Override
  public ServerTransportListener calls() {
    check();
    return calls;
  }

  @Override
  public Attributes attributes() {
    return Attributes.EMPTY;
  }

  @Override
  public EventLoop eventLoop() {
    return loop;
  }

  @Override
  public ByteBufAllocator alloc() {
    return ByteBufAllocator.DEFAULT;
  }

  @Override
  public void setBodyListener(HttpBodyListener listener) {
    this.listener = listener;
  }

  @Override
  public void consumed(int bytes) {
    check();
    consumed += bytes;
  }

  @Override
  public void writeHead(int status, HttpHeaders headers, boolean endOfStream) {
    check();
    if (this.headers != null) {
      violations.add("head written twice");
      return;
    }
    this.status = status;
    this.headers = headers;
    if (endOfStream) {
      ended.complete(null);
    }
  }

  @Override
  public ChannelFuture writeBody(ByteBuf data, boolean endOfStream) {
    check();
    DefaultChannelPromise promise = new DefaultChannelPromise(channel, loop);
    try {
      if (headers == null) {
        violations.add("body before head");
      }
      if (ended.isDone() || aborted) {
        promise.setFailure(new IllegalStateException("exchange is over"));
        return promise;
      }
      byte[] bytes = new byte[data.readableBytes()];
      data.readBytes(bytes);
      body.writeBytes(bytes);
      writes.add(bytes);
    } finally {
      data.release();
    }
    if (endOfStream) {
      ended.complete(null);
    }
    promise.setSuccess();
    return promise;
  }

  @Override
  public void flush() {
    check();
  }

  @Override
  public boolean isOpen() {
    return !ended.isDone() && !aborted;
  }

  @Override
  public void abort() {
    check();
    aborted = true;
    ended.complete(null);
  }

  // ---- test thread

  /** Sends part of the request body, from the event loop. */
  void send(byte[] data, boolean endOfStream) {
    run(
        () -> {
          received += data.length;
          listener.onData(Unpooled.copiedBuffer(data), endOfStream);
        });
  }

  /** Sends the whole body one byte at a time (an empty body as one empty end). */
  void sendByteByByte(byte[] data) {
    if (data.length == 0) {
      send(data, true);
    }
    for (int i = 0; i < data.length; i++) {
      send(new byte[] {data[i]}, i == data.length - 1);
    }
  }

  /** The client goes away. */
  void clientAborts() {
    run(
        () -> {
          aborted = true;
          listener.onAbort(Status.CANCELLED.withDescription("client reset"));
        });
  }

  void run(Runnable action) {
    try {
      loop.submit(action).get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** Waits for the end of the response. */
  FakeExchange awaitEnd() {
    try {
      ended.get(10, TimeUnit.SECONDS);
      // Let writes queued behind the end (there should be none) show up.
      run(() -> {});
    } catch (Exception e) {
      throw new AssertionError("response did not end; status " + status + ", body " + text(), e);
    }
    return this;
  }

  int status() {
    return status;
  }

  String header(String name) {
    return headers == null ? null : headers.get(name);
  }

  HttpHeaders headers() {
    return headers;
  }

  byte[] body() {
    return body.toByteArray();
  }

  String text() {
    return body.toString(StandardCharsets.UTF_8);
  }

  List<byte[]> writes() {
    return writes;
  }

  boolean aborted() {
    return aborted;
  }

  /** Request bytes received and paid back with {@code consumed}. */
  long received() {
    return received;
  }

  long consumedBytes() {
    long[] c = new long[1];
    run(() -> c[0] = consumed);
    return c[0];
  }

  List<String> violations() {
    return violations;
  }
}
