package dev.tern.netty;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed key pair made at test time by the JDK's {@code keytool} (nothing is committed),
 * valid for {@code localhost} and {@code 127.0.0.1}.
 */
final class TestCertificates {
  private static final char[] PASSWORD = "tern-test".toCharArray();

  final PrivateKey key;
  final X509Certificate certificate;

  private TestCertificates(PrivateKey key, X509Certificate certificate) {
    this.key = key;
    this.certificate = certificate;
  }

  /** Runs keytool for a new EC P-256 key and certificate with subject {@code CN=name}. */
  static TestCertificates generate(String name) throws IOException, GeneralSecurityException {
    return generate(name, "EC");
  }

  /**
   * Runs keytool for a new key ({@code EC}: P-256, {@code RSA}: 2048 bits) and certificate with
   * subject {@code CN=name}.
   */
  static TestCertificates generate(String name, String keyAlgorithm)
      throws IOException, GeneralSecurityException {
    Path dir = Files.createTempDirectory("tern-tls-");
    Path store = dir.resolve(name + ".p12");
    try {
      String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
      List<String> command = new ArrayList<>();
      command.addAll(
          List.of(
              keytool,
              "-genkeypair",
              "-alias",
              name,
              "-keyalg",
              keyAlgorithm,
              "-dname",
              "CN=" + name,
              "-ext",
              "SAN=dns:localhost,ip:127.0.0.1",
              "-validity",
              "2",
              "-storetype",
              "PKCS12",
              "-keystore",
              store.toString(),
              "-storepass",
              new String(PASSWORD),
              "-keypass",
              new String(PASSWORD)));
      command.addAll(
          keyAlgorithm.equals("EC")
              ? List.of("-groupname", "secp256r1")
              : List.of("-keysize", "2048"));
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
        process.destroyForcibly();
        throw new IOException("keytool failed: " + output);
      }
      KeyStore keyStore = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(store)) {
        keyStore.load(in, PASSWORD);
      }
      return new TestCertificates(
          (PrivateKey) keyStore.getKey(name, PASSWORD),
          (X509Certificate) keyStore.getCertificate(name));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running keytool", e);
    } finally {
      Files.deleteIfExists(store);
      Files.deleteIfExists(dir);
    }
  }
}
