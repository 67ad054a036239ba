package dev.tern.netty.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testtools.ExternalTool;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * grpcio (gRPC C-core's Python client, from the tools virtualenv) against a Tern server: what its
 * user sees for requests over the server's 4 MiB limit. C-core reports a RST_STREAM's error code
 * (CANCEL as CANCELLED) over trailers already received, so the status must survive the reset that
 * follows it.
 */
@Tag("external-check") // not in mvn verify; -Pexternal-checks and CI: README.md#development
class GrpcioClientToTernServerTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @Test
  void requestsOverTheServersLimitAreResourceExhaustedForGrpcio() throws Exception {
    Path python = ExternalTool.requirePython();
    Path script = Path.of("src/test/python/oversized_client.py").toAbsolutePath();
    Server server =
        cleanup.register(
            ServerBuilder.forPort(0).addService(EchoService.definition()).build().start());

    String output =
        run(
            List.of(
                python.toString(),
                script.toString(),
                "127.0.0.1:" + server.getPort(),
                "/" + EchoService.UNARY.getFullMethodName()));

    assertThat(output.lines())
        .as(output)
        .containsExactly(
            "oversized: RESOURCE_EXHAUSTED: gRPC message exceeds maximum size 4194304: 5242880",
            "gzip bomb: RESOURCE_EXHAUSTED: Decompressed gRPC message exceeds maximum size 4194304");
  }

  /** Runs {@code command} to its end and returns its output; stops it by its PID in any case. */
  private static String run(List<String> command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      process.getOutputStream().close();
      byte[] output = process.getInputStream().readAllBytes(); // ends when the process does
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("%s finishes", command).isTrue();
      String text = new String(output, StandardCharsets.UTF_8).trim();
      assertThat(process.exitValue()).as(text).isZero();
      return text;
    } finally {
      process.destroy();
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }
}
