package dev.tern.interop;

import dev.tern.testtools.ExternalTool;
import dev.tern.testtools.ToolProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tern's client over HTTP/3 ({@code NettyChannelBuilder.enableHttp3()}, as {@code
 * bin/interop-client --http3} uses it) against a gRPC server over HTTP/3 that shares nothing with
 * Tern: aioquic's QUIC, TLS and HTTP/3 with pylsqpack's QPACK, and gRPC done by hand
 * (tern-http3/src/test/python/grpc_h3_server.py). The interop cases that server answers must pass.
 */
@Tag("external-check") // not in mvn verify; -Pexternal-checks and CI: README.md#development
class Http3AioquicServerInteropTest {
  private static final Path SERVER =
      Path.of("../tern-http3/src/test/python/grpc_h3_server.py").toAbsolutePath().normalize();

  /** The cases grpc_h3_server.py serves (see its docstring). */
  private static final List<String> CASES =
      List.of(
          "empty_unary",
          "large_unary",
          "custom_metadata",
          "status_code_and_message",
          "special_status_message",
          "unimplemented_method",
          "unimplemented_service",
          "server_streaming",
          "client_streaming");

  @Test
  void ternClientPassesTheInteropCasesAgainstAnAioquicServer(@TempDir Path dir) throws Exception {
    Path python = ExternalTool.requireHttp3Python();
    Path cert = Http3PeerRuns.writeLocalhostCertificate(dir);
    ToolProcess server =
        ToolProcess.start(
            "grpc-h3-server",
            List.of(
                python.toString(),
                SERVER.toString(),
                "--cert=" + cert,
                "--key=" + dir.resolve("server1.key"),
                "--host=127.0.0.1"));
    try {
      Http3PeerRuns.assertTernClientPasses(
          server, Http3PeerRuns.awaitListeningPort(server), cert, CASES);
    } finally {
      server.stop(Duration.ofSeconds(5));
    }
  }
}
