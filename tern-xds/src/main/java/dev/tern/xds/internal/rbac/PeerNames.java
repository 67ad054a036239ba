package dev.tern.xds.internal.rbac;

import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * The names an {@code authenticated.principal_name} is matched against, as A41 lists them: the peer
 * certificate's URI subject alternative names; if it has none, its DNS names; if it has neither,
 * its subject as an RFC 2253 name; without a peer certificate, the empty string. (tern-authz
 * follows A43, which lets any of the names match; A41 is narrower, so the two do not share this.)
 * Read once per TLS session and kept as a session value. Immutable; thread-safe.
 */
final class PeerNames {
  private static final String SESSION_VALUE = PeerNames.class.getName();
  private static final int DNS_NAME = 2;
  private static final int URI = 6;

  private final List<String> names;

  private PeerNames(List<String> names) {
    this.names = names;
  }

  static PeerNames of(SSLSession session) {
    if (session.getValue(SESSION_VALUE) instanceof PeerNames cached) {
      return cached;
    }
    PeerNames names;
    try {
      Certificate[] chain = session.getPeerCertificates();
      names =
          chain.length > 0 && chain[0] instanceof X509Certificate certificate
              ? of(certificate)
              : new PeerNames(List.of(""));
    } catch (SSLPeerUnverifiedException e) {
      names = new PeerNames(List.of(""));
    }
    session.putValue(SESSION_VALUE, names);
    return names;
  }

  /** The names of a peer with {@code certificate}. */
  static PeerNames of(X509Certificate certificate) {
    List<String> uris = new ArrayList<>();
    List<String> dnsNames = new ArrayList<>();
    Collection<List<?>> sans;
    try {
      sans = certificate.getSubjectAlternativeNames();
    } catch (CertificateParsingException e) {
      return new PeerNames(List.of()); // unreadable names: no principal_name matches
    }
    if (sans != null) {
      for (List<?> san : sans) {
        if (san.size() >= 2
            && san.get(0) instanceof Integer type
            && san.get(1) instanceof String v) {
          if (type == URI) {
            uris.add(v);
          } else if (type == DNS_NAME) {
            dnsNames.add(v);
          }
        }
      }
    }
    if (!uris.isEmpty()) {
      return new PeerNames(List.copyOf(uris));
    }
    if (!dnsNames.isEmpty()) {
      return new PeerNames(List.copyOf(dnsNames));
    }
    return new PeerNames(List.of(certificate.getSubjectX500Principal().getName()));
  }

  boolean matches(StringMatch principalName) {
    for (int i = 0; i < names.size(); i++) {
      if (principalName.matches(names.get(i))) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return "PeerNames" + names;
  }
}
