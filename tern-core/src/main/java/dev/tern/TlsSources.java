package dev.tern;

import dev.tern.tls.PemFiles;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;

/**
 * Reads and checks the PEM inputs of the TLS credentials builders, so a bad file fails where it is
 * given, with its name, instead of at the first handshake. Stateless; thread-safe.
 */
final class TlsSources {
  private TlsSources() {}

  /** How error messages name a file. */
  static String describe(File file, String what) {
    return what + " file " + file.getPath();
  }

  /** How error messages name a stream. */
  static String describe(String what) {
    return "the " + what + " stream";
  }

  /** The bytes of {@code file}; I/O errors name it. */
  static byte[] read(File file, String what) throws IOException {
    Objects.requireNonNull(file, what);
    try {
      return Files.readAllBytes(file.toPath());
    } catch (IOException e) {
      throw new IOException("cannot read " + describe(file, what) + ": " + e, e);
    }
  }

  /** The rest of {@code stream}, not closed. */
  static byte[] read(InputStream stream, String what) throws IOException {
    Objects.requireNonNull(stream, what);
    return stream.readAllBytes();
  }

  /**
   * Checks that {@code chain} holds certificates, {@code key} a private key ({@code password}
   * decrypting it if encrypted), and that the key belongs to the first certificate.
   *
   * @throws IllegalArgumentException naming the input that is wrong
   */
  static void checkKeyPair(
      byte[] chain, String chainSource, byte[] key, String password, String keySource) {
    List<X509Certificate> certificates = PemFiles.certificates(chain, chainSource);
    PrivateKey privateKey = PemFiles.privateKey(key, password, keySource);
    PemFiles.checkKeyMatches(privateKey, certificates.get(0), keySource + " and " + chainSource);
  }

  /** Checks that {@code roots} holds certificates. */
  static void checkRoots(byte[] roots, String source) {
    PemFiles.certificates(roots, source);
  }
}
