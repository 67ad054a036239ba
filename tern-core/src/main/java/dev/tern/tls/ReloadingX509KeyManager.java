package dev.tern.tls;

import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * A key manager that follows a PEM certificate chain file and private key file: it re-reads them on
 * a period and, when they changed and are valid (the key parses and belongs to the first
 * certificate), presents the new certificate in the handshakes that follow. Connections already
 * established keep theirs. While the files are half-written or do not match, the previous key and
 * certificate stay in use and one WARNING is logged per distinct content.
 *
 * <pre>{@code
 * ReloadingX509KeyManager keys = ReloadingX509KeyManager.watch(
 *     new File("server.pem"), new File("server.key"), null, Duration.ofMinutes(1));
 * ServerCredentials creds = TlsServerCredentials.newBuilder().keyManager(keys).build();
 * // ... when the server is shut down:
 * keys.close();
 * }</pre>
 *
 * <p>Each instance runs one daemon thread for its checks until {@link #close()}. Keys may be PKCS#8
 * (plain or encrypted), PKCS#1 RSA or SEC1 EC. Thread-safe.
 */
public final class ReloadingX509KeyManager extends X509ExtendedKeyManager implements Closeable {
  private static final Logger logger = Logger.getLogger(ReloadingX509KeyManager.class.getName());

  /** A key, its chain and the alias handshakes know them by; a new alias per load. */
  private record Material(String alias, PrivateKey key, X509Certificate[] chain) {}

  private final AtomicLong generation = new AtomicLong();
  private final PemFileWatcher watcher;
  private volatile Material current;

  /** The material before the last reload, for handshakes that chose its alias just before. */
  private volatile Material previous;

  private ReloadingX509KeyManager(File certChain, File privateKey, String password, Duration period)
      throws IOException {
    this.watcher =
        new PemFileWatcher(
            "key manager for " + certChain,
            List.of(certChain, privateKey),
            period,
            contents -> install(contents, certChain, privateKey, password),
            logger);
  }

  /**
   * Loads {@code certChain} and {@code privateKey} now and checks them again every {@code period}.
   *
   * @param password decrypts an encrypted key, or null
   * @throws IOException if a file cannot be read now
   * @throws IllegalArgumentException if the files are not usable now (naming the file), or {@code
   *     period} is not positive
   */
  public static ReloadingX509KeyManager watch(
      File certChain, File privateKey, String password, Duration period) throws IOException {
    Objects.requireNonNull(certChain, "certChain");
    Objects.requireNonNull(privateKey, "privateKey");
    return new ReloadingX509KeyManager(certChain, privateKey, password, period);
  }

  private String install(List<byte[]> contents, File certChain, File privateKey, String password) {
    String chainSource = "certificate chain file " + certChain;
    String keySource = "private key file " + privateKey;
    List<X509Certificate> chain = PemFiles.certificates(contents.get(0), chainSource);
    PrivateKey key = PemFiles.privateKey(contents.get(1), password, keySource);
    PemFiles.checkKeyMatches(key, chain.get(0), keySource + " and " + chainSource);
    Material material =
        new Material(
            "tern-" + generation.incrementAndGet(), key, chain.toArray(new X509Certificate[0]));
    previous = current;
    current = material;
    return "certificate "
        + chain.get(0).getSubjectX500Principal().getName()
        + " serial "
        + chain.get(0).getSerialNumber().toString(16);
  }

  /**
   * Checks the files now instead of waiting for the period (for example on a signal).
   *
   * @return true if new material is now in use
   */
  public boolean reload() {
    return watcher.check();
  }

  /** The certificate chain presented to new handshakes. */
  public X509Certificate[] currentCertificateChain() {
    return current.chain().clone();
  }

  /** Stops checking the files; the last loaded material stays in use. */
  @Override
  public void close() {
    watcher.close();
  }

  private Material byAlias(String alias) {
    Material now = current;
    if (now.alias().equals(alias)) {
      return now;
    }
    Material before = previous;
    return before != null && before.alias().equals(alias) ? before : null;
  }

  /**
   * Whether the key suits {@code keyType}: its algorithm ("EC", "RSA", ...), or a TLS 1.2
   * "algorithm_signer" form such as "EC_EC".
   */
  private static String aliasFor(Material material, String keyType) {
    String algorithm = material.key().getAlgorithm();
    if (keyType == null
        || keyType.equals(algorithm)
        || keyType.startsWith(algorithm + "_")
        || (algorithm.equals("RSA") && keyType.equals("RSASSA-PSS"))
        || (algorithm.startsWith("Ed") && keyType.equals("EdDSA"))) {
      return material.alias();
    }
    return null;
  }

  private String aliasFor(String[] keyTypes) {
    Material material = current;
    if (keyTypes == null) {
      return material.alias();
    }
    for (String keyType : keyTypes) {
      String alias = aliasFor(material, keyType);
      if (alias != null) {
        return alias;
      }
    }
    return null;
  }

  private String[] aliases(String keyType) {
    String alias = aliasFor(current, keyType);
    return alias == null ? null : new String[] {alias};
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    return aliases(keyType);
  }

  @Override
  public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
    return aliasFor(keyTypes);
  }

  @Override
  public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers, SSLEngine engine) {
    return aliasFor(keyTypes);
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    return aliases(keyType);
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return aliasFor(current, keyType);
  }

  @Override
  public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
    return aliasFor(current, keyType);
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    Material material = byAlias(alias);
    return material == null ? null : material.chain().clone();
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    Material material = byAlias(alias);
    return material == null ? null : material.key();
  }
}
