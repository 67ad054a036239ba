package dev.tern.conformance;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Connect conformance suite in server mode: the runner's reference client (connect-go) calls
 * {@link ConformanceServer}, Tern's server under test, for every case that {@code
 * server-config.yaml} allows (gRPC, gRPC-Web and Connect over HTTP/1.1 and HTTP/2, cleartext and
 * TLS with client certificates, proto and JSON, identity and gzip, every stream type, Connect GET,
 * the message receive limit), each configuration on a server process of its own. Every case must
 * pass except those in {@code server-known-failing.txt}, which must all fail, and those in {@code
 * server-known-flaky.txt}, which may; both list each with its reason.
 */
@Tag("external-check") // not in mvn verify; -Pexternal-checks and CI: README.md#development
class ServerConformanceTest {
  @TempDir Path workDir;

  @Test
  void ternServerPassesTheConformanceSuite() throws Exception {
    ConformanceRunner.assertPasses(
        "server",
        ConformanceServer.class,
        "server-config.yaml",
        "server-known-failing.txt",
        // Two calls and two server processes at a time: the test machine has two cores, and
        // several cases time calls to the second.
        List.of(
            "--known-flaky", "@server-known-flaky.txt", "--parallel", "2", "--max-servers", "2"),
        workDir);
  }
}
