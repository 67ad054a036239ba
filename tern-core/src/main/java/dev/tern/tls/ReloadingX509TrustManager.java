package dev.tern.tls;

import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.logging.Logger;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A trust manager that follows a PEM file of root certificates: it re-reads the file on a period
 * and, when it changed and holds valid certificates, checks the handshakes that follow against the
 * new roots (with the JDK's PKIX validation). While the file is half-written, the previous roots
 * stay in use and one WARNING is logged per distinct content.
 *
 * <pre>{@code
 * ReloadingX509TrustManager roots =
 *     ReloadingX509TrustManager.watch(new File("ca.pem"), Duration.ofMinutes(1));
 * ChannelCredentials creds = TlsChannelCredentials.newBuilder().trustManager(roots).build();
 * }</pre>
 *
 * <p>Each instance runs one daemon thread for its checks until {@link #close()}. Thread-safe.
 */
public final class ReloadingX509TrustManager extends X509ExtendedTrustManager implements Closeable {
  private static final Logger logger = Logger.getLogger(ReloadingX509TrustManager.class.getName());

  private final PemFileWatcher watcher;
  private volatile X509ExtendedTrustManager delegate;

  private ReloadingX509TrustManager(File rootCerts, Duration period) throws IOException {
    this.watcher =
        new PemFileWatcher(
            "trust manager for " + rootCerts,
            List.of(rootCerts),
            period,
            contents -> install(contents.get(0), rootCerts),
            logger);
  }

  /**
   * Loads {@code rootCerts} now and checks it again every {@code period}.
   *
   * @throws IOException if it cannot be read now
   * @throws IllegalArgumentException if it holds no valid certificate now (naming the file), or
   *     {@code period} is not positive
   */
  public static ReloadingX509TrustManager watch(File rootCerts, Duration period)
      throws IOException {
    Objects.requireNonNull(rootCerts, "rootCerts");
    return new ReloadingX509TrustManager(rootCerts, period);
  }

  private String install(byte[] pem, File rootCerts) {
    List<X509Certificate> roots = PemFiles.certificates(pem, "root certificates file " + rootCerts);
    try {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      for (int i = 0; i < roots.size(); i++) {
        store.setCertificateEntry("root-" + i, roots.get(i));
      }
      TrustManagerFactory factory =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(store);
      for (TrustManager manager : factory.getTrustManagers()) {
        if (manager instanceof X509ExtendedTrustManager x509) {
          delegate = x509;
          return roots.size() + " root certificate(s)";
        }
      }
      throw new IllegalStateException("the JDK's trust manager factory made no X509 manager");
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot build a trust manager: " + e, e);
    }
  }

  /**
   * Checks the file now instead of waiting for the period.
   *
   * @return true if new roots are now in use
   */
  public boolean reload() {
    return watcher.check();
  }

  /** Stops checking the file; the last loaded roots stay in use. */
  @Override
  public void close() {
    watcher.close();
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    delegate.checkClientTrusted(chain, authType, socket);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    delegate.checkServerTrusted(chain, authType, socket);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    delegate.checkClientTrusted(chain, authType, engine);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    delegate.checkServerTrusted(chain, authType, engine);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    delegate.checkClientTrusted(chain, authType);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    delegate.checkServerTrusted(chain, authType);
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return delegate.getAcceptedIssuers();
  }
}
