package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Grpc;
import dev.tern.Server;
import dev.tern.TlsServerCredentials;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.testing.EchoService;
import dev.tern.testing.LogCapture;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testtools.ExternalTool;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS 1.2 and 1.3 only, ALPN {@code h2}: the real {@code openssl s_client} connects with TLS 1.3
 * and 1.2 and is refused with TLS 1.1 (its own minimum lowered, so that it is the server that
 * refuses).
 */
class TlsProtocolVersionTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();
  @RegisterExtension final LeakWatch leaks = new LeakWatch();

  static TestCertificates certificates;
  @TempDir static Path dir;
  static File chain;
  static File key;
  int port;

  @BeforeAll
  static void generate() throws Exception {
    certificates = TestCertificates.generate("tern-server");
    chain =
        PemWriter.write(dir, "server.pem", PemWriter.certificates(certificates.certificate))
            .toFile();
    key = PemWriter.write(dir, "server.key", PemWriter.pkcs8(certificates.key)).toFile();
  }

  @BeforeEach
  void startServer() throws Exception {
    Server server =
        cleanup.register(
            Grpc.newServerBuilderForPort(0, TlsServerCredentials.create(chain, key))
                .addService(new EchoService())
                .build()
                .start());
    port = server.getPort();
  }

  /** Runs s_client with {@code options}; returns its exit code and output. */
  private Result sClient(String... options) throws Exception {
    Path openssl = ExternalTool.require("openssl");
    List<String> command = new ArrayList<>(List.of(openssl.toString(), "s_client"));
    command.addAll(
        List.of("-connect", "127.0.0.1:" + port, "-servername", "localhost", "-alpn", "h2"));
    command.addAll(List.of(options));
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .start();
    try {
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("s_client exits").isTrue();
      return new Result(process.exitValue(), output);
    } finally {
      process.destroy();
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }

  private record Result(int exitCode, String output) {}

  @Test
  void tls13AndTls12AreServedWithH2() throws Exception {
    Result tls13 = sClient("-tls1_3");
    assertThat(tls13.exitCode()).as(tls13.output()).isZero();
    assertThat(tls13.output()).contains("TLSv1.3").contains("ALPN protocol: h2");

    Result tls12 = sClient("-tls1_2");
    assertThat(tls12.exitCode()).as(tls12.output()).isZero();
    assertThat(tls12.output()).contains("Protocol  : TLSv1.2").contains("ALPN protocol: h2");
  }

  @Test
  void tls11IsRefused() throws Exception {
    try (LogCapture tail = new LogCapture(NettyTlsChannelServerTest.PIPELINE_TAIL, null);
        LogCapture connections =
            new LogCapture(NettyTlsChannelServerTest.CONNECTIONS, Level.FINE)) {
      Result tls11 = sClient("-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0");
      assertThat(tls11.exitCode()).as(tls11.output()).isNotZero();
      assertThat(tls11.output()).containsIgnoringCase("alert protocol version");
      connections.awaitRecord(
          r -> NettyTlsChannelServerTest.format(r).contains("TLS handshake failed"),
          Duration.ofSeconds(10));
      assertThat(connections.records())
          .allSatisfy(
              r -> {
                assertThat(r.getLevel()).isEqualTo(Level.FINE);
                assertThat(r.getThrown()).isNull();
              });
      assertThat(tail.records()).isEmpty();
    }
  }
}
