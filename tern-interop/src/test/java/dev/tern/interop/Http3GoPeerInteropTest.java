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
 * Tern over HTTP/3 against a gRPC peer that shares nothing with Tern, both ways: connect-go
 * speaking the gRPC protocol over quic-go's HTTP/3 client and server ({@value
 * ExternalTool#H3_PEER}, tern-http3/src/test/go/h3peer, built by tools/install-http3-tools.sh). Its
 * client runs the interop cases against Tern's interop server with {@code --http3}; Tern's client
 * runs them against its server. Every case the peer expresses must pass.
 */
@Tag("external-check") // not in mvn verify; -Pexternal-checks and CI: README.md#development
class Http3GoPeerInteropTest {
  /**
   * The cases both sides of the peer express (not the compressed ones: connect-go compresses per
   * client, not per message, and its handlers do not see whether a request was compressed).
   */
  private static final List<String> CASES =
      List.of(
          "empty_unary",
          "large_unary",
          "client_streaming",
          "server_streaming",
          "ping_pong",
          "empty_stream",
          "custom_metadata",
          "status_code_and_message",
          "special_status_message",
          "unimplemented_method",
          "unimplemented_service",
          "timeout_on_sleeping_server",
          "cancel_after_begin",
          "cancel_after_first_response");

  @Test
  void goClientPassesTheInteropCasesAgainstTernsServer(@TempDir Path certs) throws Exception {
    Path peer = ExternalTool.require(ExternalTool.H3_PEER);
    Path ca = Http3PeerRuns.writeLocalhostCertificate(certs);
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    Server server = InteropServer.start(0, true, true, certs, scheduler);
    ToolProcess client = null;
    try {
      client =
          ToolProcess.start(
              "tern-h3-peer-client",
              List.of(
                  peer.toString(),
                  "client",
                  "--addr=127.0.0.1:" + server.getPort(),
                  "--ca=" + ca,
                  "--server_host_override=localhost",
                  "--cases=" + String.join(",", CASES)));
      assertThat(client.awaitExit(Duration.ofSeconds(120))).as(client.output()).isTrue();
      client.stop(Duration.ofSeconds(5)); // reads its output to the end: it may lag the exit

      assertThat(client.output().lines())
          .as(client.output())
          .containsExactlyElementsOf(CASES.stream().map(c -> "PASS " + c).toList());
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

  @Test
  void ternClientPassesTheInteropCasesAgainstGoServer(@TempDir Path dir) throws Exception {
    Path peer = ExternalTool.require(ExternalTool.H3_PEER);
    Path cert = Http3PeerRuns.writeLocalhostCertificate(dir);
    ToolProcess server =
        ToolProcess.start(
            "tern-h3-peer-server",
            List.of(
                peer.toString(),
                "server",
                "--cert=" + cert,
                "--key=" + dir.resolve("server1.key")));
    try {
      Http3PeerRuns.assertTernClientPasses(
          server, Http3PeerRuns.awaitListeningPort(server), cert, CASES);
    } finally {
      server.stop(Duration.ofSeconds(5));
    }
  }
}
