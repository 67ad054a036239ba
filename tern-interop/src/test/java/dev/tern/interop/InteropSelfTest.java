package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.DecompressorRegistry;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.netty.NettyChannelBuilder;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Tern's interop client against Tern's interop server over plaintext HTTP/2 on loopback: every case
 * must pass. (The foreign peers are run by {@code tern-interop/peers/run-matrix.sh}.)
 */
class InteropSelfTest {
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private Server server;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    server = InteropServer.start(0, false, Path.of("unused"), scheduler);
    channel = newChannel().get();
  }

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow();
    server.shutdownNow();
    assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    scheduler.shutdownNow();
  }

  private Supplier<ManagedChannel> newChannel() {
    DecompressorRegistry probe =
        DecompressorRegistry.getDefaultInstance().with(new CompressionProbe(), true);
    return () ->
        NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
            .usePlaintext()
            .decompressorRegistry(probe)
            .build();
  }

  @Test
  void everyCasePassesAgainstTernsOwnServer() {
    ByteArrayOutputStream lines = new ByteArrayOutputStream();
    int failed =
        InteropClient.runCases(
            new InteropCases(channel, newChannel(), SoakConfig.ofIterations(2)),
            InteropCases.ALL,
            new PrintStream(lines, true, StandardCharsets.UTF_8));

    String report = lines.toString(StandardCharsets.UTF_8);
    assertThat(failed).as(report).isZero();
    assertThat(report.lines())
        .hasSize(InteropCases.ALL.size())
        .allMatch(l -> l.startsWith("PASS "));
  }

  @Test
  void aServerThatAcceptsEverythingFailsTheCompressionProbe() throws Exception {
    // The probe must be able to fail: against a server without the expect_compressed check,
    // client_compressed_unary reports the uncompressed message that was accepted.
    Server lax =
        dev.tern.netty.NettyServerBuilder.forPort(0)
            .addService(new TestServiceImpl(scheduler).bindService())
            .build()
            .start();
    ManagedChannel toLax =
        NettyChannelBuilder.forAddress("127.0.0.1", lax.getPort()).usePlaintext().build();
    try {
      ByteArrayOutputStream lines = new ByteArrayOutputStream();
      int failed =
          InteropClient.runCases(
              new InteropCases(toLax, newChannel(), SoakConfig.ofIterations(1)),
              java.util.List.of("client_compressed_unary"),
              new PrintStream(lines, true, StandardCharsets.UTF_8));

      assertThat(failed).isEqualTo(1);
      assertThat(lines.toString(StandardCharsets.UTF_8))
          .startsWith("FAIL client_compressed_unary")
          .contains("expected the call to fail");
    } finally {
      toLax.shutdownNow();
      lax.shutdownNow();
      assertThat(toLax.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      assertThat(lax.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
