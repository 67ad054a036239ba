package dev.tern.web.internal;

import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.netty.http.HttpExchange;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * One Connect streaming call ({@code application/connect+proto} or {@code +json}): envelopes both
 * ways, flag {@code 0x01} for a compressed message; the response is always HTTP 200 and ends with
 * an end-of-stream envelope (flag {@code 0x02}) whose JSON holds the error, if any, and the
 * trailers. Compression is announced in {@code connect-content-encoding} / {@code
 * connect-accept-encoding}.
 *
 * <p>Thread-safety: as {@link WebServerStream}; the hooks here run on the event loop.
 */
final class ConnectStreamingStream extends WebServerStream {
  private final String contentType;
  private boolean headersSent;

  ConnectStreamingStream(
      HttpExchange exchange,
      Cors cors,
      MessageTransform transform,
      String fullMethodName,
      boolean unaryRequest,
      String contentType) {
    super(exchange, cors, transform, fullMethodName, unaryRequest);
    this.contentType = contentType;
  }

  @Override
  void sendHeaders(Metadata metadata) {
    headersSent = true;
    exchange.writeHead(200, headers(exchange, cors, contentType, metadata), false);
  }

  /** The headers of a streaming response carrying {@code metadata}. */
  static HttpHeaders headers(
      HttpExchange exchange, Cors cors, String contentType, Metadata metadata) {
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set("content-type", contentType);
    String encoding = metadata.get(ConnectProtocol.GRPC_ENCODING);
    if (encoding != null) {
      headers.set("connect-content-encoding", encoding);
    }
    String accept = metadata.get(ConnectProtocol.GRPC_ACCEPT_ENCODING);
    if (accept != null) {
      headers.set("connect-accept-encoding", accept);
    }
    WebHeaders.forEach(metadata, ConnectErrors.RESERVED, headers::add);
    cors.decorate(exchange.request(), headers, WebHeaders.names(metadata, ConnectErrors.RESERVED));
    return headers;
  }

  @Override
  void sendMessage(byte[] payload, boolean compressed, int accounted) {
    if (!headersSent) {
      sendHeaders(new Metadata());
    }
    writeBody(
        Envelopes.envelope(exchange.alloc(), compressed ? Envelopes.COMPRESSED : 0, payload),
        false,
        accounted);
  }

  @Override
  ChannelFuture sendEnding(Status status, Metadata trailers) {
    if (!headersSent) {
      Metadata headers = new Metadata();
      // A call refused for its encoding lists the accepted ones in its trailers.
      String accept = trailers.get(ConnectProtocol.GRPC_ACCEPT_ENCODING);
      if (accept != null) {
        headers.put(ConnectProtocol.GRPC_ACCEPT_ENCODING, accept);
      }
      sendHeaders(headers);
    }
    return writeBody(
        Envelopes.envelope(
            exchange.alloc(),
            Envelopes.CONNECT_END_STREAM,
            ConnectErrors.endStreamJson(status, trailers)),
        true,
        0);
  }
}
