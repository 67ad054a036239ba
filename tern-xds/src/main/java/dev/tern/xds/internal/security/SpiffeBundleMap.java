package dev.tern.xds.internal.security;

import dev.tern.internal.config.JsonParser;
import dev.tern.xds.XdsTlsContext;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A SPIFFE bundle map (A87): for each trust domain, the roots of its X.509 SVIDs (the {@code x5c}
 * certificate of each {@code keys} entry whose {@code use} is {@code x509-svid}; other keys, such
 * as JWT ones, are skipped). A peer is checked against the roots of the trust domain of its leaf's
 * SPIFFE ID, its one URI SAN, with the JDK's PKIX validation. Immutable; thread-safe.
 */
final class SpiffeBundleMap {
  /** The start of the message a peer that fails the check fails the handshake with. */
  static final String FAILED = "SPIFFE bundle check failed (A87)";

  private final String source;
  private final Map<String, X509ExtendedTrustManager> domains;
  private final X509Certificate[] allRoots;

  private SpiffeBundleMap(
      String source, Map<String, X509ExtendedTrustManager> domains, List<X509Certificate> roots) {
    this.source = source;
    this.domains = domains;
    this.allRoots = roots.toArray(new X509Certificate[0]);
  }

  /**
   * Reads a bundle map document.
   *
   * @param source the file's name, for messages
   * @throws IllegalArgumentException naming {@code source} and the field that is wrong
   */
  static SpiffeBundleMap parse(byte[] json, String source) {
    String where = "SPIFFE bundle map " + source;
    Map<String, ?> top;
    try {
      top = JsonParser.parseObject(new String(json, StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
    }
    Map<?, ?> trustDomains = object(top.get("trust_domains"), where, "trust_domains");
    if (trustDomains.isEmpty()) {
      throw new IllegalArgumentException(where + ": trust_domains is empty");
    }
    Map<String, X509ExtendedTrustManager> domains = new LinkedHashMap<>();
    List<X509Certificate> all = new ArrayList<>();
    for (Map.Entry<?, ?> entry : trustDomains.entrySet()) {
      String name = (String) entry.getKey();
      String field = "trust_domains[\"" + name + "\"]";
      try {
        SpiffeId.checkTrustDomain(name, name);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(where + ": " + field + ": " + e.getMessage(), e);
      }
      List<X509Certificate> roots =
          roots(object(entry.getValue(), where, field), where, field + ".keys");
      domains.put(name, trustManager(roots, where));
      all.addAll(roots);
    }
    return new SpiffeBundleMap(source, Map.copyOf(domains), all);
  }

  private static List<X509Certificate> roots(Map<?, ?> bundle, String where, String field) {
    if (!(bundle.get("keys") instanceof List<?> keys)) {
      throw new IllegalArgumentException(where + ": " + field + " must be an array");
    }
    List<X509Certificate> roots = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      String keyField = field + "[" + i + "]";
      Map<?, ?> key = object(keys.get(i), where, keyField);
      if (!"x509-svid".equals(key.get("use"))) {
        continue;
      }
      if (!(key.get("x5c") instanceof List<?> x5c) || x5c.size() != 1) {
        throw new IllegalArgumentException(
            where + ": " + keyField + ".x5c must be an array of exactly one certificate");
      }
      roots.add(certificate(x5c.get(0), where, keyField + ".x5c[0]"));
    }
    if (roots.isEmpty()) {
      throw new IllegalArgumentException(where + ": " + field + " has no x509-svid key");
    }
    return roots;
  }

  private static X509Certificate certificate(Object value, String where, String field) {
    try {
      byte[] der = Base64.getDecoder().decode(value instanceof String s ? s : "");
      return (X509Certificate)
          CertificateFactory.getInstance("X.509")
              .generateCertificate(new ByteArrayInputStream(der));
    } catch (IllegalArgumentException | CertificateException | ClassCastException e) {
      throw new IllegalArgumentException(
          where + ": " + field + " is not a base64 DER X.509 certificate", e);
    }
  }

  private static Map<?, ?> object(Object value, String where, String field) {
    if (!(value instanceof Map<?, ?> map)) {
      throw new IllegalArgumentException(where + ": " + field + " must be an object");
    }
    return map;
  }

  private static X509ExtendedTrustManager trustManager(List<X509Certificate> roots, String where) {
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      for (int i = 0; i < roots.size(); i++) {
        store.setCertificateEntry("root-" + i, roots.get(i));
      }
      TrustManagerFactory factory =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(store);
      for (TrustManager manager : factory.getTrustManagers()) {
        if (manager instanceof X509ExtendedTrustManager x509) {
          return x509;
        }
      }
      throw new IllegalStateException("the JDK's trust manager factory made no X509 manager");
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException(where + ": cannot build a trust manager: " + e, e);
    }
  }

  /**
   * Checks a peer's chain: its leaf's one URI SAN must be a SPIFFE ID whose trust domain this map
   * has, and the chain must lead to one of that domain's roots.
   *
   * @param client whether the peer is a client (else a server)
   * @throws CertificateException starting with {@link #FAILED}, saying why
   */
  void check(X509Certificate[] chain, String authType, boolean client) throws CertificateException {
    if (chain == null || chain.length == 0) {
      throw new CertificateException(FAILED + ": the peer sent no certificate");
    }
    List<String> uris = new ArrayList<>();
    for (SanCheckingTrustManager.Name name : SanCheckingTrustManager.subjectAltNames(chain[0])) {
      if (name.type() == XdsTlsContext.SanType.URI) {
        uris.add(name.value());
      }
    }
    if (uris.size() != 1) {
      throw new CertificateException(
          FAILED
              + ": the peer's certificate has "
              + uris.size()
              + " URI SANs "
              + uris
              + ", it needs exactly one, its SPIFFE ID");
    }
    SpiffeId id;
    try {
      id = SpiffeId.parse(uris.get(0));
    } catch (IllegalArgumentException e) {
      throw new CertificateException(FAILED + ": " + e.getMessage(), e);
    }
    X509ExtendedTrustManager roots = domains.get(id.trustDomain());
    if (roots == null) {
      throw new CertificateException(
          FAILED
              + ": "
              + source
              + " has no bundle for the trust domain \""
              + id.trustDomain()
              + "\" of the peer's SPIFFE ID "
              + id);
    }
    // Without the engine: the SPIFFE ID and the SAN matchers replace the HTTPS host-name check.
    try {
      if (client) {
        roots.checkClientTrusted(chain, authType);
      } else {
        roots.checkServerTrusted(chain, authType);
      }
    } catch (CertificateException e) {
      throw new CertificateException(
          FAILED
              + ": the peer's chain does not lead to a root of the trust domain \""
              + id.trustDomain()
              + "\" of its SPIFFE ID "
              + id
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /** The trust domains this map has. */
  Set<String> trustDomains() {
    return domains.keySet();
  }

  /** Every trust domain's roots, as the issuers a server asks client certificates of. */
  X509Certificate[] acceptedIssuers() {
    return allRoots.clone();
  }
}
