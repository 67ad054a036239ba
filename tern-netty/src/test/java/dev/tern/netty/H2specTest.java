package dev.tern.netty;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testtools.ExternalTool;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs h2spec (github.com/summerwind/h2spec, installed by {@code tools/install-grpc-tools.sh}), the
 * HTTP/2 conformance suite, against a Tern Netty server, over h2c with prior knowledge and over
 * TLS: every test must pass, except those listed with their RFC reason in {@code
 * h2spec-exceptions.txt}, and every listed test must still fail, so the list stays true.
 */
@Tag("external-check") // not in mvn verify; -Pexternal-checks and CI: README.md#development
class H2specTest {
  /** The repository's list of h2spec tests a gRPC server cannot pass, one per line. */
  private static final String EXCEPTIONS = "/h2spec-exceptions.txt";

  /** h2spec's own bound on each wait for the server (its default is 2 seconds). */
  private static final int H2SPEC_TIMEOUT_SECONDS = 5;

  /** How long the whole suite may take: about 150 tests, most of them milliseconds. */
  private static final long RUN_TIMEOUT_SECONDS = 300;

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @TempDir Path tempDir;

  @Test
  void plaintextServerPassesH2specButForTheListedExceptions() throws Exception {
    Path h2spec = ExternalTool.require(ExternalTool.H2SPEC);
    Server server = start(loopbackServer());
    assertConformant(run(h2spec, server.getPort(), false, tempDir));
  }

  @Test
  void tlsServerPassesH2specButForTheListedExceptions() throws Exception {
    Path h2spec = ExternalTool.require(ExternalTool.H2SPEC);
    TestCertificates certificates = TestCertificates.generate("h2spec-server");
    Server server =
        start(
            loopbackServer()
                .sslContext(
                    NettySslContexts.forServer(certificates.key, certificates.certificate)
                        .build()));
    assertConformant(run(h2spec, server.getPort(), true, tempDir));
  }

  private Server start(NettyServerBuilder builder) throws IOException {
    return cleanup.register(builder.addService(EchoService.definition()).build().start());
  }

