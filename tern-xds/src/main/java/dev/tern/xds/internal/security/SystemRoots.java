package dev.tern.xds.internal.security;

import java.security.GeneralSecurityException;
import java.security.KeyStore;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The JDK's trusted roots (its {@code cacerts}, or what {@code javax.net.ssl.trustStore} names),
 * for clusters whose UpstreamTlsContext asks for {@code system_root_certs} (A82). Read at each
 * call, so a changed trust store reaches the next TLS context built. Stateless.
 */
final class SystemRoots {
  private SystemRoots() {}

  /**
   * A trust manager on the JDK's default trusted roots.
   *
   * @throws IllegalStateException if the JDK has none (its trust store cannot be read)
   */
  static X509ExtendedTrustManager trustManager() {
    try {
      TrustManagerFactory factory =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init((KeyStore) null);
      for (TrustManager manager : factory.getTrustManagers()) {
        if (manager instanceof X509ExtendedTrustManager x509) {
          return x509;
        }
      }
      throw new IllegalStateException("the JDK's trust manager factory has no X.509 trust manager");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot read the JDK's trusted roots: " + e.getMessage(), e);
    }
  }
}
