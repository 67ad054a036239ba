package dev.tern.authz;

import dev.tern.Metadata;
import java.util.List;
import javax.net.ssl.SSLSession;

/**
 * One allow or deny rule, compiled. It matches a call when its source matches (one of the
 * principals, or any peer if there are none) and its request matches (one of the paths, or any path
 * if there are none, and every header).
 *
 * <p>Immutable; thread-safe.
 */
final class Rule {
  private final String name;
  private final boolean deny;

  /** Empty: any peer, TLS or not. */
  private final List<ValueMatcher> principals;

  /** Empty: any path. */
  private final List<ValueMatcher> paths;

  private final List<HeaderMatcher> headers;

  Rule(
      String name,
      boolean deny,
      List<ValueMatcher> principals,
      List<ValueMatcher> paths,
      List<HeaderMatcher> headers) {
    this.name = name;
    this.deny = deny;
    this.principals = List.copyOf(principals);
    this.paths = List.copyOf(paths);
    this.headers = List.copyOf(headers);
  }

  String name() {
    return name;
  }

  boolean isDeny() {
    return deny;
  }

  /** Whether this rule matches a call to {@code fullMethodName} (no leading slash). */
  boolean matches(String fullMethodName, Metadata requestHeaders, SSLSession session) {
    return matchesPath(fullMethodName) && matchesHeaders(requestHeaders) && matchesSource(session);
  }

  private boolean matchesPath(String fullMethodName) {
    if (paths.isEmpty()) {
      return true;
    }
    for (int i = 0; i < paths.size(); i++) {
      if (paths.get(i).matchesPath(fullMethodName)) {
        return true;
      }
    }
    return false;
  }

  private boolean matchesHeaders(Metadata requestHeaders) {
    for (int i = 0; i < headers.size(); i++) {
      if (!headers.get(i).matches(requestHeaders)) {
        return false;
      }
    }
    return true;
  }

  private boolean matchesSource(SSLSession session) {
    if (principals.isEmpty()) {
      return true;
    }
    PeerIdentity identity = PeerIdentity.of(session);
    if (identity == null) {
      return false; // not TLS: no principal matches
    }
    if (identity.unreadable()) {
      return deny; // fail closed
    }
    for (int i = 0; i < principals.size(); i++) {
      if (identity.matches(principals.get(i))) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return (deny ? "deny rule '" : "allow rule '") + name + "'";
  }
}
