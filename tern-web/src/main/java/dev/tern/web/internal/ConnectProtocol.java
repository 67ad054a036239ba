package dev.tern.web.internal;

import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.internal.wire.GrpcTimeoutCodec;
import dev.tern.netty.http.HttpBodyListener;
import dev.tern.netty.http.HttpExchange;
import dev.tern.netty.http.HttpRequestHead;
import dev.tern.netty.http.HttpServerProtocol;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The Connect protocol (connectrpc.com/docs/protocol): unary {@code POST} with {@code
 * application/proto} or {@code application/json}, unary {@code GET} for side-effect-free methods,
 * and streaming with {@code application/connect+proto} or {@code +json}. Connect's headers become
 * the runtime's: {@code connect-timeout-ms} the {@code grpc-timeout}, {@code content-encoding}
 * (unary) or {@code connect-content-encoding} (streaming) the {@code grpc-encoding}, and the
 * accepted encodings the {@code grpc-accept-encoding}; so deadlines and decompression work as for
 * gRPC.
 *
 * <p>Immutable; thread-safe (shared by every connection of a server).
 */
public final class ConnectProtocol implements HttpServerProtocol {
  static final Metadata.Key<String> GRPC_ENCODING = GrpcHeaders.MESSAGE_ENCODING;
  static final Metadata.Key<String> GRPC_ACCEPT_ENCODING = GrpcHeaders.MESSAGE_ACCEPT_ENCODING;

  private static final Set<String> UNARY_TYPES = Set.of("application/proto", "application/json");
  private static final Set<String> STREAM_TYPES =
      Set.of("application/connect+proto", "application/connect+json");

  /** Request headers that are the protocol's, not metadata. */
  private static final Set<String> PROTOCOL_HEADERS =
      Set.of(
          "connect-protocol-version",
          "connect-timeout-ms",
          "connect-content-encoding",
          "connect-accept-encoding",
          "content-encoding");

  /** Connect allows at most 10 digits of milliseconds. */
  private static final int MAX_TIMEOUT_DIGITS = 10;

  private final Cors cors;

  /** Connect with default settings: no CORS (found by {@link java.util.ServiceLoader}). */
  public ConnectProtocol() {
    this(Cors.OFF);
  }

  ConnectProtocol(Cors cors) {
    this.cors = cors;
  }

  @Override
  public boolean handles(HttpRequestHead request) {
    if (cors.isPreflight(request)) {
      return true;
    }
    if ("GET".equals(request.method())) {
      String query = request.rawQuery();
      return query != null && (query.contains("encoding=") || query.contains("connect=v1"));
    }
    if (!"POST".equals(request.method())) {
      return false;
    }
    String type = WebHeaders.mediaType(request.header("content-type"));
    return UNARY_TYPES.contains(type) || STREAM_TYPES.contains(type);
  }

