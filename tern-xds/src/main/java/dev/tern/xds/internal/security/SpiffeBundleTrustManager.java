package dev.tern.xds.internal.security;

import dev.tern.tls.PemFileWatcher;
import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.logging.Logger;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A trust manager that follows a SPIFFE bundle map file (A87) and checks peers with {@link
 * SpiffeBundleMap#check}: it re-reads the file on a period and, when it changed and is a valid
 * bundle map, checks the handshakes that follow against the new map. A file that is not valid keeps
 * the previous map and is reported by one WARNING per distinct content, naming the file and the
 * field.
 *
 * <p>The file is followed by tern-core's {@link PemFileWatcher}, which runs one daemon thread for
 * its checks until {@link #close()}. Thread-safe: checks of the file are serialized; handshakes
 * read the current map through a volatile field.
 */
final class SpiffeBundleTrustManager extends X509ExtendedTrustManager implements Closeable {
  private static final Logger logger = Logger.getLogger(SpiffeBundleTrustManager.class.getName());

  private final PemFileWatcher watcher;
  private volatile SpiffeBundleMap bundles;

  private SpiffeBundleTrustManager(File file, Duration period) throws IOException {
    this.watcher =
        new PemFileWatcher(
            "SPIFFE bundle map " + file,
            List.of(file),
            period,
            contents -> {
              bundles = SpiffeBundleMap.parse(contents.get(0), file.toString());
              return "trust domains " + bundles.trustDomains();
            },
            logger.getName());
  }

  /**
   * Loads {@code file} now and checks it again every {@code period}.
   *
   * @throws IOException if it cannot be read now
   * @throws IllegalArgumentException if it is not a valid bundle map now (naming the file and the
   *     field)
   */
  static SpiffeBundleTrustManager watch(File file, Duration period) throws IOException {
    return new SpiffeBundleTrustManager(file, period);
  }

  /**
   * Checks the file now instead of waiting for the period.
   *
   * @return true if a new map is now in use
   */
  boolean reload() {
    return watcher.check();
  }

  /** Stops checking the file; the last loaded map stays in use. */
  @Override
  public void close() {
    watcher.close();
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    bundles.check(chain, authType, true);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    bundles.check(chain, authType, false);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    bundles.check(chain, authType, true);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    bundles.check(chain, authType, false);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    bundles.check(chain, authType, true);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    bundles.check(chain, authType, false);
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return bundles.acceptedIssuers();
  }
}
