package dev.tern.web.internal;

import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.netty.http.HttpExchange;
import dev.tern.netty.internal.buffer.NettyReadableBuffer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.nio.charset.StandardCharsets;

/**
 * One Connect unary call: the request body (or a GET's {@code message} query parameter) is the one
 * message, compressed as its {@code content-encoding} says; the response is the one message with
 * HTTP 200, response headers as headers and trailers as {@code trailer-} headers, or an error: the
 * HTTP status Connect maps the code to and the JSON error body. As headers can only go out once the
 * trailers are known, the response is held until the call closes.
 *
 * <p>The request body is gathered whole (it is a single message), up to the method's inbound size
 * limit; a larger one ends the call RESOURCE_EXHAUSTED without being held. It is then handed to the
 * deframer as one envelope, which applies decompression and its limits.
 *
 * <p>Thread-safety: as {@link WebServerStream}; the hooks here run on the event loop.
 */
final class ConnectUnaryStream extends WebServerStream {
  private final String contentType;
  private final boolean requestCompressed;
  private volatile int maxInboundMessageSize = Integer.MAX_VALUE;
  private CompositeByteBuf body;
  private Metadata responseHeaders;
  private byte[] responseMessage;
  private boolean responseCompressed;

  /**
   * @param contentType the response's content type ({@code application/proto} or {@code json})
   * @param requestCompressed whether the request names a {@code content-encoding} other than
   *     identity
   */
  ConnectUnaryStream(
      HttpExchange exchange,
      Cors cors,
      MessageTransform transform,
      String fullMethodName,
      String contentType,
      boolean requestCompressed) {
    super(exchange, cors, transform, fullMethodName, true);
    this.contentType = contentType;
    this.requestCompressed = requestCompressed;
  }

  @Override
  public void setMaxInboundMessageSize(int bytes) {
    super.setMaxInboundMessageSize(bytes);
    maxInboundMessageSize = bytes;
  }

  /** A GET's message, from its query: the whole request. Event loop only. */
  void messageFromQuery(byte[] message) {
    body = exchange.alloc().compositeBuffer();
    body.addComponent(true, Unpooled.wrappedBuffer(message));
    endInbound();
  }

  @Override
  void inbound(ByteBuf data) {
    int bytes = data.readableBytes();
    // Held whole, so paid back at once; the size limit bounds what is held.
    exchange.consumed(bytes);
    if (body == null) {
      body = exchange.alloc().compositeBuffer();
    }
    body.addComponent(true, data);
    if (body.readableBytes() > maxInboundMessageSize) {
      int size = body.readableBytes();
      releaseBody();
      fail(
          Status.RESOURCE_EXHAUSTED.withDescription(
              "Request message of at least "
                  + size
                  + " bytes is larger than the limit of "
                  + maxInboundMessageSize));
    }
  }

  @Override
  void inboundEnded() {
    ByteBuf message = body == null ? Unpooled.EMPTY_BUFFER : body;
    body = null;
    ByteBuf prefix = exchange.alloc().buffer(Envelopes.PREFIX_LENGTH);
    prefix.writeByte(requestCompressed ? Envelopes.COMPRESSED : 0);
    prefix.writeInt(message.readableBytes());
    deframer().deframe(new NettyReadableBuffer(prefix));
    deframer().deframe(new NettyReadableBuffer(message));
    super.inboundEnded();
  }

  @Override
  int wireBytes(int deframed) {
    return 0; // paid back as it arrived
  }

  @Override
  void dropInbound() {
    releaseBody();
  }

  private void releaseBody() {
    if (body != null) {
      body.release();
      body = null;
    }
  }

  @Override
  void sendHeaders(Metadata metadata) {
    responseHeaders = metadata;
  }

  @Override
  void sendMessage(byte[] payload, boolean compressed, int accounted) {
    if (responseMessage == null) {
      responseMessage = payload;
      responseCompressed = compressed;
    }
    written(accounted);
  }

  @Override
  ChannelFuture sendEnding(Status status, Metadata trailers) {
    releaseBody();
    Metadata headers = responseHeaders == null ? new Metadata() : responseHeaders;
    if (status.isOk() && responseMessage == null) {
      status = Status.INTERNAL.withDescription("No response message for unary " + fullMethodName());
    }
    HttpHeaders out = new DefaultHttpHeaders();
    int httpStatus;
    ByteBuf content;
    if (status.isOk()) {
      httpStatus = 200;
      out.set("content-type", contentType);
      String encoding = headers.get(ConnectProtocol.GRPC_ENCODING);
      if (responseCompressed && encoding != null) {
        out.set("content-encoding", encoding);
      }
      content = Unpooled.wrappedBuffer(responseMessage);
    } else {
      httpStatus = ConnectErrors.httpStatus(status.getCode());
      out.set("content-type", "application/json");
      content =
          Unpooled.wrappedBuffer(
              ConnectErrors.errorJson(status, trailers).getBytes(StandardCharsets.UTF_8));
    }
    String accept = headers.get(ConnectProtocol.GRPC_ACCEPT_ENCODING);
    if (accept == null) {
      // A call refused for its encoding lists the accepted ones in its trailers.
      accept = trailers.get(ConnectProtocol.GRPC_ACCEPT_ENCODING);
    }
    if (accept != null) {
      out.set("accept-encoding", accept);
    }
    WebHeaders.forEach(headers, ConnectErrors.RESERVED, out::add);
    WebHeaders.forEach(
        trailers, ConnectErrors.RESERVED, (name, value) -> out.add("trailer-" + name, value));
    java.util.List<String> names = WebHeaders.names(headers, ConnectErrors.RESERVED);
    for (String name : WebHeaders.names(trailers, ConnectErrors.RESERVED)) {
      names.add("trailer-" + name);
    }
    cors.decorate(exchange.request(), out, names);
    exchange.writeHead(httpStatus, out, false);
    return exchange.writeBody(content, true);
  }
}
