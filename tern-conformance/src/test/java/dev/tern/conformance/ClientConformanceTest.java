package dev.tern.conformance;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Connect conformance suite in client mode: the runner's reference servers (connect-go's and
 * grpc-go's) answer {@link ConformanceClient}, Tern's gRPC client under test, for every case that
 * {@code client-config.yaml} allows (gRPC over HTTP/2, plaintext and TLS, proto, identity and gzip,
 * every stream type). Every case must pass except those in {@code client-known-failing.txt}, each
 * listed with its reason, which must all fail.
 */
@Tag("external-check") // not in mvn verify; -Pexternal-checks and CI: README.md#development
class ClientConformanceTest {
  @TempDir Path workDir;

  @Test
  void ternClientPassesTheConformanceSuite() throws Exception {
    ConformanceRunner.assertPasses(
        "client",
        ConformanceClient.class,
        "client-config.yaml",
        "client-known-failing.txt",
        List.of(),
        workDir);
  }
}
