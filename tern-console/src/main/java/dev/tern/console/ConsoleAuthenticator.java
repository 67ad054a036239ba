package dev.tern.console;

import dev.tern.netty.http.HttpRequestHead;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Objects;

/**
 * Decides whether a request for the console (its page, assets and endpoints under {@code
 * /_tern/console/}) may be served. Called on the connection's event loop for every such request:
 * must not block, and must be thread-safe. The calls the page makes to your services are not asked
 * here: authenticate those as you would any gRPC call (an interceptor).
 */
@FunctionalInterface
public interface ConsoleAuthenticator {
  /** Whether {@code request} may be served; a request refused is answered 401. */
  boolean authenticate(HttpRequestHead request);

  /**
   * HTTP Basic authentication (RFC 7617) with one user name and password, compared in constant
   * time. Use it only over TLS: Basic sends the password with every request.
   *
   * @throws IllegalArgumentException if {@code user} is empty or contains ':', or {@code password}
   *     is empty
   */
  static ConsoleAuthenticator basic(String user, String password) {
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(password, "password");
    if (user.isEmpty() || user.indexOf(':') >= 0) {
      throw new IllegalArgumentException(
          "user must be non-empty and without ':', was '" + user + "'");
    }
    if (password.isEmpty()) {
      throw new IllegalArgumentException("password must not be empty");
    }
    byte[] expected =
        ("Basic "
                + Base64.getEncoder()
                    .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)))
            .getBytes(StandardCharsets.US_ASCII);
    return request -> {
      String header = request.header("authorization");
      return header != null
          && MessageDigest.isEqual(expected, header.trim().getBytes(StandardCharsets.US_ASCII));
    };
  }
}
