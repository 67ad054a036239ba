package dev.tern.xds.internal.security;

import dev.tern.tls.ReloadingX509KeyManager;
import dev.tern.tls.ReloadingX509TrustManager;
import dev.tern.xds.FileWatcherConfig;
import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * One {@code file_watcher} certificate provider instance (A29): its key and certificate, and its
 * roots, each re-read every {@code refresh_interval} by tern-core's reloading managers (new content
 * is used only when valid, the key matching the certificate; otherwise the old material stays and a
 * WARNING names the file). With a {@code spiffe_trust_bundle_map_file} (A87) its roots are that
 * SPIFFE bundle map's instead, a peer checked against the bundle of its SPIFFE ID's trust domain
 * ({@link SpiffeBundleTrustManager}), re-read the same way. Files that are not usable when first
 * needed are tried again at the next use: until then handshakes fail, naming the instance and the
 * problem.
 *
 * <p>Thread-safe: loading is synchronized; the managers in use are volatile.
 */
public final class FileWatcherProvider {
  private static final Logger logger = Logger.getLogger(FileWatcherProvider.class.getName());

  private final String name;
  private final FileWatcherConfig config;
  private final X509ExtendedKeyManager keyManager = new Keys();
  private final X509ExtendedTrustManager trustManager = new Roots();
  private volatile ReloadingX509KeyManager keys;
  private volatile X509ExtendedTrustManager roots; // a ReloadingX509TrustManager or SPIFFE's
  private volatile String keysProblem;
  private volatile String rootsProblem;
  private boolean closed;

  FileWatcherProvider(String name, FileWatcherConfig config) {
    this.name = name;
    this.config = config;
  }

  /** The instance's name in the bootstrap. */
  public String name() {
    return name;
  }

  /** A key manager presenting this instance's current key and certificate. */
  public X509ExtendedKeyManager keyManager() {
    return keyManager;
  }

  /** A trust manager checking peers against this instance's current roots. */
  public X509ExtendedTrustManager trustManager() {
    return trustManager;
  }

  /** Why there is no key and certificate yet, or null if there are. */
  public String keysProblem() {
    return currentKeys() == null ? keysProblem : null;
  }

  /** Why there are no roots yet, or null if there are. */
  public String rootsProblem() {
    return currentRoots() == null ? rootsProblem : null;
  }

  private ReloadingX509KeyManager currentKeys() {
    ReloadingX509KeyManager now = keys;
    return now != null ? now : loadKeys();
  }

  private X509ExtendedTrustManager currentRoots() {
    X509ExtendedTrustManager now = roots;
    return now != null ? now : loadRoots();
  }

  private synchronized ReloadingX509KeyManager loadKeys() {
    if (keys != null || closed) {
      return keys;
    }
    if (config.certificateFile() == null) {
      keysProblem =
          "certificate provider instance \""
              + name
              + "\" has no certificate_file and private_key_file";
      return null;
    }
    try {
      keys =
          ReloadingX509KeyManager.watch(
              new File(config.certificateFile()),
              new File(config.privateKeyFile()),
              null,
              config.refreshInterval());
    } catch (IOException | IllegalArgumentException e) {
      keysProblem = problem(e);
    }
    return keys;
  }

  private synchronized X509ExtendedTrustManager loadRoots() {
    if (roots != null || closed) {
      return roots;
    }
    if (config.caCertificateFile() == null && config.spiffeTrustBundleMapFile() == null) {
      rootsProblem =
          "certificate provider instance \""
              + name
              + "\" has no ca_certificate_file or spiffe_trust_bundle_map_file";
      return null;
    }
    try {
      roots =
          config.spiffeTrustBundleMapFile() != null
              ? SpiffeBundleTrustManager.watch(
                  new File(config.spiffeTrustBundleMapFile()), config.refreshInterval())
              : ReloadingX509TrustManager.watch(
                  new File(config.caCertificateFile()), config.refreshInterval());
    } catch (IOException | IllegalArgumentException e) {
      rootsProblem = problem(e);
    }
    return roots;
  }

  private String problem(Exception e) {
    String problem = "certificate provider instance \"" + name + "\": " + e.getMessage();
    logger.log(Level.WARNING, problem);
    return problem;
  }

  /** Stops re-reading the files. */
  synchronized void close() {
    closed = true;
    if (keys != null) {
      keys.close();
    }
    if (roots instanceof Closeable closeable) {
      try {
        closeable.close();
      } catch (IOException e) {
        throw new IllegalStateException("cannot stop watching roots of " + name, e);
      }
    }
  }

  /** The key manager: the current keys', or none (the handshake then fails). */
  private final class Keys extends X509ExtendedKeyManager {
    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
      ReloadingX509KeyManager k = currentKeys();
      return k == null ? null : k.getClientAliases(keyType, issuers);
    }

    @Override
    public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
      ReloadingX509KeyManager k = currentKeys();
      return k == null ? null : k.chooseClientAlias(keyTypes, issuers, socket);
    }

    @Override
    public String chooseEngineClientAlias(
        String[] keyTypes, Principal[] issuers, SSLEngine engine) {
      ReloadingX509KeyManager k = currentKeys();
      return k == null ? null : k.chooseEngineClientAlias(keyTypes, issuers, engine);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
      ReloadingX509KeyManager k = currentKeys();
      return k == null ? null : k.getServerAliases(keyType, issuers);
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
      ReloadingX509KeyManager k = currentKeys();
      return k == null ? null : k.chooseServerAlias(keyType, issuers, socket);
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
      ReloadingX509KeyManager k = currentKeys();
      return k == null ? null : k.chooseEngineServerAlias(keyType, issuers, engine);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
      ReloadingX509KeyManager k = currentKeys();
      return k == null ? null : k.getCertificateChain(alias);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
      ReloadingX509KeyManager k = currentKeys();
      return k == null ? null : k.getPrivateKey(alias);
    }
  }

  /** The trust manager: the current roots', or a refusal naming the problem. */
  private final class Roots extends X509ExtendedTrustManager {
    private X509ExtendedTrustManager roots() throws CertificateException {
      X509ExtendedTrustManager r = currentRoots();
      if (r == null) {
        throw new CertificateException("no roots to check the peer with: " + rootsProblem);
      }
      return r;
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      roots().checkClientTrusted(chain, authType, socket);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      roots().checkServerTrusted(chain, authType, socket);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      roots().checkClientTrusted(chain, authType, engine);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      roots().checkServerTrusted(chain, authType, engine);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      roots().checkClientTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      roots().checkServerTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      X509ExtendedTrustManager r = currentRoots();
      return r == null ? new X509Certificate[0] : r.getAcceptedIssuers();
    }
  }
}
