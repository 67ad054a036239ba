package dev.tern.web.internal;

import dev.tern.netty.http.HttpExchange;
import dev.tern.netty.http.HttpRequestHead;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Cross-origin resource sharing for browsers calling from another origin: answers preflight {@code
 * OPTIONS} requests and adds the CORS headers to responses. Off when no origin is configured; an
 * origin not allowed gets no CORS headers at all (the browser then refuses the response).
 * Immutable; thread-safe.
 */
final class Cors {
  /** No CORS: no preflight is answered and no response carries CORS headers. */
  static final Cors OFF = new Cors(Set.of());

  /** The request headers gRPC-Web and Connect clients send, allowed on every preflight. */
  private static final List<String> ALLOWED_HEADERS =
      List.of(
          "content-type",
          "connect-protocol-version",
          "connect-timeout-ms",
          "connect-content-encoding",
          "connect-accept-encoding",
          "content-encoding",
          "accept-encoding",
          "grpc-timeout",
          "grpc-encoding",
          "grpc-accept-encoding",
          "x-grpc-web",
          "x-user-agent");

  /** The response headers a script may read, besides the response's own metadata. */
  private static final List<String> EXPOSED_HEADERS =
      List.of(
          "grpc-status",
          "grpc-message",
          "grpc-status-details-bin",
          "grpc-encoding",
          "grpc-accept-encoding",
          "connect-content-encoding",
          "connect-accept-encoding",
          "content-encoding");

  /** How long a browser may cache a preflight answer, in seconds: two hours (Chromium's cap). */
  private static final String MAX_AGE = "7200";

  private final Set<String> allowedOrigins;
  private final boolean anyOrigin;

  /** Allows {@code origins}: exact {@code Origin} values, or {@code "*"} for any. */
  Cors(Set<String> origins) {
    this.allowedOrigins = Set.copyOf(origins);
    this.anyOrigin = origins.contains("*");
  }

  boolean enabled() {
    return !allowedOrigins.isEmpty();
  }

  /** Whether {@code request} is a CORS preflight this configuration answers. */
  boolean isPreflight(HttpRequestHead request) {
    return enabled()
        && "OPTIONS".equals(request.method())
        && request.header("origin") != null
        && request.header("access-control-request-method") != null;
  }

  private boolean allows(String origin) {
    return origin != null && (anyOrigin || allowedOrigins.contains(origin));
  }

  /**
   * Answers a preflight: 204 with the allowed methods and headers for an allowed origin; 403 with
   * no CORS headers for any other.
   */
  void answerPreflight(HttpExchange exchange) {
    HttpRequestHead request = exchange.request();
    String origin = request.header("origin");
    HttpHeaders headers = new DefaultHttpHeaders();
    if (!allows(origin)) {
      byte[] body =
          ("CORS: origin " + origin + " is not allowed\n").getBytes(StandardCharsets.UTF_8);
      headers.set("content-type", "text/plain; charset=utf-8");
      exchange.writeHead(403, headers, false);
      exchange.writeBody(Unpooled.wrappedBuffer(body), true);
      return;
    }
    Set<String> allowHeaders = new LinkedHashSet<>(ALLOWED_HEADERS);
    for (String requested : request.headers("access-control-request-headers")) {
      for (String name : requested.split(",")) {
        String trimmed = name.trim().toLowerCase(Locale.ROOT);
        if (!trimmed.isEmpty()) {
          allowHeaders.add(trimmed);
        }
      }
    }
    headers.set("access-control-allow-origin", origin);
    headers.set("vary", "Origin");
    headers.set("access-control-allow-methods", "POST, GET");
    headers.set("access-control-allow-headers", String.join(", ", allowHeaders));
    headers.set("access-control-max-age", MAX_AGE);
    exchange.writeHead(204, headers, false);
    exchange.writeBody(Unpooled.EMPTY_BUFFER, true);
  }

  /**
   * Adds the CORS headers of an actual response to {@code headers}, if the request came from an
   * allowed origin; {@code metadataNames} are the response's own header names, exposed too.
   */
  void decorate(HttpRequestHead request, HttpHeaders headers, List<String> metadataNames) {
    if (!enabled()) {
      return;
    }
    String origin = request.header("origin");
    if (!allows(origin)) {
      return;
    }
    Set<String> expose = new LinkedHashSet<>(EXPOSED_HEADERS);
    expose.addAll(metadataNames);
    headers.set("access-control-allow-origin", origin);
    headers.add("vary", "Origin");
    headers.set("access-control-expose-headers", String.join(", ", expose));
  }
}
