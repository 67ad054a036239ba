package dev.tern.xds.internal.security;

import dev.tern.xds.XdsTlsContext;
import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A client's check of the server (A29): the chain must be trusted by the cluster's roots, and then
 * the server's certificate must have a subject alternative name that one of the cluster's SAN
 * matchers matches ({@code match_subject_alt_names}: DNS, URI or IP address names; {@code
 * match_typed_subject_alt_names}: names of the matcher's type), or, with {@code
 * auto_sni_san_validation} (A101), a DNS, URI or IP name equal to the server name sent; no matchers
 * accept any trusted certificate. This replaces the HTTPS host-name check. A mismatch fails the
 * handshake with a message naming the SAN check, the matchers and the certificate's names.
 * Immutable; thread-safe.
 */
final class SanCheckingTrustManager extends X509ExtendedTrustManager {
  /** The start of the message a SAN mismatch fails with. */
  static final String MISMATCH = "xDS SAN check failed";

  /** A certificate's subject alternative name and its kind. */
  record Name(XdsTlsContext.SanType type, String value) {
    @Override
    public String toString() {
      return value;
    }
  }

  // The GeneralName tags of RFC 5280 that X509Certificate.getSubjectAlternativeNames reports.
  private static final int EMAIL = 1;
  private static final int DNS = 2;
  private static final int URI = 6;
  private static final int IP = 7;

  private static final String MATCHERS_NAME = "the cluster's match_subject_alt_names";

  private final X509ExtendedTrustManager roots;
  private final List<XdsTlsContext.SanMatcher> matchers;
  private final boolean againstServerName;

  /**
   * @param matchers the cluster's SAN matchers
   * @param againstServerName whether the SANs are checked against the server name the connection
   *     sent instead of the matchers ({@code auto_sni_san_validation}, A101); a connection that
   *     sent none is checked against the matchers
   */
  SanCheckingTrustManager(
      X509ExtendedTrustManager roots,
      List<XdsTlsContext.SanMatcher> matchers,
      boolean againstServerName) {
    this.roots = roots;
    this.matchers = List.copyOf(matchers);
    this.againstServerName = againstServerName;
  }

  // The roots are asked without the engine or socket: with them, the JDK's check adds the HTTPS
  // host-name check when the engine asks for one (Netty's client contexts do by default), and A29
  // replaces that check with the SAN matchers. The name the engine was made for is the server name
  // the connection sent (the transport makes it with the name from serverNameFor, or none).

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    check(chain, authType, engine == null ? null : engine.getPeerHost());
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    String sent = null;
    if (socket instanceof SSLSocket tls && tls.getHandshakeSession() != null) {
      sent = tls.getHandshakeSession().getPeerHost();
    }
    check(chain, authType, sent);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    check(chain, authType, null);
  }

  private void check(X509Certificate[] chain, String authType, String sentName)
      throws CertificateException {
    roots.checkServerTrusted(chain, authType);
    if (againstServerName && sentName != null && !sentName.isEmpty()) {
      // Host names compare ignoring case; a wildcard DNS SAN covers one label (RFC 6125).
      checkSans(
          chain,
          List.of(new XdsTlsContext.SanMatcher(XdsTlsContext.Kind.EXACT, sentName, null, true)),
          "the server name sent (auto_sni_san_validation)");
    } else {
      checkSans(chain, matchers, MATCHERS_NAME);
    }
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
    throw new UnsupportedOperationException("a client's trust manager checks servers only");
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
    throw new UnsupportedOperationException("a client's trust manager checks servers only");
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType) {
    throw new UnsupportedOperationException("a client's trust manager checks servers only");
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return roots.getAcceptedIssuers();
  }

  private static void checkSans(
      X509Certificate[] chain, List<XdsTlsContext.SanMatcher> matchers, String matchersName)
      throws CertificateException {
    if (matchers.isEmpty()) {
      return;
    }
    if (chain == null || chain.length == 0) {
      throw new CertificateException(MISMATCH + ": the server sent no certificate");
    }
    List<Name> names = subjectAltNames(chain[0]);
    for (Name name : names) {
      for (XdsTlsContext.SanMatcher matcher : matchers) {
        if (matcher.matches(name.type(), name.value())) {
          return;
        }
      }
    }
    throw new CertificateException(
        MISMATCH
            + ": no subject alternative name of the server's certificate "
            + names
            + " matches "
            + matchersName
            + " "
            + matchers);
  }

  /** The DNS, URI, IP address and e-mail SANs of {@code certificate}. */
  static List<Name> subjectAltNames(X509Certificate certificate)
      throws CertificateParsingException {
    Collection<List<?>> all = certificate.getSubjectAlternativeNames();
    List<Name> names = new ArrayList<>();
    if (all == null) {
      return names;
    }
    for (List<?> entry : all) {
      if (entry.size() >= 2
          && entry.get(0) instanceof Integer tag
          && entry.get(1) instanceof String value) {
        XdsTlsContext.SanType type =
            switch (tag) {
              case DNS -> XdsTlsContext.SanType.DNS;
              case URI -> XdsTlsContext.SanType.URI;
              case IP -> XdsTlsContext.SanType.IP_ADDRESS;
              case EMAIL -> XdsTlsContext.SanType.EMAIL;
              default -> null;
            };
        if (type != null) {
          names.add(new Name(type, value));
        }
      }
    }
    return names;
  }
}
