package dev.tern.console;

import dev.tern.netty.http.HttpBodyListener;
import dev.tern.netty.http.HttpExchange;
import dev.tern.netty.http.HttpRequestHead;
import dev.tern.netty.http.HttpServerProtocol;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Serves the console's page, assets and endpoint under {@code /_tern/console}: the page (with this
 * server's token in a meta tag) on GET {@code /_tern/console/}, the static assets on GET {@code
 * /_tern/console/v1/NAME}, the registered example requests on POST {@code
 * /_tern/console/api/examples} and the server's counts ({@link ServerMetrics}) on POST {@code
 * /_tern/console/api/metrics} (both need the token in {@code x-tern-console-token}). Every answer
 * carries a strict Content-Security-Policy. Thread-safe: immutable after construction.
 */
final class ConsoleProtocol implements HttpServerProtocol {
  static final String PREFIX = "/_tern/console";
  static final String TOKEN_HEADER = "x-tern-console-token";

  /** Scripts, styles, images and fetch() from this origin only; no inline script; no framing. */
  static final String CSP =
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
          + " connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none';"
          + " frame-ancestors 'none'";

  private final ConsoleAuthenticator authenticator;
  private final String token;
  private final byte[] examplesJson;
  private final Assets assets;
  private final ServerMetrics metrics;

  ConsoleProtocol(
      ConsoleAuthenticator authenticator,
      Map<String, List<String>> examples,
      ServerMetrics metrics) {
    this.authenticator = authenticator;
    this.metrics = metrics;
    byte[] random = new byte[24];
    new SecureRandom().nextBytes(random);
    this.token = HexFormat.of().formatHex(random);
    this.examplesJson = ExamplesJson.write(examples).getBytes(StandardCharsets.UTF_8);
    this.assets = Assets.load(token);
  }

  @Override
  public boolean handles(HttpRequestHead request) {
    String path = request.path();
    return path.equals(PREFIX) || path.startsWith(PREFIX + "/");
  }

  @Override
  public HttpBodyListener serve(HttpExchange exchange) {
    HttpRequestHead request = exchange.request();
    String method = request.method();
    String rest = request.path().substring(PREFIX.length());
    if (authenticator != null && !authenticator.authenticate(request)) {
      HttpHeaders headers = headers("text/plain; charset=utf-8");
      headers.set("www-authenticate", "Basic realm=\"Tern console\", charset=\"UTF-8\"");
      return answer(exchange, 401, headers, "The console needs authentication\n");
    }
    if (rest.equals("/api/examples") || rest.equals("/api/metrics")) {
      if (!method.equals("POST")) {
        return methodNotAllowed(exchange, "POST");
      }
      String sent = request.header(TOKEN_HEADER);
      if (sent == null
          || !MessageDigest.isEqual(
              token.getBytes(StandardCharsets.US_ASCII),
              sent.trim().getBytes(StandardCharsets.US_ASCII))) {
        return text(exchange, 403, "Missing or wrong " + TOKEN_HEADER + ": reload the console");
      }
      return answer(
          exchange,
          200,
          headers("application/json"),
          rest.equals("/api/examples")
              ? examplesJson
              : metrics.toJson().getBytes(StandardCharsets.UTF_8));
    }
    if (!method.equals("GET") && !method.equals("HEAD")) {
      return methodNotAllowed(exchange, "GET, HEAD");
    }
    if (rest.isEmpty()) {
      HttpHeaders headers = headers("text/plain; charset=utf-8");
      headers.set("location", PREFIX + "/");
      return answer(exchange, 308, headers, "See " + PREFIX + "/\n");
    }
    Assets.Asset asset;
    try {
      asset = assets.find(rest.equals("/") ? "index.html" : rest.substring(1));
    } catch (IllegalArgumentException e) {
      return text(exchange, 400, e.getMessage());
    }
    if (asset == null) {
      return text(exchange, 404, "No console asset " + rest.substring(1));
    }
    HttpHeaders headers = headers(asset.contentType());
    return method.equals("HEAD")
        ? answer(exchange, 200, headers, new byte[0])
        : answer(exchange, 200, headers, asset.bytes());
  }

  /** How the server's start-up log names it. */
  @Override
  public String toString() {
    return "Tern console (" + PREFIX + "/)";
  }

  private static HttpHeaders headers(String contentType) {
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set("content-type", contentType);
    headers.set("content-security-policy", CSP);
    headers.set("x-content-type-options", "nosniff");
    headers.set("referrer-policy", "no-referrer");
    // The page carries the token of this server start: never reuse it from a cache.
    headers.set("cache-control", "no-store");
    return headers;
  }

  private static HttpBodyListener methodNotAllowed(HttpExchange exchange, String allowed) {
    HttpHeaders headers = headers("text/plain; charset=utf-8");
    headers.set("allow", allowed);
    return answer(
        exchange, 405, headers, exchange.request().method() + " is not allowed here: " + allowed);
  }

  private static HttpBodyListener text(HttpExchange exchange, int status, String message) {
    return answer(exchange, status, headers("text/plain; charset=utf-8"), message + "\n");
  }

  private static HttpBodyListener answer(
      HttpExchange exchange, int status, HttpHeaders headers, String body) {
    return answer(exchange, status, headers, body.getBytes(StandardCharsets.UTF_8));
  }

  private static HttpBodyListener answer(
      HttpExchange exchange, int status, HttpHeaders headers, byte[] body) {
    if (body.length == 0) {
      exchange.writeHead(status, headers, true);
    } else {
      exchange.writeHead(status, headers, false);
      exchange.writeBody(exchange.alloc().buffer(body.length).writeBytes(body), true);
    }
    return HttpBodyListener.discarding(exchange);
  }
}
