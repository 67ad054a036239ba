package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.DecompressorRegistry;
import dev.tern.ManagedChannel;
import dev.tern.netty.NettyChannelBuilder;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Tern's interop client, its channel carrying a retry or a hedging policy for {@code
 * grpc.testing.TestService} in its default service config, against grpc-java 1.79's interop server
 * ({@code TestServiceImpl} with its interceptors, as {@code TestServiceServer} runs it) over
 * plaintext HTTP/2 on loopback: every case passes, so calls that go through the retry machinery
 * (buffered requests, replayed attempts, commit on the response headers) still look like plain
 * calls to a peer and to the application.
 */
class RetryingClientToGrpcJavaServerTest {
  /** Every case but the three that grpc-java's own server cannot pass. */
  private static final List<String> CASES = GrpcJavaInteropServer.PASSABLE_CASES;

  /**
   * grpc-java's server logs a "Stream Error" with a stack trace whenever a client cancels a stream
   * it is still writing to, which is what happens to hedges that lose: kept here, not printed.
   */
  private static final Logger PEER_STREAM_ERRORS =
      Logger.getLogger("io.grpc.netty.shaded.io.grpc.netty.NettyServerHandler");

  private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
  private final Handler capturedLogs =
      new Handler() {
        @Override
        public void publish(LogRecord record) {}

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };
  private io.grpc.Server peer;

  @BeforeEach
  void start() throws Exception {
    PEER_STREAM_ERRORS.setUseParentHandlers(false);
    PEER_STREAM_ERRORS.addHandler(capturedLogs);
    peer = GrpcJavaInteropServer.start(executor);
  }

  @AfterEach
  void stop() throws InterruptedException {
    peer.shutdownNow();
    assertThat(peer.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    executor.shutdownNow();
    PEER_STREAM_ERRORS.removeHandler(capturedLogs);
    PEER_STREAM_ERRORS.setUseParentHandlers(true);
  }

  /**
   * A retry policy retrying UNAVAILABLE and UNKNOWN: status_code_and_message and
   * special_status_message (UNKNOWN) are sent three times, and the last answer reaches the case.
   */
  @Test
  void everyCasePassesWithARetryPolicy() {
    assertEveryCasePasses(
        "{\"methodConfig\": [{\"name\": [{\"service\": \"grpc.testing.TestService\"}],"
            + " \"retryPolicy\": {\"maxAttempts\": 3, \"initialBackoff\": \"0.01s\","
            + " \"maxBackoff\": \"0.05s\", \"backoffMultiplier\": 2,"
            + " \"retryableStatusCodes\": [\"UNAVAILABLE\", \"UNKNOWN\"]}}]}");
  }

  /**
   * A hedging policy with no delay: every call goes out as three attempts at once, the first with
   * response headers wins and the two others are cancelled.
   */
  @Test
  void everyCasePassesWithAHedgingPolicy() {
    assertEveryCasePasses(
        "{\"methodConfig\": [{\"name\": [{\"service\": \"grpc.testing.TestService\"}],"
            + " \"hedgingPolicy\": {\"maxAttempts\": 3, \"hedgingDelay\": \"0s\","
            + " \"nonFatalStatusCodes\": [\"UNAVAILABLE\"]}}]}");
  }

  private void assertEveryCasePasses(String serviceConfig) {
    Supplier<ManagedChannel> channels = channels(serviceConfig);
    ManagedChannel channel = channels.get();
    try {
      ByteArrayOutputStream lines = new ByteArrayOutputStream();
      int failed =
          InteropClient.runCases(
              new InteropCases(channel, channels, SoakConfig.ofIterations(2)),
              CASES,
              new PrintStream(lines, true, StandardCharsets.UTF_8));

      String report = lines.toString(StandardCharsets.UTF_8);
      assertThat(failed).as(report).isZero();
      assertThat(report.lines()).hasSize(CASES.size()).allMatch(l -> l.startsWith("PASS "));
    } finally {
      channel.shutdownNow();
      try {
        assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private Supplier<ManagedChannel> channels(String serviceConfig) {
    DecompressorRegistry probe =
        DecompressorRegistry.getDefaultInstance().with(new CompressionProbe(), true);
    return () ->
        NettyChannelBuilder.forAddress("127.0.0.1", peer.getPort())
            .usePlaintext()
            .decompressorRegistry(probe)
            .defaultServiceConfigJson(serviceConfig)
            .build();
  }
}
