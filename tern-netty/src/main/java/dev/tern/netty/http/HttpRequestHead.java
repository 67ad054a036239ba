package dev.tern.netty.http;

import java.util.List;
import java.util.Map;

/**
 * The head of one HTTP request, the same for HTTP/1.1 and HTTP/2. Immutable once handed to a
 * protocol; header names are lower-case.
 */
public interface HttpRequestHead {
  /** The method, upper-case as sent: {@code POST}, {@code GET}, {@code OPTIONS}, ... */
  String method();

  /** The path without the query, e.g. {@code /pkg.Service/Method}; never null. */
  String path();

  /** What follows the {@code ?} of the request target, still percent-encoded; null if none. */
  String rawQuery();

  /** {@code :authority} (HTTP/2) or {@code Host} (HTTP/1.1); null if the request has none. */
  String authority();

  /** {@code http} or {@code https}. */
  String scheme();

  /** Whether the request came over HTTP/2 (else HTTP/1.1). */
  boolean isHttp2();

  /** The first value of the header {@code name} (lower-case), or null. */
  String header(String name);

  /** Every value of the header {@code name} (lower-case), in order; empty if none. */
  List<String> headers(String name);

  /**
   * Every header except HTTP/2 pseudo-headers and the connection-level headers of HTTP/1.1 ({@code
   * connection}, {@code keep-alive}, {@code transfer-encoding}, {@code upgrade}, {@code host}), in
   * the order received, names lower-case.
   */
  List<Map.Entry<String, String>> allHeaders();
}
