package dev.tern.authz;

import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * The names a TLS peer is known by, as gRFC A43 matches them against a rule's principals: the URI
 * subject alternative names of the client certificate, then its DNS names, then its subject (as an
 * RFC 2253 distinguished name); without a client certificate, the empty string. A peer that did not
 * use TLS has no identity at all, so no principal matches it.
 *
 * <p>Read once per TLS session and kept in the session ({@link SSLSession#putValue}), so calls on a
 * connection do not parse the certificate again.
 *
 * <p>Immutable; thread-safe.
 */
final class PeerIdentity {
  /** The session value name; the class name keeps it apart from other users of the session. */
  private static final String SESSION_VALUE = PeerIdentity.class.getName();

  /** SAN types (RFC 5280's GeneralName choice numbers). */
  private static final int DNS_NAME = 2;

  private static final int URI = 6;

  /** A TLS peer without a client certificate: only the empty string matches it. */
  private static final PeerIdentity NO_CERTIFICATE =
      new PeerIdentity(List.of(), List.of(), "", false);

  private final List<String> uris;
  private final List<String> dnsNames;

  /** The subject, or "" without a certificate. */
  private final String subject;

  /** Whether the certificate's alternative names could not be read. */
  private final boolean unreadable;

  private PeerIdentity(
      List<String> uris, List<String> dnsNames, String subject, boolean unreadable) {
    this.uris = uris;
    this.dnsNames = dnsNames;
    this.subject = subject;
    this.unreadable = unreadable;
  }

  /** The identity of the peer of {@code session}, or null for a peer that did not use TLS. */
  static PeerIdentity of(SSLSession session) {
    if (session == null) {
      return null;
    }
    Object cached = session.getValue(SESSION_VALUE);
    if (cached instanceof PeerIdentity) {
      return (PeerIdentity) cached;
    }
    PeerIdentity identity = read(session);
    session.putValue(SESSION_VALUE, identity);
    return identity;
  }

  private static PeerIdentity read(SSLSession session) {
    Certificate[] chain;
    try {
      chain = session.getPeerCertificates();
    } catch (SSLPeerUnverifiedException e) {
      return NO_CERTIFICATE;
    }
    if (chain == null || chain.length == 0 || !(chain[0] instanceof X509Certificate)) {
      return NO_CERTIFICATE;
    }
    return of((X509Certificate) chain[0]);
  }

  /** The identity a client certificate gives its holder. */
  static PeerIdentity of(X509Certificate certificate) {
    String subject = certificate.getSubjectX500Principal().getName();
    Collection<List<?>> names;
    try {
      names = certificate.getSubjectAlternativeNames();
    } catch (CertificateParsingException e) {
      return new PeerIdentity(List.of(), List.of(), subject, true);
    }
    List<String> uris = new ArrayList<>();
    List<String> dnsNames = new ArrayList<>();
    if (names != null) {
      for (List<?> name : names) {
        if (name.size() < 2
            || !(name.get(0) instanceof Integer)
            || !(name.get(1) instanceof String)) {
          continue;
        }
        int type = (Integer) name.get(0);
        if (type == URI) {
          uris.add((String) name.get(1));
        } else if (type == DNS_NAME) {
          dnsNames.add((String) name.get(1));
        }
      }
    }
    return new PeerIdentity(List.copyOf(uris), List.copyOf(dnsNames), subject, false);
  }

  /**
   * Whether the certificate could not be read. Rules then treat the peer as matching in deny rules
   * and not matching in allow rules: an unreadable identity never earns access.
   */
  boolean unreadable() {
    return unreadable;
  }

  /**
   * Whether {@code principal} matches: any URI name, else any DNS name, else the subject, as gRFC
   * A43 lists them; the empty string stands for a peer without a certificate.
   */
  boolean matches(ValueMatcher principal) {
    for (int i = 0; i < uris.size(); i++) {
      if (principal.matches(uris.get(i))) {
        return true;
      }
    }
    for (int i = 0; i < dnsNames.size(); i++) {
      if (principal.matches(dnsNames.get(i))) {
        return true;
      }
    }
    return principal.matches(subject);
  }

  @Override
  public String toString() {
    return "PeerIdentity{uris=" + uris + ", dns=" + dnsNames + ", subject=" + subject + "}";
  }
}
