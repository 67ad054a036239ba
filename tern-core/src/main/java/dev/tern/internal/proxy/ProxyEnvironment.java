package dev.tern.internal.proxy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

/**
 * The proxy the environment names for HTTPS connections, as grpc-go (and curl) read it: {@code
 * HTTPS_PROXY}, else {@code https_proxy}, a URL {@code http://[user[:password]@]host[:port]} (the
 * scheme may be left out; the port defaults to 80; user and password percent-decoded), with the
 * exceptions of {@code NO_PROXY}, else {@code no_proxy} ({@link NoProxyRules}). TLS to the proxy
 * itself ({@code https://}) and other schemes are refused, with an error naming the variable.
 *
 * <p>Immutable; thread-safe.
 *
 * @param variable the variable the proxy came from, for messages
 * @param host the proxy's host name or address literal (without brackets)
 * @param port the proxy's port
 * @param username the user name from the URL, or null
 * @param password the password from the URL, or null (then, with a user name, empty)
 * @param noProxy the exceptions
 */
record ProxyEnvironment(
    String variable,
    String host,
    int port,
    String username,
    String password,
    NoProxyRules noProxy) {

  /**
   * The proxy {@code env} names, or null when neither {@code HTTPS_PROXY} nor {@code https_proxy}
   * is set (or both are empty).
   *
   * @throws IOException when the variable's value is not a usable proxy URL; the message names the
   *     variable and says why
   */
  static ProxyEnvironment of(Map<String, String> env) throws IOException {
    String variable = firstSet(env, "HTTPS_PROXY", "https_proxy");
    if (variable == null) {
      return null;
    }
    String value = env.get(variable).trim();
    String noProxy = firstSet(env, "NO_PROXY", "no_proxy");
    NoProxyRules rules = NoProxyRules.parse(noProxy == null ? null : env.get(noProxy));
    String url = value.contains("://") ? value : "http://" + value;
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      // The reason and position only: the value may hold a password.
      throw new IOException(
          variable + " is not a proxy URL: " + e.getReason() + " at index " + e.getIndex());
    }
    String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
    if (scheme.equals("https")) {
      throw new IOException(
          variable
              + " names an https:// proxy; TLS to the proxy itself is not supported (the calls"
              + " are still encrypted end to end through an http:// proxy)");
    }
    if (!scheme.equals("http")) {
      throw new IOException(
          variable + " names a " + scheme + ":// proxy; only HTTP CONNECT proxies are supported");
    }
    if (uri.getHost() == null) {
      throw new IOException(variable + " has no proxy host: \"" + redact(uri) + "\"");
    }
    int port = uri.getPort() < 0 ? 80 : uri.getPort();
    String username = null;
    String password = null;
    String userInfo = uri.getRawUserInfo();
    if (userInfo != null) {
      int colon = userInfo.indexOf(':');
      username = percentDecode(colon < 0 ? userInfo : userInfo.substring(0, colon));
      password = colon < 0 ? null : percentDecode(userInfo.substring(colon + 1));
    }
    return new ProxyEnvironment(
        variable, NoProxyRules.unbracket(uri.getHost()), port, username, password, rules);
  }

  private static String firstSet(Map<String, String> env, String upper, String lower) {
    for (String name : new String[] {upper, lower}) {
      String value = env.get(name);
      if (value != null && !value.isBlank()) {
        return name;
      }
    }
    return null;
  }

  /** The URL with anything before an {@code @} in its authority (user, password) starred out. */
  private static String redact(URI uri) {
    String authority = uri.getRawAuthority() == null ? "" : uri.getRawAuthority();
    int at = authority.lastIndexOf('@');
    return uri.getScheme()
        + "://"
        + (at < 0 ? authority : "***" + authority.substring(at))
        + (uri.getRawPath() == null ? "" : uri.getRawPath());
  }

  /**
   * RFC 3986 percent-decoding as UTF-8 ({@code +} stays a plus, unlike a form's decoding), of a
   * part {@link URI} has already checked: every {@code %} starts two hex digits.
   */
  static String percentDecode(String raw) {
    if (raw.indexOf('%') < 0) {
      return raw;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c != '%') {
        bytes.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
        continue;
      }
      bytes.write(Integer.parseInt(raw, i + 1, i + 3, 16));
      i += 2;
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }
}
