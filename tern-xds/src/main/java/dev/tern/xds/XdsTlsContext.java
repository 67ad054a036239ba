package dev.tern.xds;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A validated TLS context of a filter chain (DownstreamTlsContext) or a cluster
 * (UpstreamTlsContext), A29: which certificate provider instances supply the identity (key and
 * certificate) and the roots that peers are checked against, and for clusters which subject
 * alternative names the server must have. Immutable.
 *
 * @param identityInstance the bootstrap's instance that supplies this side's key and certificate
 *     ({@code tls_certificate_provider_instance}), or null (a client without one does not present a
 *     certificate)
 * @param validationInstance the instance that supplies the roots the peer is checked against
 *     ({@code ca_certificate_provider_instance}), or null (a server then asks for no client
 *     certificate)
 * @param requireClientCertificate for a server: whether a client without a trusted certificate is
 *     refused ({@code require_client_certificate})
 * @param subjectAltNames for a client: the server's certificate must have a SAN one of these
 *     matches ({@code match_subject_alt_names}); empty accepts any certificate the roots trust
 */
public record XdsTlsContext(
    String identityInstance,
    String validationInstance,
    boolean requireClientCertificate,
    List<SanMatcher> subjectAltNames) {
  public XdsTlsContext {
    subjectAltNames = List.copyOf(subjectAltNames);
  }

  /** How a {@link SanMatcher} compares. */
  public enum Kind {
    EXACT,
    PREFIX,
    SUFFIX,
    CONTAINS,
    SAFE_REGEX
  }

  /**
   * One {@code match_subject_alt_names} StringMatcher.
   *
   * @param regex the compiled pattern for {@link Kind#SAFE_REGEX}, else null
   * @param ignoreCase compare ignoring ASCII case (not for regexes)
   */
  public record SanMatcher(Kind kind, String value, Pattern regex, boolean ignoreCase) {
    public SanMatcher {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(value, "value");
    }

    /** Whether {@code san} (a DNS name, URI, e-mail address or IP address) matches. */
    public boolean matches(String san) {
      if (kind == Kind.SAFE_REGEX) {
        return regex.matcher(san).matches();
      }
      String subject = ignoreCase ? san.toLowerCase(Locale.ROOT) : san;
      String expected = ignoreCase ? value.toLowerCase(Locale.ROOT) : value;
      return switch (kind) {
        case EXACT -> subject.equals(expected);
        case PREFIX -> subject.startsWith(expected);
        case SUFFIX -> subject.endsWith(expected);
        case CONTAINS -> subject.contains(expected);
        case SAFE_REGEX -> throw new AssertionError("handled above");
      };
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof SanMatcher m
          && kind == m.kind
          && value.equals(m.value)
          && ignoreCase == m.ignoreCase;
    }

    @Override
    public int hashCode() {
      return Objects.hash(kind, value, ignoreCase);
    }

    @Override
    public String toString() {
      return kind.name().toLowerCase(Locale.ROOT)
          + (ignoreCase ? " (ignoring case) " : " ")
          + "\""
          + value
          + "\"";
    }
  }
}
