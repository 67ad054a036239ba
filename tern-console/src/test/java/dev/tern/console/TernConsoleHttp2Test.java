package dev.tern.console;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.services.reflection.ProtoReflectionService;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testtools.ExternalTool;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The console over HTTP/2 (cleartext, prior knowledge), as curl sees it. */
class TernConsoleHttp2Test {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  /** curl's "-w" report: HTTP version, status, then the response headers curl was asked for. */
  private static String curl(Path curl, String url, String... extra) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(curl.toString());
    command.addAll(
        List.of(
            "-sS",
            "--http2-prior-knowledge",
            "-o",
            "/dev/null",
            "-w",
            "%{http_version} %{http_code} %header{content-security-policy}"));
    command.addAll(List.of(extra));
    command.add(url);
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("curl finished").isTrue();
      return new String(process.getInputStream().readAllBytes(), UTF_8);
    } finally {
      process.destroyForcibly();
    }
  }

  @Test
  void thePageAndTheTokenCheckOverHttp2() throws Exception {
    Path curl = ExternalTool.require(ExternalTool.CURL);
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .addService(ProtoReflectionService.v1());
    TernConsole.builder().build().addTo(builder);
    Server server = cleanup.register(builder.build().start());
    String base = "http://127.0.0.1:" + server.getPort() + "/_tern/console/";

    assertThat(curl(curl, base)).startsWith("2 200 default-src 'self'; script-src 'self';");
    assertThat(curl(curl, base + "v1/pb.js")).startsWith("2 200 default-src 'self'");
    assertThat(curl(curl, base + "v1/nothing.js")).startsWith("2 404 default-src 'self'");
    assertThat(curl(curl, base + "api/examples", "-X", "POST", "-d", "{}"))
        .startsWith("2 403 default-src 'self'");
  }
}
