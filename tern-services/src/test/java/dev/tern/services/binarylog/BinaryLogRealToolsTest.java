package dev.tern.services.binarylog;

import static dev.tern.services.binarylog.TestCalls.byCall;
import static dev.tern.services.binarylog.TestCalls.events;
import static dev.tern.services.binarylog.TestCalls.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.BinaryLog;
import dev.tern.Server;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.services.binarylog.v1.GrpcLogEntry;
import dev.tern.services.binarylog.v1.MetadataEntry;
import dev.tern.services.health.v1.HealthCheckRequest;
import dev.tern.services.health.v1.HealthCheckResponse;
import dev.tern.services.health.v1.HealthTern;
import dev.tern.stub.StreamObserver;
import dev.tern.testtools.ExternalTool;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Calls from the real tools (grpc-health-probe, grpcurl) to a Tern server with a binary log: the
 * log holds their calls as they sent them, without the headers gRPC itself adds.
 */
class BinaryLogRealToolsTest {
  @TempDir Path dir;

  private Server server;
  private BinaryLog log;

  /** Answers SERVING for every service. */
  private static final class AlwaysServing extends HealthTern.HealthImplBase {
    @Override
    public void check(
        HealthCheckRequest request, StreamObserver<HealthCheckResponse> responseObserver) {
      responseObserver.onNext(
          HealthCheckResponse.newBuilder()
              .setStatus(HealthCheckResponse.ServingStatus.SERVING)
              .build());
      responseObserver.onCompleted();
    }
  }

  @AfterEach
  void tearDown() throws Exception {
    stop();
  }

  private void stop() throws Exception {
    if (server != null) {
      server.shutdownNow();
      assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
      server = null;
    }
    if (log != null) {
      log.close();
      log = null;
    }
  }

  /** Runs {@code command} to completion (10 s at most); returns its exit code and output. */
  private static String run(List<String> command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      boolean exited = process.waitFor(10, TimeUnit.SECONDS);
      assertThat(exited).as("%s finished within 10 s", command.get(0)).isTrue();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return "exit " + process.exitValue() + "\n" + output;
    } finally {
      process.destroyForcibly();
    }
  }

  @Test
  void callsFromGrpcHealthProbeAndGrpcurlAreLogged() throws Exception {
    Path probe = ExternalTool.require("grpc-health-probe");
    Path grpcurl = ExternalTool.require("grpcurl");
    log = BinaryLogs.createBinaryLog(new FileBinaryLogSink(dir.resolve("server.log")), "*");
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(new AlwaysServing())
            .setBinaryLog(log)
            .build()
            .start();
    String address = "127.0.0.1:" + server.getPort();

    String probeOutput = run(List.of(probe.toString(), "-addr=" + address));
    assertThat(probeOutput).startsWith("exit 0\n").contains("status: SERVING");
    List<String> grpcurlCommand = new ArrayList<>();
    grpcurlCommand.addAll(
        List.of(
            grpcurl.toString(),
            "-plaintext",
            "-import-path",
            Path.of("src/main/proto").toAbsolutePath().toString(),
            "-proto",
            "grpc/health/v1/health.proto",
            "-H",
            "tool-header: from-grpcurl",
            "-d",
            "{\"service\": \"svc\"}",
            address,
            "grpc.health.v1.Health/Check"));
    String grpcurlOutput = run(grpcurlCommand);
    assertThat(grpcurlOutput).startsWith("exit 0\n").contains("\"status\": \"SERVING\"");
    stop();

    List<List<GrpcLogEntry>> calls = byCall(read(dir.resolve("server.log")));
    assertThat(calls).hasSize(2);
    List<String> unary =
        List.of(
            "CLIENT_HEADER 1",
            "CLIENT_MESSAGE 2",
            "CLIENT_HALF_CLOSE 3",
            "SERVER_HEADER 4",
            "SERVER_MESSAGE 5",
            "SERVER_TRAILER 6");
    for (List<GrpcLogEntry> call : calls) {
      assertThat(events(call)).isEqualTo(unary);
      GrpcLogEntry header = call.get(0);
      assertThat(header.getClientHeader().getMethodName())
          .isEqualTo("/grpc.health.v1.Health/Check");
      assertThat(header.getClientHeader().getAuthority()).isEqualTo(address);
      assertThat(header.getClientHeader().getMetadata().getEntryList())
          .extracting(MetadataEntry::getKey)
          .doesNotContain("user-agent", "te", "content-type", "grpc-accept-encoding");
      assertThat(header.getPeer().getAddress()).isEqualTo("127.0.0.1");
      assertThat(HealthCheckResponse.parseFrom(call.get(4).getMessage().getData()).getStatus())
          .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
      assertThat(call.get(5).getTrailer().getStatusCode()).isZero();
    }
    // grpc-health-probe asks about the server as a whole (the empty service name).
    assertThat(
            HealthCheckRequest.parseFrom(calls.get(0).get(1).getMessage().getData()).getService())
        .isEmpty();
    GrpcLogEntry grpcurlHeader = calls.get(1).get(0);
    assertThat(grpcurlHeader.getClientHeader().getMetadata().getEntryList())
        .extracting(e -> e.getKey() + ": " + e.getValue().toStringUtf8())
        .contains("tool-header: from-grpcurl");
    assertThat(
            HealthCheckRequest.parseFrom(calls.get(1).get(1).getMessage().getData()).getService())
        .isEqualTo("svc");
  }
}