  @Override
  public HttpBodyListener serve(HttpExchange exchange) {
    HttpRequestHead request = exchange.request();
    if (cors.isPreflight(request)) {
      cors.answerPreflight(exchange);
      return HttpBodyListener.discarding(exchange);
    }
    boolean get = "GET".equals(request.method());
    String type = WebHeaders.mediaType(request.header("content-type"));
    boolean streaming = !get && STREAM_TYPES.contains(type);
    ConnectGetQuery query = null;
    boolean json;
    if (get) {
      try {
        query = ConnectGetQuery.parse(request.rawQuery());
      } catch (IllegalArgumentException e) {
        return answer(exchange, false, Status.INVALID_ARGUMENT.withDescription(e.getMessage()));
      }
      if (!"proto".equals(query.encoding) && !"json".equals(query.encoding)) {
        return answer(
            exchange,
            false,
            Status.INVALID_ARGUMENT.withDescription(
                "Unknown encoding '" + query.encoding + "' (expected proto or json)"));
      }
      json = "json".equals(query.encoding);
      if (query.connect != null && !"v1".equals(query.connect)) {
        return answer(
            exchange,
            false,
            Status.INVALID_ARGUMENT.withDescription(
                "Unknown Connect protocol version '" + query.connect + "' (expected v1)"));
      }
    } else {
      json = type.endsWith("json");
    }
    String version = request.header("connect-protocol-version");
    if (version != null && !"1".equals(version.trim())) {
      return answer(
          exchange,
          streaming,
          Status.INVALID_ARGUMENT.withDescription(
              "Unknown connect-protocol-version '" + version + "' (expected 1)"));
    }

    String fullMethodName = request.path().isEmpty() ? "" : request.path().substring(1);
    MethodDescriptor<?, ?> method =
        exchange.calls().lookupMethod(fullMethodName, request.authority());
    if (method == null) {
      return notFound(exchange, fullMethodName);
    }
    MessageTransform transform = MessageTransform.IDENTITY;
    boolean unaryMethod = method.getType() == MethodDescriptor.MethodType.UNARY;
    if (unaryMethod == streaming) {
      return mismatch(exchange, fullMethodName, method.getType(), streaming);
    }
    if (get && !method.isSafe()) {
      return notSafe(exchange, fullMethodName);
    }
    if (json) {
      transform = JsonCodec.forMethod(method);
      if (transform == null) {
        return answer(exchange, streaming, JsonCodec.noSchema(fullMethodName));
      }
    }

    Metadata metadata;
    try {
      metadata = WebHeaders.requestMetadata(request, PROTOCOL_HEADERS);
    } catch (IllegalArgumentException e) {
      return answer(
          exchange,
          streaming,
          Status.INVALID_ARGUMENT.withDescription("Invalid binary header: " + e.getMessage()));
    }
    String timeout = request.header("connect-timeout-ms");
    if (timeout != null) {
      String grpcTimeout = grpcTimeout(timeout.trim());
      if (grpcTimeout == null) {
        return answer(
            exchange,
            streaming,
            Status.INVALID_ARGUMENT.withDescription(
                "Invalid connect-timeout-ms '" + timeout + "': expected 1 to 10 digits"));
      }
      metadata.put(GrpcHeaders.TIMEOUT, grpcTimeout);
    }
    String encoding;
    String accept;
    if (streaming) {
      encoding = request.header("connect-content-encoding");
      accept = request.header("connect-accept-encoding");
    } else {
      encoding = get ? query.compression : request.header("content-encoding");
      accept = request.header("accept-encoding");
    }
    boolean compressed = encoding != null && !encoding.isEmpty() && !"identity".equals(encoding);
    if (compressed) {
      metadata.put(GrpcHeaders.MESSAGE_ENCODING, encoding.trim());
    }
    if (accept != null) {
      metadata.put(GrpcHeaders.MESSAGE_ACCEPT_ENCODING, accept);
    }

    String codec = json ? "json" : "proto";
    if (streaming) {
      boolean unaryRequest = method != null && method.getType().clientSendsOneMessage();
      ConnectStreamingStream stream =
          new ConnectStreamingStream(
              exchange,
              cors,
              transform,
              fullMethodName,
              unaryRequest,
              "application/connect+" + codec);
      exchange.calls().streamCreated(stream, fullMethodName, metadata);
      return stream;
    }
    ConnectUnaryStream stream =
        new ConnectUnaryStream(
            exchange, cors, transform, fullMethodName, "application/" + codec, compressed);
    exchange.calls().streamCreated(stream, fullMethodName, metadata);
    if (get) {
      stream.messageFromQuery(query.message);
    }
    return stream;
  }

  /**
   * {@code connect-timeout-ms} as a {@code grpc-timeout}, or null if it is not 1 to 10 digits. Up
   * to 8 digits stay milliseconds; longer ones become seconds (grpc-timeout allows 8 digits),
   * rounded down.
   */
  static String grpcTimeout(String millis) {
    if (millis.isEmpty() || millis.length() > MAX_TIMEOUT_DIGITS) {
      return null;
    }
    for (int i = 0; i < millis.length(); i++) {
      if (millis.charAt(i) < '0' || millis.charAt(i) > '9') {
        return null;
      }
    }
    return GrpcTimeoutCodec.encode(TimeUnit.MILLISECONDS.toNanos(Long.parseLong(millis)));
  }

