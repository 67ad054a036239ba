package dev.tern.xds.internal.security;

/**
 * A SPIFFE ID ({@code spiffe://trust-domain/path}) as the SPIFFE ID standard and A87 define it: the
 * scheme {@code spiffe}, a trust domain of lower-case letters, digits, {@code .}, {@code -} and
 * {@code _}, no port, user or query, and a path of non-empty segments of letters, digits, {@code
 * .}, {@code -} and {@code _} other than {@code .} and {@code ..}, with no trailing {@code /}.
 * Immutable.
 *
 * @param trustDomain the trust domain, such as {@code example.org}
 * @param path the path, empty or starting with {@code /}
 */
record SpiffeId(String trustDomain, String path) {
  private static final String SCHEME = "spiffe://";
  private static final int MAX_LENGTH = 2048;
  private static final int MAX_TRUST_DOMAIN_LENGTH = 255;

  /**
   * Reads {@code uri}.
   *
   * @throws IllegalArgumentException saying which rule it breaks
   */
  static SpiffeId parse(String uri) {
    if (uri.length() > MAX_LENGTH) {
      throw invalid(uri, "it is longer than " + MAX_LENGTH + " characters");
    }
    if (!uri.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
      throw invalid(uri, "it does not start with spiffe://");
    }
    String rest = uri.substring(SCHEME.length());
    int slash = rest.indexOf('/');
    String trustDomain = slash < 0 ? rest : rest.substring(0, slash);
    String path = slash < 0 ? "" : rest.substring(slash);
    checkTrustDomain(uri, trustDomain);
    checkPath(uri, path);
    return new SpiffeId(trustDomain, path);
  }

  /**
   * Checks a trust domain's name, as a bundle map's key or a SPIFFE ID's authority.
   *
   * @throws IllegalArgumentException saying which rule it breaks
   */
  static void checkTrustDomain(String where, String trustDomain) {
    if (trustDomain.isEmpty()) {
      throw invalid(where, "the trust domain is empty");
    }
    if (trustDomain.length() > MAX_TRUST_DOMAIN_LENGTH) {
      throw invalid(where, "the trust domain is longer than " + MAX_TRUST_DOMAIN_LENGTH);
    }
    for (int i = 0; i < trustDomain.length(); i++) {
      char c = trustDomain.charAt(i);
      if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_')) {
        throw invalid(
            where,
            "the trust domain has '"
                + c
                + "'; it may have only lower-case letters, digits, '.', '-' and '_'"
                + " (no port, user or query)");
      }
    }
  }

  private static void checkPath(String uri, String path) {
    if (path.isEmpty()) {
      return;
    }
    if (path.endsWith("/")) {
      throw invalid(uri, "the path ends with '/'");
    }
    for (String segment : path.substring(1).split("/", -1)) {
      if (segment.isEmpty()) {
        throw invalid(uri, "the path has an empty segment");
      }
      if (segment.equals(".") || segment.equals("..")) {
        throw invalid(uri, "the path has a '" + segment + "' segment");
      }
      for (int i = 0; i < segment.length(); i++) {
        char c = segment.charAt(i);
        if (!(c >= 'a' && c <= 'z'
            || c >= 'A' && c <= 'Z'
            || c >= '0' && c <= '9'
            || c == '.'
            || c == '-'
            || c == '_')) {
          throw invalid(
              uri, "the path has '" + c + "'; it may have only letters, digits, '.', '-' and '_'");
        }
      }
    }
  }

  private static IllegalArgumentException invalid(String where, String problem) {
    return new IllegalArgumentException("not a valid SPIFFE ID: " + where + ": " + problem);
  }

  @Override
  public String toString() {
    return SCHEME + trustDomain + path;
  }
}
