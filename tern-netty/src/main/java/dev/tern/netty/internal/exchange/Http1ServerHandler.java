package dev.tern.netty.internal.exchange;

import dev.tern.Attributes;
import dev.tern.Status;
import dev.tern.internal.wire.GrpcMessageCodec;
import dev.tern.netty.http.HttpBodyListener;
import dev.tern.netty.http.HttpRequestHead;
import dev.tern.netty.http.HttpServerProtocol;
import dev.tern.netty.internal.grpc.GrpcWire;
import dev.tern.netty.internal.io.ConnectionAgeLimits;
import dev.tern.netty.internal.io.NetworkFailures;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Locale;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The server end of one HTTP/1.1 connection: requests one at a time, each offered to the server's
 * {@link HttpServerProtocol}s and served as an {@link Http1Exchange}; a request none takes gets 415
 * (POST) or 405 (other methods) with a short text body and a {@code grpc-status}, and the
 * connection stays open for the next. A request the codec cannot parse gets 400 (431 for headers
 * over the limit, 414 for a request line over 8 KiB) and the connection closes, as its framing is
 * lost.
 *
 * <p>Requests a client pipelines wait: the socket is not read while a response is incomplete, and
 * what one read already brought waits in a queue bounded by that read. While the exchange's
 * protocol holds more than {@link #INBOUND_WINDOW} body bytes it has not consumed, the socket is
 * not read either.
 *
 * <p>Event loop only.
 */
public final class Http1ServerHandler extends ChannelInboundHandlerAdapter {
  private static final Logger logger = Logger.getLogger(Http1ServerHandler.class.getName());

  /** Body bytes a protocol may hold unconsumed before the socket stops being read. */
  static final int INBOUND_WINDOW = 64 * 1024;

  /** Longest request line; the header block is bounded by the server's metadata limit. */
  public static final int MAX_INITIAL_LINE = 8 * 1024;

  private final ExchangeHost transport;
  private final boolean tls;

  /**
   * What the codec decoded and the connection did not take yet: a pipelined request, or body beyond
   * the window. Bounded by what the reads before reading stopped brought.
   */
  private final ArrayDeque<Object> waiting = new ArrayDeque<>();

  private ChannelHandlerContext ctx;
  private Attributes attributes = Attributes.EMPTY;
  private ConnectionAgeLimits limits;

  /** The exchange whose response is being written, or null between requests. */
  private Http1Exchange exchange;

  /** The request's body goes nowhere (it was refused, or answered early): drop it until its end. */
  private boolean discardingBody;

  /** Close once the body being dropped has ended (its request did not allow keep-alive). */
  private boolean closeAfterDiscard;

  private boolean draining;
  private boolean shuttingDown;

  public Http1ServerHandler(ExchangeHost transport, boolean tls) {
    this.transport = transport;
    this.tls = tls;
  }

  /** Puts the HTTP/1.1 codec and this handler after {@code ctx}'s handler. */
  public void install(ChannelHandlerContext ctx) {
    HttpDecoderConfig config =
        new HttpDecoderConfig()
            .setMaxInitialLineLength(MAX_INITIAL_LINE)
            .setMaxHeaderSize(transport.maxInboundMetadataSize())
            .setMaxChunkSize(INBOUND_WINDOW);
    String codec = ctx.name() + "-http1-codec";
    ctx.pipeline().addAfter(ctx.name(), codec, new HttpServerCodec(config));
    ctx.pipeline().addAfter(codec, null, this);
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    Attributes attrs = transport.readyAttributes();
    Attributes returned = transport.listener().transportReady(attrs);
    attributes = returned != null ? returned : attrs;
    limits =
        new ConnectionAgeLimits(
            ctx,
            transport.maxConnectionIdleNanos(),
            transport.maxConnectionAgeNanos(),
            transport.maxConnectionAgeGraceNanos(),
            this::gracefulShutdown,
            this::shutdownNow);
    limits.start();
  }

  Attributes attributes() {
    return attributes;
  }

  ExchangeHost transport() {
    return transport;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    // Everything goes through the queue, so a pipelined request (or the body of one) waits for
    // its turn: the response before it complete, the protocol caught up with its window.
    waiting.add(msg);
    drain();
  }

  /**
   * Hands queued messages on while the connection may take them, then decides whether to read the
   * socket. Re-entered (a protocol answering or consuming inside a callback) it leaves the work to
   * the loop already running.
   */
  private void drain() {
    if (draining) {
      return;
    }
    draining = true;
    try {
      while (!waiting.isEmpty() && acceptsMore() && ctx.channel().isOpen()) {
        handle(waiting.poll());
      }
    } finally {
      draining = false;
    }
    updateReading();
  }

  /**
   * Whether the next message may be handled now: between requests, or the exchange's request body
   * is still arriving and its protocol holds no more than the window unconsumed.
   */
  private boolean acceptsMore() {
    return exchange == null
        || !exchange.requestComplete() && exchange.unconsumed() <= INBOUND_WINDOW;
  }

  private void handle(Object msg) {
    if (msg instanceof HttpRequest) {
      if (!onRequest((HttpRequest) msg)) {
        ReferenceCountUtil.release(msg);
        return;
      }
    }
    if (msg instanceof HttpContent) {
      HttpContent content = (HttpContent) msg;
      boolean last = content instanceof LastHttpContent;
      if (exchange != null && !exchange.requestComplete()) {
        exchange.onBody(content.content(), last);
      } else {
        content.release();
        if (last && discardingBody) {
          discardingBody = false;
          if (closeAfterDiscard) {
            ctx.close();
          }
        }
      }
    } else if (!(msg instanceof HttpRequest)) {
      ReferenceCountUtil.release(msg);
    }
  }

  /** Starts serving {@code request}; false if it was answered and its body is to be dropped. */
  private boolean onRequest(HttpRequest request) {
    assert ctx.executor().inEventLoop();
    DecoderResult result = request.decoderResult();
    if (result.isFailure()) {
      badRequest(result.cause());
      return false;
    }
    String expect = request.headers().get(HttpHeaderNames.EXPECT);
    boolean continueExpected = HttpUtil.is100ContinueExpected(request);
    boolean http11 = request.protocolVersion().compareTo(HttpVersion.HTTP_1_1) >= 0;
    if (expect != null && http11 && !HttpHeaderValues.CONTINUE.contentEqualsIgnoreCase(expect)) {
      // RFC 9110 section 10.1.1: 100-continue is the only expectation (HTTP/1.0 ignores them).
      refuse(
          417,
          Status.INTERNAL.withDescription("Expectation '" + expect + "' is not supported"),
          false);
      return false;
    }
    // A refused request that waits for 100 Continue may never send its body: the answer closes.
    boolean keepAlive = HttpUtil.isKeepAlive(request) && !shuttingDown;
    HttpRequestHead head = HttpRequestHeads.http1(request, tls);
    HttpServerProtocol protocol = transport.httpProtocols().find(head);
    if (protocol == null) {
      refuseUnserved(head, keepAlive && !continueExpected);
      return false;
    }
    if (continueExpected) {
      ctx.writeAndFlush(
          new DefaultFullHttpResponse(
              HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE, Unpooled.EMPTY_BUFFER));
    }
    Http1Exchange started = new Http1Exchange(this, ctx, head, keepAlive, http11);
    exchange = started;
    limits.onActive();
    transport.socketNode().streamStarted(false);
    HttpBodyListener listener;
    try {
      listener = protocol.serve(started);
    } catch (RuntimeException e) {
      logger.log(Level.SEVERE, protocol + ".serve failed for " + head, e);
      listener = null;
    }
    if (listener == null) {
      started.abort();
      return false;
    }
    started.setBodyListener(listener);
    // The protocol may have answered already (and the connection moved on): the body then goes
    // nowhere.
    return exchange == started;
  }

  /**
   * Answers a request no protocol takes, with 415 (POST) or 405; its body is dropped. The
   * connection stays open for the next request, unless the server serves nothing over HTTP/1.1 or
   * the request was gRPC (whose client needs HTTP/2 and will not get it here).
   */
  private void refuseUnserved(HttpRequestHead head, boolean keepAlive) {
    boolean keep = keepAlive && !transport.httpProtocols().list().isEmpty();
    if (!HttpMethod.POST.name().equals(head.method())) {
      refuse(
          405,
          Status.INTERNAL.withDescription("Method '" + head.method() + "' is not supported"),
          keep);
      return;
    }
    String contentType = head.header("content-type");
    if (GrpcWire.isGrpcContentType(contentType)) {
      refuse(
          415,
          Status.INTERNAL.withDescription("gRPC requires HTTP/2; this request came over HTTP/1.1"),
          false);
      return;
    }
    refuse(
        415,
        Status.INTERNAL.withDescription("Content-Type '" + contentType + "' is not supported"),
        keep);
  }

  /** Answers a request at once; its body, if any, is read and dropped. */
  private void refuse(int code, Status status, boolean keepAlive) {
    discardingBody = true;
    closeAfterDiscard = !keepAlive;
    writeTextAnswer(code, status, keepAlive);
  }

  /** The request could not be parsed: its framing is lost, so the answer closes the connection. */
  private void badRequest(Throwable cause) {
    int code =
        cause instanceof TooLongHttpHeaderException
            ? 431
            : cause instanceof TooLongHttpLineException
                ? 414
                : cause instanceof TooLongFrameException ? 413 : 400;
    Status status =
        switch (code) {
          case 431 ->
              Status.RESOURCE_EXHAUSTED.withDescription(
                  "Request headers larger than " + transport.maxInboundMetadataSize() + " bytes");
          case 414 ->
              Status.RESOURCE_EXHAUSTED.withDescription(
                  "Request line larger than " + MAX_INITIAL_LINE + " bytes");
          default ->
              Status.INTERNAL.withDescription("Malformed HTTP/1.1 request: " + cause.getMessage());
        };
    writeTextAnswer(code, status, false);
  }

  private void writeTextAnswer(int code, Status status, boolean keepAlive) {
    ByteBuf body = ByteBufUtil.writeUtf8(ctx.alloc(), code + " " + status.getDescription() + "\n");
    FullHttpResponse response =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(code), body);
    response
        .headers()
        .set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8")
        .set(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes())
        .set("grpc-status", Integer.toString(status.getCode().value()))
        .set("grpc-message", GrpcMessageCodec.encode(status.getDescription()));
    if (!keepAlive) {
      response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    } else {
      ctx.writeAndFlush(response);
    }
  }

  /**
   * The exchange's response is complete ({@code ok}) or it was aborted: on to the next request. A
   * response that completed before its request's body did leaves the rest of the body to be read
   * and dropped first.
   */
  void exchangeDone(Http1Exchange done, boolean ok) {
    if (done != exchange) {
      return;
    }
    exchange = null;
    transport.socketNode().streamEnded(ok);
    limits.onIdle();
    if (!done.keepAlive() || !ok || shuttingDown) {
      ctx.close();
      return;
    }
    if (!done.requestComplete()) {
      discardingBody = true;
      closeAfterDiscard = false;
    }
    drain();
  }

  /** The exchange's protocol consumed body bytes: what waited may go on, reading may resume. */
  void onConsumed() {
    drain();
  }

  /** Whether the connection closes after the response in flight (the server is shutting down). */
  boolean isShuttingDown() {
    return shuttingDown;
  }

  /**
   * Reads the socket only while the next message could be taken at once: nothing queued, and the
   * exchange (if any) still receiving its body within the window.
   */
  private void updateReading() {
    boolean read =
        waiting.isEmpty()
            && (exchange == null
                || !exchange.requestComplete() && exchange.unconsumed() <= INBOUND_WINDOW);
    if (ctx.channel().config().isAutoRead() != read) {
      ctx.channel().config().setAutoRead(read);
    }
  }

  /** Graceful shutdown: the exchange in flight completes; then, or at once if idle, close. */
  public void gracefulShutdown() {
    assert ctx.executor().inEventLoop();
    shuttingDown = true;
    if (exchange == null) {
      ctx.close();
    }
  }

  /** Abandons the exchange in flight and closes. */
  public void shutdownNow(Status status) {
    assert ctx.executor().inEventLoop();
    shuttingDown = true;
    Http1Exchange current = exchange;
    if (current != null) {
      current.peerGone(status);
    }
    ctx.close();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    try {
      Http1Exchange current = exchange;
      if (current != null) {
        exchange = null;
        // As for an HTTP/2 stream whose connection closed: the client went away.
        current.peerGone(
            Status.CANCELLED.withDescription("connection closed before the response ended"));
        transport.socketNode().streamEnded(false);
      }
      Object msg;
      while ((msg = waiting.poll()) != null) {
        ReferenceCountUtil.release(msg);
      }
      if (limits != null) {
        limits.stop();
      }
      transport.terminated();
    } finally {
      super.channelInactive(ctx);
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof IOException) {
      NetworkFailures.log(ctx, "closed", cause);
    } else {
      logger.log(
          Level.WARNING,
          "HTTP/1.1 connection " + ctx.channel().remoteAddress() + " failed; closing it",
          cause);
    }
    ctx.close();
  }

  @Override
  public String toString() {
    return "Http1ServerHandler{" + (tls ? "TLS" : "cleartext").toLowerCase(Locale.ROOT) + "}";
  }
}