  /** Ends a request before it became a call, with {@code status} as the protocol writes errors. */
  private HttpBodyListener answer(HttpExchange exchange, boolean streaming, Status status) {
    HttpHeaders headers = new DefaultHttpHeaders();
    if (streaming) {
      String type = WebHeaders.mediaType(exchange.request().header("content-type"));
      headers.set("content-type", type);
      cors.decorate(exchange.request(), headers, java.util.List.of());
      exchange.writeHead(200, headers, false);
      exchange.writeBody(
          Envelopes.envelope(
              exchange.alloc(),
              Envelopes.CONNECT_END_STREAM,
              ConnectErrors.endStreamJson(status, new Metadata())),
          true);
    } else {
      headers.set("content-type", "application/json");
      cors.decorate(exchange.request(), headers, java.util.List.of());
      exchange.writeHead(ConnectErrors.httpStatus(status.getCode()), headers, false);
      exchange.writeBody(
          Unpooled.wrappedBuffer(
              ConnectErrors.errorJson(status, new Metadata()).getBytes(StandardCharsets.UTF_8)),
          true);
    }
    return HttpBodyListener.discarding(exchange);
  }

  /**
   * A path that names no method of this server: 404, as a Connect server's router answers (the
   * client reads it as unimplemented), with the Connect error body naming the method.
   */
  private HttpBodyListener notFound(HttpExchange exchange, String fullMethodName) {
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set("content-type", "application/json");
    cors.decorate(exchange.request(), headers, java.util.List.of());
    exchange.writeHead(404, headers, false);
    Status status = Status.UNIMPLEMENTED.withDescription("Method not found: " + fullMethodName);
    exchange.writeBody(
        Unpooled.wrappedBuffer(
            ConnectErrors.errorJson(status, new Metadata()).getBytes(StandardCharsets.UTF_8)),
        true);
    return HttpBodyListener.discarding(exchange);
  }

  /** A unary content type for a streaming method, or the other way round: 415, saying which. */
  private HttpBodyListener mismatch(
      HttpExchange exchange,
      String fullMethodName,
      MethodDescriptor.MethodType type,
      boolean streaming) {
    String message =
        streaming
            ? fullMethodName
                + " is a unary method: call it with application/proto or application/json"
            : fullMethodName
                + " is a "
                + type.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-')
                + " method: call it with application/connect+proto or application/connect+json";
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set("content-type", "text/plain; charset=utf-8");
    headers.set(
        "accept-post",
        streaming
            ? "application/proto, application/json"
            : "application/connect+proto, application/connect+json");
    cors.decorate(exchange.request(), headers, java.util.List.of());
    exchange.writeHead(415, headers, false);
    exchange.writeBody(
        Unpooled.wrappedBuffer((message + "\n").getBytes(StandardCharsets.UTF_8)), true);
    return HttpBodyListener.discarding(exchange);
  }

  /** A GET of a method with side effects: 405, as only side-effect-free methods may be GET. */
  private HttpBodyListener notSafe(HttpExchange exchange, String fullMethodName) {
    Status status =
        Status.UNIMPLEMENTED.withDescription(
            fullMethodName
                + " is not side-effect free (idempotency_level NO_SIDE_EFFECTS): call it with POST");
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set("content-type", "application/json");
    headers.set("allow", "POST");
    cors.decorate(exchange.request(), headers, java.util.List.of());
    exchange.writeHead(405, headers, false);
    exchange.writeBody(
        Unpooled.wrappedBuffer(
            ConnectErrors.errorJson(status, new Metadata()).getBytes(StandardCharsets.UTF_8)),
        true);
    return HttpBodyListener.discarding(exchange);
  }

  /** For the server's "listening on" line. */
  @Override
  public String toString() {
    return "Connect";
  }
}
