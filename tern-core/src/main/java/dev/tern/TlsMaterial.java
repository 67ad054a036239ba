package dev.tern;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.KeyManager;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509KeyManager;
import javax.net.ssl.X509TrustManager;

/**
 * The key and trust material both TLS credentials builders collect: PEM read and checked where it
 * is given ({@link TlsSources}), or key and trust managers. Each key setter replaces the key
 * material set before, each trust setter the trust material. Not thread-safe: one builder's.
 */
final class TlsMaterial {
  byte[] certificateChain;
  byte[] privateKey;
  String privateKeyPassword;
  List<KeyManager> keyManagers;
  byte[] rootCertificates;
  List<TrustManager> trustManagers;

  void keyFiles(File certChain, File privateKey, String password) throws IOException {
    byte[] chain = TlsSources.read(certChain, "certChain");
    byte[] key = TlsSources.read(privateKey, "privateKey");
    TlsSources.checkKeyPair(
        chain,
        TlsSources.describe(certChain, "certificate chain"),
        key,
        password,
        TlsSources.describe(privateKey, "private key"));
    setKey(chain, key, password);
  }

  void keyStreams(InputStream certChain, InputStream privateKey, String password)
      throws IOException {
    byte[] chain = TlsSources.read(certChain, "certChain");
    byte[] key = TlsSources.read(privateKey, "privateKey");
    TlsSources.checkKeyPair(
        chain,
        TlsSources.describe("certificate chain"),
        key,
        password,
        TlsSources.describe("private key"));
    setKey(chain, key, password);
  }

  void keyManagers(KeyManager[] managers) {
    keyManagers = checkManagers(managers, X509KeyManager.class, "keyManagers");
    certificateChain = null;
    privateKey = null;
    privateKeyPassword = null;
  }

  void rootsFile(File rootCerts) throws IOException {
    byte[] roots = TlsSources.read(rootCerts, "rootCerts");
    TlsSources.checkRoots(roots, TlsSources.describe(rootCerts, "root certificates"));
    setRoots(roots);
  }

  void rootsStream(InputStream rootCerts) throws IOException {
    byte[] roots = TlsSources.read(rootCerts, "rootCerts");
    TlsSources.checkRoots(roots, TlsSources.describe("root certificates"));
    setRoots(roots);
  }

  void trustManagers(TrustManager[] managers) {
    trustManagers = checkManagers(managers, X509TrustManager.class, "trustManagers");
    rootCertificates = null;
  }

  private void setKey(byte[] chain, byte[] key, String password) {
    certificateChain = chain;
    privateKey = key;
    privateKeyPassword = password;
    keyManagers = null;
  }

  private void setRoots(byte[] roots) {
    rootCertificates = roots;
    trustManagers = null;
  }

  /**
   * {@code managers} as an unmodifiable list, checked: no null element, and at least one of the
   * {@code required} type.
   *
   * @throws IllegalArgumentException naming {@code name} otherwise
   */
  private static <T> List<T> checkManagers(T[] managers, Class<?> required, String name) {
    Objects.requireNonNull(managers, name);
    for (int i = 0; i < managers.length; i++) {
      if (managers[i] == null) {
        throw new IllegalArgumentException(name + "[" + i + "] is null");
      }
    }
    List<T> list = List.copyOf(Arrays.asList(managers));
    for (T manager : list) {
      if (required.isInstance(manager)) {
        return list;
      }
    }
    throw new IllegalArgumentException(
        name + " must include a " + required.getSimpleName() + ", got " + list);
  }
}
