package dev.tern.testtools;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed EC key and certificate made at test time by the JDK's {@code keytool} (nothing is
 * committed), as PEM: each side of an mTLS test trusts the other's certificate as its root. The
 * files suit every gRPC implementation's {@code file_watcher} certificate provider (a PKCS#8 key).
 * Immutable.
 */
public final class TestPems {
  private static final String PASSWORD = "tern-test";

  /** The certificate, PEM ({@code CERTIFICATE}). */
  public final String certificatePem;

  /** The private key, PEM ({@code PRIVATE KEY}, PKCS#8). */
  public final String keyPem;

  /** The certificate. */
  public final X509Certificate certificate;

  private TestPems(X509Certificate certificate, PrivateKey key) throws GeneralSecurityException {
    this.certificate = certificate;
    this.certificatePem = pem("CERTIFICATE", certificate.getEncoded());
    this.keyPem = pem("PRIVATE KEY", key.getEncoded());
  }

  /**
   * A new key and certificate with subject {@code CN=name}.
   *
   * @param san keytool's subject alternative names, e.g. {@code dns:localhost,ip:127.0.0.1}
   */
  public static TestPems generate(String name, String san) throws Exception {
    Path dir = Files.createTempDirectory("tern-xds-tls-");
    Path store = dir.resolve("keys.p12");
    try {
      String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
      Process process =
          new ProcessBuilder(
                  keytool,
                  "-genkeypair",
                  "-alias",
                  "k",
                  "-keyalg",
                  "EC",
                  "-groupname",
                  "secp256r1",
                  "-dname",
                  "CN=" + name,
                  "-ext",
                  "SAN=" + san,
                  "-validity",
                  "2",
                  "-storetype",
                  "PKCS12",
                  "-keystore",
                  store.toString(),
                  "-storepass",
                  PASSWORD,
                  "-keypass",
                  PASSWORD)
              .redirectErrorStream(true)
              .start();
      String output = new String(process.getInputStream().readAllBytes(), UTF_8);
      if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
        process.destroyForcibly();
        throw new IOException("keytool failed: " + output);
      }
      KeyStore keys = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(store)) {
        keys.load(in, PASSWORD.toCharArray());
      }
      return new TestPems(
          (X509Certificate) keys.getCertificate("k"),
          (PrivateKey) keys.getKey("k", PASSWORD.toCharArray()));
    } finally {
      Files.deleteIfExists(store);
      Files.deleteIfExists(dir);
    }
  }

  private static String pem(String label, byte[] der) {
    return "-----BEGIN "
        + label
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(US_ASCII)).encodeToString(der)
        + "\n-----END "
        + label
        + "-----\n";
  }

  /** Writes {@code content} to {@code file} at once (a rename), as a rotation would. */
  public static void replace(Path file, String content) throws IOException {
    Path next = file.resolveSibling(file.getFileName() + ".next");
    Files.writeString(next, content, US_ASCII);
    Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** The PEM of several certificates, for a roots file. */
  public static String roots(List<TestPems> pems) {
    StringBuilder all = new StringBuilder();
    for (TestPems p : pems) {
      all.append(p.certificatePem);
    }
    return all.toString();
  }
}
