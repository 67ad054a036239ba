package dev.tern.interop;

import java.nio.file.Path;

/** Where the interop programs find grpc-java's published test certificates. */
final class TestCerts {
  private TestCerts() {}

  /**
   * Where the test CA and server key pair are: the system property {@code tern.interop.certs}, else
   * {@code $TERN_INTEROP_CERTS_DIR}, else {@code tern-interop/target/test-certs} (where the
   * launchers' {@code fetch-test-certs.sh} puts them).
   */
  static Path dir() {
    String dir = System.getProperty("tern.interop.certs");
    if (dir == null) {
      dir = System.getenv("TERN_INTEROP_CERTS_DIR");
    }
    return Path.of(dir != null ? dir : "tern-interop/target/test-certs");
  }
}
