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
 *     certificate; a client uses the system's roots)
 * @param requireClientCertificate for a server: whether a client without a trusted certificate is
 *     refused ({@code require_client_certificate})
 * @param subjectAltNames for a client: the server's certificate must have a SAN one of these
 *     matches ({@code match_subject_alt_names}); empty accepts any certificate the roots trust
 * @param sni for a client: the TLS server name to send ({@code sni}, A101), empty for none
 * @param autoHostSni for a client: send the endpoint's host name when it has one ({@code
 *     auto_host_sni}: EDS's {@code endpoint.hostname}, a LOGICAL_DNS cluster's DNS name), else
 *     {@code sni}
 * @param autoSniSanValidation for a client: check the server's SANs against the server name sent
 *     instead of {@code subjectAltNames} ({@code auto_sni_san_validation})
 * @param systemRootCerts for a client without {@code validationInstance}: check the server against
 *     the JDK's trusted roots ({@code system_root_certs}, A82)
 */
public record XdsTlsContext(
    String identityInstance,
    String validationInstance,
    boolean requireClientCertificate,
    List<SanMatcher> subjectAltNames,
    String sni,
    boolean autoHostSni,
    boolean autoSniSanValidation,
    boolean systemRootCerts) {
  public XdsTlsContext {
    subjectAltNames = List.copyOf(subjectAltNames);
    Objects.requireNonNull(sni, "sni");
    if (systemRootCerts && validationInstance != null) {
      throw new IllegalArgumentException(
          "systemRootCerts: only without a validationInstance, which takes precedence");
    }
  }

  /**
   * A context without the client's server-name and system-roots settings (a server's, or a client's
   * without them).
   */
  public XdsTlsContext(
      String identityInstance,
      String validationInstance,
      boolean requireClientCertificate,
      List<SanMatcher> subjectAltNames) {
    this(
        identityInstance,
        validationInstance,
        requireClientCertificate,
        subjectAltNames,
        "",
        false,
        false,
        false);
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
   * The kind of a certificate's subject alternative name: what a typed matcher ({@code
   * match_typed_subject_alt_names}) applies to, and what a certificate's name is.
   */
  public enum SanType {
    /** An untyped matcher ({@code match_subject_alt_names}): DNS, URI and IP address names. */
    ANY,
    DNS,
    URI,
    IP_ADDRESS,
    EMAIL
  }

  /**
   * One {@code match_subject_alt_names} or {@code match_typed_subject_alt_names} StringMatcher.
   *
   * <p>Names are compared as A29 and RFC 6125 say: an {@link Kind#EXACT} matcher against a DNS name
   * of the certificate lets a wildcard name ({@code *.example.com}) stand for exactly one label in
   * its place ({@code a.example.com}, not {@code a.b.example.com}, {@code example.com} or, for
   * {@code *.com}, anything); a DNS name's trailing dot is ignored. IP address names are compared
   * in their canonical text ({@code ::1}, not {@code 0:0:0:0:0:0:0:1}).
   *
   * @param regex the compiled pattern for {@link Kind#SAFE_REGEX}, else null
   * @param ignoreCase compare ignoring ASCII case (not for regexes)
   * @param type the kind of names this matcher applies to; {@link SanType#ANY} for an untyped one
   */
  public record SanMatcher(
      Kind kind, String value, Pattern regex, boolean ignoreCase, SanType type) {
    public SanMatcher {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(value, "value");
      Objects.requireNonNull(type, "type");
      if (kind == Kind.SAFE_REGEX && regex == null) {
        throw new IllegalArgumentException("regex: missing for a SAFE_REGEX matcher");
      }
    }

    /** An untyped matcher ({@code match_subject_alt_names}). */
    public SanMatcher(Kind kind, String value, Pattern regex, boolean ignoreCase) {
      this(kind, value, regex, ignoreCase, SanType.ANY);
    }

    /**
     * Whether the certificate's name {@code san}, of kind {@code nameType} (not {@link
     * SanType#ANY}), matches.
     */
    public boolean matches(SanType nameType, String san) {
      if (type == SanType.ANY ? nameType == SanType.EMAIL : type != nameType) {
        return false;
      }
      if (nameType == SanType.IP_ADDRESS) {
        san = SubjectAltNameRules.canonicalIp(san);
      }
      if (kind == Kind.SAFE_REGEX) {
        return regex.matcher(san).matches();
      }
      if (nameType == SanType.DNS && kind == Kind.EXACT) {
        return SubjectAltNameRules.dnsMatches(san, value, ignoreCase);
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
          && ignoreCase == m.ignoreCase
          && type == m.type;
    }

    @Override
    public int hashCode() {
      return Objects.hash(kind, value, ignoreCase, type);
    }

    @Override
    public String toString() {
      return (type == SanType.ANY ? "" : type.name().toLowerCase(Locale.ROOT) + " ")
          + kind.name().toLowerCase(Locale.ROOT)
          + (ignoreCase ? " (ignoring case) " : " ")
          + "\""
          + value
          + "\"";
    }
  }
}
