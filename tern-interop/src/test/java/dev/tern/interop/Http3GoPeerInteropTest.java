package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.ConnectivityState;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.interop.testing.ResponseParameters;
import dev.tern.interop.testing.StreamingOutputCallRequest;
import dev.tern.interop.testing.StreamingOutputCallResponse;
import dev.tern.interop.testing.TestServiceTern;
import dev.tern.stub.StreamObserver;
import dev.tern.testtools.ExternalTool;
import dev.tern.testtools.ToolProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
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
  /** The cases both sides of the peer express. */
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
          "cancel_after_first_response",
          "very_large_request");

  /**
   * The compressed cases the peer's client expresses: not client_compressed_streaming, which
   * compresses one message of a call and not the next (connect-go compresses all of a client's
   * requests or none).
   */
  private static final List<String> GO_CLIENT_COMPRESSION =
      List.of("client_compressed_unary", "server_compressed_unary", "server_compressed_streaming");

  /**
   * The compressed cases the peer's server expresses: not server_compressed_streaming, which asks
   * for one response compressed and the next not (connect-go's handlers compress all or none).
   */
  private static final List<String> GO_SERVER_COMPRESSION =
      List.of("client_compressed_unary", "client_compressed_streaming", "server_compressed_unary");

  @Test
  void goClientPassesTheInteropCasesAgainstTernsServer(@TempDir Path certs) throws Exception {
    Path peer = ExternalTool.require(ExternalTool.H3_PEER);
    List<String> cases = concat(CASES, GO_CLIENT_COMPRESSION);
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
                  "--cases=" + String.join(",", cases)));
      assertThat(client.awaitExit(Duration.ofSeconds(120))).as(client.output()).isTrue();
      client.stop(Duration.ofSeconds(5)); // reads its output to the end: it may lag the exit

      assertThat(client.output().lines())
          .as(client.output())
          .containsExactlyElementsOf(cases.stream().map(c -> "PASS " + c).toList());
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
    Path cert = Http3PeerRuns.writeLocalhostCertificate(dir);
    ToolProcess server = startGoServer(dir);
    try {
      Http3PeerRuns.assertTernClientPasses(
          server,
          Http3PeerRuns.awaitListeningPort(server),
          cert,
          concat(CASES, GO_SERVER_COMPRESSION));
    } finally {
      server.stop(Duration.ofSeconds(5));
    }
  }

  /**
   * quic-go's graceful shutdown: GOAWAY, then it waits for the calls under way and for the client
   * to close the connection. Tern's client takes the connection out of service for new calls,
   * finishes the call it has on it, then closes it, so the server finishes shutting down long
   * before its 30-second grace.
   */
  @Test
  void ternClientFinishesItsCallAndLetsGoServerShutDown(@TempDir Path dir) throws Exception {
    Path cert = Http3PeerRuns.writeLocalhostCertificate(dir);
    ToolProcess server = startGoServer(dir);
    ManagedChannel channel = null;
    try {
      channel = Http3PeerRuns.channel(Http3PeerRuns.awaitListeningPort(server), cert);
      BlockingQueue<Object> events = new LinkedBlockingQueue<>();
      StreamObserver<StreamingOutputCallRequest> requests =
          TestServiceTern.newStub(channel)
              .withDeadlineAfter(60, TimeUnit.SECONDS)
              .fullDuplexCall(InteropCases.queueing(events));
      StreamingOutputCallRequest request =
          StreamingOutputCallRequest.newBuilder()
              .addResponseParameters(ResponseParameters.newBuilder().setSize(10))
              .build();
      requests.onNext(request);
      assertThat(events.poll(30, TimeUnit.SECONDS)).isInstanceOf(StreamingOutputCallResponse.class);
      assertThat(channel.getState(false)).isEqualTo(ConnectivityState.READY);
      CountDownLatch leftReady = new CountDownLatch(1);
      channel.notifyWhenStateChanged(ConnectivityState.READY, leftReady::countDown);

      ProcessHandle.of(server.pid()).orElseThrow().destroy(); // SIGTERM: GOAWAY, then draining
      assertThat(leftReady.await(30, TimeUnit.SECONDS)).as(server.output()).isTrue();
      requests.onNext(request);
      assertThat(events.poll(30, TimeUnit.SECONDS))
          .as(server.output())
          .isInstanceOf(StreamingOutputCallResponse.class);
      requests.onCompleted();
      assertThat(events.poll(30, TimeUnit.SECONDS)).as(server.output()).isEqualTo(Status.OK);

      assertThat(server.awaitOutput(o -> o.contains("SHUT DOWN"), Duration.ofSeconds(20)))
          .as(server.output())
          .isTrue();
    } finally {
      if (channel != null) {
        channel.shutdownNow();
        assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      }
      server.stop(Duration.ofSeconds(5));
    }
  }

  /** Starts the peer's server with the certificate and key in {@code dir}. */
  private static ToolProcess startGoServer(Path dir) throws Exception {
    Path peer = ExternalTool.require(ExternalTool.H3_PEER);
    return ToolProcess.start(
        "tern-h3-peer-server",
        List.of(
            peer.toString(),
            "server",
            "--cert=" + dir.resolve("server1.pem"),
            "--key=" + dir.resolve("server1.key")));
  }

  private static List<String> concat(List<String> first, List<String> second) {
    return Stream.concat(first.stream(), second.stream()).toList();
  }
}
