package dev.tern.web.internal;

import dev.tern.netty.http.HttpRequestHead;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A request head for tests, built up with {@link #header}. Not thread-safe while being built. */
final class FakeRequest implements HttpRequestHead {
  private final String method;
  private final String path;
  private final String rawQuery;
  private final List<Map.Entry<String, String>> headers = new ArrayList<>();
  private boolean http2;

  private FakeRequest(String method, String target) {
    this.method = method;
    int q = target.indexOf('?');
    this.path = q < 0 ? target : target.substring(0, q);
    this.rawQuery = q < 0 ? null : target.substring(q + 1);
  }

  static FakeRequest post(String path, String contentType) {
    return new FakeRequest("POST", path).header("content-type", contentType);
  }

  static FakeRequest of(String method, String target) {
    return new FakeRequest(method, target);
  }

  FakeRequest header(String name, String value) {
    headers.add(new AbstractMap.SimpleImmutableEntry<>(name.toLowerCase(Locale.ROOT), value));
    return this;
  }

  FakeRequest http2() {
    http2 = true;
    return this;
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
    return "localhost";
  }

  @Override
  public String scheme() {
    return "http";
  }

  @Override
  public boolean isHttp2() {
    return http2;
  }

  @Override
  public String header(String name) {
    for (Map.Entry<String, String> h : headers) {
      if (h.getKey().equals(name)) {
        return h.getValue();
      }
    }
    return null;
  }

  @Override
  public List<String> headers(String name) {
    List<String> values = new ArrayList<>();
    for (Map.Entry<String, String> h : headers) {
      if (h.getKey().equals(name)) {
        values.add(h.getValue());
      }
    }
    return values;
  }

  @Override
  public List<Map.Entry<String, String>> allHeaders() {
    return List.copyOf(headers);
  }
}
