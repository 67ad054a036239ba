package dev.tern.authz;

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
 * A self-signed EC P-256 key and certificate, made at test time by the JDK's {@code keytool}
 * (nothing is committed), with the subject and subject alternative names a test asks for.
 */
final class KeytoolCertificate {
  private static final String PASSWORD = "tern-authz-test";

  final PrivateKey key;
  final X509Certificate certificate;

  private KeytoolCertificate(PrivateKey key, X509Certificate certificate) {
    this.key = key;
    this.certificate = certificate;
  }

  /**
   * Runs keytool.
   *
   * @param subject the distinguished name, such as {@code "CN=client, O=Tern"}
   * @param sans keytool's SAN list, such as {@code "uri:spiffe://foo.com/sa/a,dns:a.example.com"},
   *     or null for a certificate without alternative names
   */
  static KeytoolCertificate generate(String subject, String sans)
      throws IOException, GeneralSecurityException {
    Path dir = Files.createTempDirectory("tern-authz-");
    Path store = dir.resolve("key.p12");
    try {
      List<String> command =
          new ArrayList<>(
              List.of(
                  Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                  "-genkeypair",
                  "-alias",
                  "key",
                  "-keyalg",
                  "EC",
                  "-groupname",
                  "secp256r1",
                  "-dname",
                  subject,
                  "-validity",
                  "2",
                  "-storetype",
                  "PKCS12",
                  "-keystore",
                  store.toString(),
                  "-storepass",
                  PASSWORD,
                  "-keypass",
                  PASSWORD));
      if (sans != null) {
        command.add("-ext");
        command.add("SAN=" + sans);
      }
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      try {
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
          throw new IOException("keytool failed: " + output);
        }
      } finally {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      }
      KeyStore keyStore = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(store)) {
        keyStore.load(in, PASSWORD.toCharArray());
      }
      return new KeytoolCertificate(
          (PrivateKey) keyStore.getKey("key", PASSWORD.toCharArray()),
          (X509Certificate) keyStore.getCertificate("key"));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running keytool", e);
    } finally {
      Files.deleteIfExists(store);
      Files.deleteIfExists(dir);
    }
  }
}
