package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.testtools.ExternalTool;
import dev.tern.testtools.ToolProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tern's interop server with {@code --http3} against a gRPC client over HTTP/3 that shares nothing
 * with Tern: aioquic's QUIC, TLS and HTTP/3 with pylsqpack's QPACK, and gRPC done by hand
 * (tern-http3/src/test/python/grpc_h3_client.py): the unary interop cases, compression both ways,
 * client, server and bidirectional streaming, a cancelled call, a server-side deadline and the
 * metadata limit, each over HTTP/3 on the server's UDP port.
 */
@Tag("external-check") // not in mvn verify; -Pexternal-checks and CI: README.md#development
class Http3AioquicInteropTest {
  private static final Path CLIENT =
      Path.of("../tern-http3/src/test/python/grpc_h3_client.py").toAbsolutePath().normalize();

  @Test
  void aioquicClientPassesTheInteropCasesOverHttp3(@TempDir Path certs) throws Exception {
    Path python = ExternalTool.requireHttp3Python();
    Path ca = Http3PeerRuns.writeLocalhostCertificate(certs);
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    Server server = InteropServer.start(0, true, true, certs, scheduler);
    ToolProcess client = null;
    try {
      client =
          ToolProcess.start(
              "grpc-h3-client",
              List.of(
                  python.toString(),
                  CLIENT.toString(),
                  "--port=" + server.getPort(),
                  "--ca=" + ca,
                  "--server_host_override=localhost"));
      assertThat(client.awaitExit(Duration.ofSeconds(120))).as(client.output()).isTrue();
      client.stop(Duration.ofSeconds(5)); // reads its output to the end: it may lag the exit

      assertThat(client.output().lines())
          .as(client.output())
          .containsExactly(
              "PASS empty_unary",
              "PASS large_unary",
              "PASS custom_metadata",
              "PASS status_code_and_message",
              "PASS special_status_message",
              "PASS unimplemented_method",
              "PASS unimplemented_service",
              "PASS timeout_on_sleeping_server",
              "PASS oversized_metadata",
              "PASS client_compressed_unary",
              "PASS server_compressed_unary",
              "PASS client_streaming",
              "PASS server_streaming",
              "PASS half_duplex",
              "PASS cancel_after_begin",
              "PASS cancel_after_first_response");
      assertThat(client.exitValue()).isZero();
    } finally {
      if (client != null) {
        client.stop(Duration.ofSeconds(5));
      }
      server.shutdownNow();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      scheduler.shutdownNow();
    }
  }
}
