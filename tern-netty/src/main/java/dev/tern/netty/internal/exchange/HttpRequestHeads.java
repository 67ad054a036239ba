package dev.tern.netty.internal.exchange;

import dev.tern.netty.http.HttpRequestHead;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Builds the {@link HttpRequestHead} a protocol sees, from an HTTP/1.1 request or the decoded
 * headers of an HTTP/2 one.
 *
 * <p>The heads are immutable and thread-safe; the factories are stateless.
 */
public final class HttpRequestHeads {
  /** HTTP/1.1 headers about the connection, not the request (RFC 9110, section 7.6.1). */
  private static final Set<String> CONNECTION_HEADERS =
      Set.of(
          "connection", "keep-alive", "transfer-encoding", "upgrade", "host", "proxy-connection");

  private HttpRequestHeads() {}

  /** The head of an HTTP/1.1 request. */
  static HttpRequestHead http1(HttpRequest request, boolean tls) {
    String uri = originForm(request.uri());
    int query = uri.indexOf('?');
    List<Map.Entry<String, String>> headers = new ArrayList<>(request.headers().size());
    for (Map.Entry<String, String> header : request.headers()) {
      String name = header.getKey().toLowerCase(Locale.ROOT);
      if (!CONNECTION_HEADERS.contains(name)) {
        headers.add(Map.entry(name, header.getValue()));
      }
    }
    return new Head(
        request.method().name(),
        query < 0 ? uri : uri.substring(0, query),
        query < 0 ? null : uri.substring(query + 1),
        request.headers().get(HttpHeaderNames.HOST),
        tls ? "https" : "http",
        false,
        List.copyOf(headers));
  }

  /**
   * The head of an HTTP/2 request from its pseudo-headers ({@code target} with its query), as a
   * protocol sees it.
   *
   * @param headers the regular fields, names lower-case, binary values in base64
   */
  public static HttpRequestHead http2(
      String method,
      String target,
      String authority,
      String scheme,
      List<Map.Entry<String, String>> headers) {
    int query = target.indexOf('?');
    return new Head(
        method,
        query < 0 ? target : target.substring(0, query),
        query < 0 ? null : target.substring(query + 1),
        authority,
        scheme == null ? "http" : scheme,
        true,
        List.copyOf(headers));
  }

  /**
   * The path and query of a request target: an absolute-form target ({@code http://host/p?q}, which
   * RFC 9112 section 3.2.2 requires servers to accept) loses its scheme and authority.
   */
  private static String originForm(String target) {
    if (target.startsWith("/")) {
      return target;
    }
    int scheme = target.indexOf("://");
    if (scheme < 0) {
      return target; // "*" (OPTIONS) or malformed: the protocol judges
    }
    int path = target.indexOf('/', scheme + 3);
    int query = target.indexOf('?', scheme + 3);
    if (path < 0 || query >= 0 && query < path) {
      return query < 0 ? "/" : "/" + target.substring(query);
    }
    return target.substring(path);
  }

  /** An immutable request head. */
  private static final class Head implements HttpRequestHead {
    private final String method;
    private final String path;
    private final String rawQuery;
    private final String authority;
    private final String scheme;
    private final boolean http2;
    private final List<Map.Entry<String, String>> headers;

    Head(
        String method,
        String path,
        String rawQuery,
        String authority,
        String scheme,
        boolean http2,
        List<Map.Entry<String, String>> headers) {
      this.method = method;
      this.path = path;
      this.rawQuery = rawQuery;
      this.authority = authority;
      this.scheme = scheme;
      this.http2 = http2;
      this.headers = headers;
    }

    @Override
    public String method() {
      return method;
    }

    @Override
    public String path() {
      return path;
    }

    @Override
    public String rawQuery() {
      return rawQuery;
    }

    @Override
    public String authority() {
      return authority;
    }

    @Override
    public String scheme() {
      return scheme;
    }

    @Override
    public boolean isHttp2() {
      return http2;
    }

    @Override
    public String header(String name) {
      for (Map.Entry<String, String> header : headers) {
        if (header.getKey().equals(name)) {
          return header.getValue();
        }
      }
      return null;
    }

    @Override
    public List<String> headers(String name) {
      List<String> values = new ArrayList<>(1);
      for (Map.Entry<String, String> header : headers) {
        if (header.getKey().equals(name)) {
          values.add(header.getValue());
        }
      }
      return values;
    }

    @Override
    public List<Map.Entry<String, String>> allHeaders() {
      return headers;
    }

    @Override
    public String toString() {
      return method + " " + path + (http2 ? " (HTTP/2)" : " (HTTP/1.1)");
    }
  }
}
