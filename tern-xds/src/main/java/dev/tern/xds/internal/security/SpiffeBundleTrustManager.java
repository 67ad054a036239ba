package dev.tern.xds.internal.security;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
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
 * <p>Each instance runs one daemon thread for its checks until {@link #close()}. Thread-safe:
 * checks of the file are serialized; handshakes read the current map through a volatile field.
 */
final class SpiffeBundleTrustManager extends X509ExtendedTrustManager implements Closeable {
  private static final Logger logger = Logger.getLogger(SpiffeBundleTrustManager.class.getName());

  private final File file;
  private final ScheduledExecutorService scheduler;
  private volatile SpiffeBundleMap bundles;

  @GuardedBy("this")
  private byte[] lastSeen;

  private SpiffeBundleTrustManager(File file, Duration period) throws IOException {
    this.file = file;
    byte[] initial = Files.readAllBytes(file.toPath());
    this.bundles = SpiffeBundleMap.parse(initial, file.toString());
    synchronized (this) {
      lastSeen = initial;
    }
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "tern-spiffe-reload-" + file.getName());
              thread.setDaemon(true);
              return thread;
            });
    long nanos = period.toNanos();
    scheduler.scheduleWithFixedDelay(this::reload, nanos, nanos, TimeUnit.NANOSECONDS);
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
  synchronized boolean reload() {
    byte[] content;
    try {
      content = Files.readAllBytes(file.toPath());
    } catch (IOException e) {
      // Mid-rotation the file may be missing for a moment; the next check will see it.
      logger.log(Level.FINE, "cannot read {0} yet: {1}", new Object[] {file, e});
      return false;
    }
    if (Arrays.equals(content, lastSeen)) {
      return false;
    }
    lastSeen = content;
    try {
      bundles = SpiffeBundleMap.parse(content, file.toString());
      logger.log(
          Level.INFO, "{0}: loaded trust domains {1}", new Object[] {file, bundles.trustDomains()});
      return true;
    } catch (IllegalArgumentException e) {
      logger.log(
          Level.WARNING,
          "keeping the previous SPIFFE bundle map, the new one is not usable: {0}",
          e.getMessage());
      return false;
    }
  }

  /** Stops checking the file; the last loaded map stays in use. */
  @Override
  public void close() {
    scheduler.shutdownNow();
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
