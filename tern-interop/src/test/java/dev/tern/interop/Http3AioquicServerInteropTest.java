package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.ManagedChannel;
import dev.tern.TlsChannelCredentials;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.testtools.ExternalTool;
import dev.tern.testtools.TestPems;
import dev.tern.testtools.ToolProcess;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

  private static final Pattern LISTENING = Pattern.compile("LISTENING (\\d+)");

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
    TestPems pems = TestPems.generate("localhost", "dns:localhost,ip:127.0.0.1");
    Path cert = Files.writeString(dir.resolve("server.pem"), pems.certificatePem);
    Path key = Files.writeString(dir.resolve("server.key"), pems.keyPem);
    ToolProcess server =
        ToolProcess.start(
            "grpc-h3-server",
            List.of(
                python.toString(),
                SERVER.toString(),
                "--cert=" + cert,
                "--key=" + key,
                "--host=127.0.0.1"));
    ManagedChannel channel = null;
    try {
      assertThat(server.awaitOutput(l -> LISTENING.matcher(l).find(), Duration.ofSeconds(60)))
          .as(server.output())
          .isTrue();
      Matcher port = LISTENING.matcher(server.output());
      assertThat(port.find()).isTrue();
      TlsChannelCredentials trust =
          TlsChannelCredentials.newBuilder().trustManager(cert.toFile()).build();
      Supplier<ManagedChannel> channels =
          () ->
              NettyChannelBuilder.forAddress("127.0.0.1", Integer.parseInt(port.group(1)))
                  .tlsCredentials(trust)
                  .enableHttp3()
                  .build();
      channel = channels.get();
      ByteArrayOutputStream lines = new ByteArrayOutputStream();
      int failed =
          InteropClient.runCases(
              new InteropCases(channel, channels, SoakConfig.ofIterations(1)),
              CASES,
              new PrintStream(lines, true, StandardCharsets.UTF_8));

      String report = lines.toString(StandardCharsets.UTF_8);
      assertThat(failed).as(report + server.output()).isZero();
      assertThat(report.lines()).hasSize(CASES.size()).allMatch(l -> l.startsWith("PASS "));
    } finally {
      if (channel != null) {
        channel.shutdownNow();
        assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      }
      server.stop(Duration.ofSeconds(5));
    }
  }
}