  private static NettyServerBuilder loopbackServer() {
    return NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0));
  }

  /** Every test passed or was skipped, except the listed ones, which all failed. */
  private static void assertConformant(Map<String, Outcome> results) throws IOException {
    Map<String, String> exceptions = exceptions();
    assertThat(results).as("h2spec's results").isNotEmpty();
    List<String> unexpectedFailures = new ArrayList<>();
    List<String> nowPassing = new ArrayList<>();
    results.forEach(
        (id, outcome) -> {
          if (outcome.failed() && !exceptions.containsKey(id)) {
            unexpectedFailures.add(id + " " + outcome);
          } else if (!outcome.failed() && exceptions.containsKey(id)) {
            nowPassing.add(id + " (listed: " + exceptions.get(id) + ")");
          }
        });
    TreeSet<String> unknown = new TreeSet<>(exceptions.keySet());
    unknown.removeAll(results.keySet());
    assertThat(unexpectedFailures).as("h2spec tests that failed").isEmpty();
    assertThat(nowPassing)
        .as("listed h2spec exceptions that now pass: remove them from " + EXCEPTIONS)
        .isEmpty();
    assertThat(unknown).as("listed h2spec exceptions that h2spec did not run").isEmpty();
  }

  /** The listed exceptions: test id to the RFC section and reason. */
  private static Map<String, String> exceptions() throws IOException {
    return exceptions(EXCEPTIONS);
  }

  /** A list of exceptions on the test class path: test id to the reason. */
  static Map<String, String> exceptions(String resource) throws IOException {
    Map<String, String> exceptions = new LinkedHashMap<>();
    try (InputStream in = H2specTest.class.getResourceAsStream(resource)) {
      assertThat(in).as(resource + " on the test class path").isNotNull();
      for (String line : new String(in.readAllBytes(), UTF_8).split("\n")) {
        String trimmed = line.strip();
        if (trimmed.isEmpty() || trimmed.startsWith("#")) {
          continue;
        }
        String[] parts = trimmed.split("\\s+", 2);
        assertThat(parts).as("line %s: an id, then the RFC section and reason", line).hasSize(2);
        exceptions.put(parts[0], parts[1]);
      }
    }
    return exceptions;
  }

  /** Runs h2spec against {@code port} and reads its JUnit report: test id to outcome. */
  static Map<String, Outcome> run(Path h2spec, int port, boolean tls, Path tempDir)
      throws IOException, InterruptedException {
    Path report = tempDir.resolve(tls ? "h2spec-tls.xml" : "h2spec.xml");
    Path log = tempDir.resolve(tls ? "h2spec-tls.log" : "h2spec.log");
    List<String> command = new ArrayList<>();
    command.addAll(
        List.of(
            h2spec.toString(),
            "-h",
            "127.0.0.1",
            "-p",
            Integer.toString(port),
            "-o",
            Integer.toString(H2SPEC_TIMEOUT_SECONDS),
            "-j",
            report.toString()));
    if (tls) {
      command.addAll(List.of("-t", "-k"));
    }
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .start();
    try {
      assertThat(process.waitFor(RUN_TIMEOUT_SECONDS, TimeUnit.SECONDS))
          .as("h2spec finished within %d s; output so far:%n%s", RUN_TIMEOUT_SECONDS, tail(log))
          .isTrue();
    } finally {
      process.destroy();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    }
    String output = Files.readString(log, UTF_8);
    assertThat(report).as("h2spec's JUnit report; its output:%n%s", output).exists();
    Map<String, Outcome> results = parse(report);
    // h2spec's summary line ("145 tests, 140 passed, 1 skipped, 4 failed") for the test's output.
    List<String> skipped =
        results.entrySet().stream()
            .filter(e -> e.getValue().skipped())
            .map(e -> e.getKey())
            .toList();
    System.out.println(
        "h2spec "
            + (tls ? "over TLS" : "over h2c")
            + ": "
            + summaryLine(output)
            + (skipped.isEmpty() ? "" : "; skipped " + skipped));
    return results;
  }

  private static String summaryLine(String output) {
    String[] lines = output.strip().split("\n");
    return lines.length == 0 ? "" : lines[lines.length - 1].strip();
  }

  private static String tail(Path log) throws IOException {
    if (!Files.exists(log)) {
      return "";
    }
    String text = Files.readString(log, UTF_8);
    return text.length() > 4000 ? text.substring(text.length() - 4000) : text;
  }

  /** One {@code <testcase>} of the report: its group, description and body. */
  private static final Pattern TEST_CASE =
      Pattern.compile(
          "<testcase\\s+package=\"([^\"]*)\"\\s+classname=\"([^\"]*)\"[^>]*?(?:/>|>(.*?)</testcase>)",
          Pattern.DOTALL);

  /**
   * Reads h2spec's JUnit report (Go's encoding/xml output, one {@code <testcase>} per test in run
   * order, a {@code <failure>} or {@code <error>} in a failed one, {@code <skipped>} in a skipped
   * one) into test ids as h2spec prints them: the group ({@code http2/5.1}, {@code generic/3.2},
   * {@code hpack/2.3.3}), a slash and the test's 1-based position in the group.
   */
  static Map<String, Outcome> parse(Path report) throws IOException {
    Map<String, Outcome> results = new TreeMap<>();
    Map<String, Integer> positions = new HashMap<>();
    Matcher matcher = TEST_CASE.matcher(Files.readString(report, UTF_8));
    while (matcher.find()) {
      String group = matcher.group(1);
      String body = matcher.group(3) == null ? "" : matcher.group(3);
      int position = positions.merge(group, 1, Integer::sum);
      boolean failed = body.contains("<failure") || body.contains("<error");
      results.put(
          group + "/" + position,
          new Outcome(
              unescape(matcher.group(2)),
              failed ? unescape(body.replaceAll("</?(failure|error)>", "")) : "",
              body.contains("<skipped")));
    }
    return results;
  }

  private static String unescape(String xml) {
    return xml.replace("&#xA;", "\n")
        .replace("&#34;", "\"")
        .replace("&#39;", "'")
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
  }

  /** One h2spec test's result: its description, what failed (empty if it passed), skipped. */
  record Outcome(String description, String failure, boolean skipped) {
    boolean failed() {
      return !failure.isEmpty();
    }

    @Override
    public String toString() {
      return description + (failed() ? ": " + failure.strip().replace('\n', ' ') : "");
    }
  }
}
