package dev.tern.web.internal;

import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.internal.wire.GrpcMessageCodec;
import dev.tern.netty.http.HttpExchange;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * One gRPC-Web call (grpc/grpc doc/PROTOCOL-WEB.md): request and response bodies are gRPC
 * envelopes; the trailers end the body as an envelope flagged {@code 0x80} holding {@code name:
 * value\r\n} lines, or ride in the headers (Trailers-Only) when nothing else was sent. In text mode
 * ({@code application/grpc-web-text}) both bodies are base64: the request is decoded as it arrives,
 * and each response write is encoded on its own so a stream can be read as it comes.
 *
 * <p>Thread-safety: as {@link WebServerStream}; the hooks here run on the event loop.
 */
final class GrpcWebStream extends WebServerStream {
  /** Response metadata that the protocol writes itself. */
  private static final Set<String> OWN_HEADERS =
      Set.of("content-type", "content-length", "grpc-status", "grpc-message");

  private final boolean text;
  private final String contentType;
  private final Base64Body base64;
  private boolean headersSent;

  // Text mode's inbound flow control: decoded bytes the deframer takes are paid back as the share
  // of wire bytes they came from.
  private long wireReceived;
  private long decodedProduced;
  private long decodedRead;
  private long wireReturned;

  GrpcWebStream(
      HttpExchange exchange,
      Cors cors,
      MessageTransform transform,
      String fullMethodName,
      boolean unaryRequest,
      boolean text,
      String contentType) {
    super(exchange, cors, transform, fullMethodName, unaryRequest);
    this.text = text;
    this.contentType = contentType;
    this.base64 = text ? new Base64Body() : null;
  }

  @Override
  void inbound(ByteBuf data) {
    if (!text) {
      super.inbound(data);
      return;
    }
    int wire = data.readableBytes();
    ByteBuf decoded;
    try {
      decoded = base64.decode(data, exchange.alloc());
    } catch (IllegalArgumentException e) {
      exchange.consumed(wire);
      fail(Status.INTERNAL.withDescription("Malformed grpc-web-text request: " + e.getMessage()));
      return;
    } finally {
      data.release();
    }
    wireReceived += wire;
    decodedProduced += decoded.readableBytes();
    if (decoded.readableBytes() == 0) {
      decoded.release();
      bytesRead(0);
      return;
    }
    super.inbound(decoded);
  }

  @Override
  void inboundEnded() {
    if (text) {
      try {
        base64.finish();
      } catch (IllegalArgumentException e) {
        fail(Status.INTERNAL.withDescription("Malformed grpc-web-text request: " + e.getMessage()));
        return;
      }
    }
    super.inboundEnded();
  }

  @Override
  int wireBytes(int deframed) {
    if (!text) {
      return deframed;
    }
    decodedRead += deframed;
    long target =
        decodedRead >= decodedProduced ? wireReceived : Math.min(wireReceived, decodedRead * 4 / 3);
    long pay = target - wireReturned;
    if (pay <= 0) {
      return 0;
    }
    wireReturned = target;
    return (int) pay;
  }

  @Override
  void sendHeaders(Metadata metadata) {
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set("content-type", contentType);
    WebHeaders.forEach(metadata, OWN_HEADERS, headers::add);
    cors.decorate(exchange.request(), headers, WebHeaders.names(metadata, OWN_HEADERS));
    headersSent = true;
    exchange.writeHead(200, headers, false);
  }

  @Override
  void sendMessage(byte[] payload, boolean compressed, int accounted) {
    if (!headersSent) {
      sendHeaders(new Metadata());
    }
    ByteBuf envelope =
        Envelopes.envelope(exchange.alloc(), compressed ? Envelopes.COMPRESSED : 0, payload);
    writeBody(text ? Base64Body.encode(envelope, exchange.alloc()) : envelope, false, accounted);
  }

  @Override
  ChannelFuture sendEnding(Status status, Metadata trailers) {
    if (!headersSent) {
      // Trailers-Only: the status and trailers in the headers, and an empty body.
      HttpHeaders headers = new DefaultHttpHeaders();
      headers.set("content-type", contentType);
      addStatus(status, headers);
      WebHeaders.forEach(trailers, OWN_HEADERS, headers::add);
      cors.decorate(exchange.request(), headers, WebHeaders.names(trailers, OWN_HEADERS));
      headersSent = true;
      exchange.writeHead(200, headers, false);
      return exchange.writeBody(Unpooled.EMPTY_BUFFER, true);
    }
    StringBuilder block = new StringBuilder();
    block.append("grpc-status:").append(status.getCode().value()).append("\r\n");
    if (status.getDescription() != null) {
      block
          .append("grpc-message:")
          .append(GrpcMessageCodec.encode(status.getDescription()))
          .append("\r\n");
    }
    WebHeaders.forEach(
        trailers,
        OWN_HEADERS,
        (name, value) -> block.append(name).append(':').append(value).append("\r\n"));
    ByteBuf envelope =
        Envelopes.envelope(
            exchange.alloc(),
            Envelopes.GRPC_WEB_TRAILERS,
            block.toString().getBytes(StandardCharsets.ISO_8859_1));
    return writeBody(text ? Base64Body.encode(envelope, exchange.alloc()) : envelope, true, 0);
  }

  private static void addStatus(Status status, HttpHeaders headers) {
    headers.set("grpc-status", Integer.toString(status.getCode().value()));
    if (status.getDescription() != null) {
      headers.set("grpc-message", GrpcMessageCodec.encode(status.getDescription()));
    }
  }
}
