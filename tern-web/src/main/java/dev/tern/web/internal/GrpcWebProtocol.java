package dev.tern.web.internal;

import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.internal.wire.GrpcMessageCodec;
import dev.tern.netty.http.HttpBodyListener;
import dev.tern.netty.http.HttpExchange;
import dev.tern.netty.http.HttpRequestHead;
import dev.tern.netty.http.HttpServerProtocol;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.Set;

/**
 * gRPC-Web (grpc/grpc doc/PROTOCOL-WEB.md): {@code POST} with {@code application/grpc-web}, {@code
 * +proto}, {@code +json}, or their {@code application/grpc-web-text} forms (base64 bodies). Headers
 * are gRPC's ({@code grpc-timeout}, {@code grpc-encoding}, {@code grpc-accept-encoding}) and pass
 * to the runtime as they are; each call is a {@link GrpcWebStream}.
 *
 * <p>Immutable; thread-safe (shared by every connection of a server).
 */
public final class GrpcWebProtocol implements HttpServerProtocol {
  private static final Set<String> BINARY_TYPES =
      Set.of("application/grpc-web", "application/grpc-web+proto", "application/grpc-web+json");
  private static final Set<String> TEXT_TYPES =
      Set.of(
          "application/grpc-web-text",
          "application/grpc-web-text+proto",
          "application/grpc-web-text+json");

  /** Request headers that are the protocol's, not metadata. */
  private static final Set<String> PROTOCOL_HEADERS = Set.of("x-grpc-web");

  private final Cors cors;

  /** gRPC-Web with default settings: no CORS (found by {@link java.util.ServiceLoader}). */
  public GrpcWebProtocol() {
    this(Cors.OFF);
  }

  GrpcWebProtocol(Cors cors) {
    this.cors = cors;
  }

  @Override
  public boolean handles(HttpRequestHead request) {
    if (cors.isPreflight(request)) {
      return true;
    }
    if (!"POST".equals(request.method())) {
      return false;
    }
    String type = WebHeaders.mediaType(request.header("content-type"));
    return BINARY_TYPES.contains(type) || TEXT_TYPES.contains(type);
  }

  @Override
  public HttpBodyListener serve(HttpExchange exchange) {
    HttpRequestHead request = exchange.request();
    if (cors.isPreflight(request)) {
      cors.answerPreflight(exchange);
      return HttpBodyListener.discarding(exchange);
    }
    String type = WebHeaders.mediaType(request.header("content-type"));
    boolean text = TEXT_TYPES.contains(type);
    boolean json = type.endsWith("+json");
    String fullMethodName = request.path().isEmpty() ? "" : request.path().substring(1);
    MethodDescriptor<?, ?> method =
        exchange.calls().lookupMethod(fullMethodName, request.authority());
    MessageTransform transform = MessageTransform.IDENTITY;
    if (json && method != null) {
      transform = JsonCodec.forMethod(method);
      if (transform == null) {
        return answer(exchange, type, JsonCodec.noSchema(fullMethodName));
      }
    }
    Metadata metadata;
    try {
      metadata = WebHeaders.requestMetadata(request, PROTOCOL_HEADERS);
    } catch (IllegalArgumentException e) {
      return answer(
          exchange,
          type,
          Status.INTERNAL.withDescription("Invalid binary header: " + e.getMessage()));
    }
    copy(request, "grpc-timeout", GrpcHeaders.TIMEOUT, metadata);
    copy(request, "grpc-encoding", GrpcHeaders.MESSAGE_ENCODING, metadata);
    copy(request, "grpc-accept-encoding", GrpcHeaders.MESSAGE_ACCEPT_ENCODING, metadata);
    boolean unaryRequest = method != null && method.getType().clientSendsOneMessage();
    GrpcWebStream stream =
        new GrpcWebStream(exchange, cors, transform, fullMethodName, unaryRequest, text, type);
    exchange.calls().streamCreated(stream, fullMethodName, metadata);
    return stream;
  }

  private static void copy(
      HttpRequestHead request, String name, Metadata.Key<String> key, Metadata metadata) {
    String value = request.header(name);
    if (value != null) {
      metadata.put(key, value);
    }
  }

  /** Ends a request before it became a call: Trailers-Only with {@code status}. */
  private HttpBodyListener answer(HttpExchange exchange, String contentType, Status status) {
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set("content-type", contentType);
    headers.set("grpc-status", Integer.toString(status.getCode().value()));
    headers.set("grpc-message", GrpcMessageCodec.encode(status.getDescription()));
    cors.decorate(exchange.request(), headers, java.util.List.of());
    exchange.writeHead(200, headers, false);
    exchange.writeBody(Unpooled.EMPTY_BUFFER, true);
    return HttpBodyListener.discarding(exchange);
  }

  /** For the server's "listening on" line. */
  @Override
  public String toString() {
    return "gRPC-Web";
  }
}
