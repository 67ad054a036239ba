package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.DecompressorRegistry;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.TlsChannelCredentials;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.testtools.TestPems;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tern's interop client against Tern's interop server, both over HTTP/3 (QUIC on loopback UDP, TLS
 * 1.3): every case {@link InteropSelfTest} runs over HTTP/2 must pass, cancellation
 * (cancel_after_begin, cancel_after_first_response) and deadlines (timeout_on_sleeping_server)
 * among them.
 */
class InteropHttp3SelfTest {
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  @TempDir Path certs;
  private Server server;
  private TlsChannelCredentials trust;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    TestPems pems = TestPems.generate("localhost", "dns:localhost,ip:127.0.0.1");
    Path cert = Files.writeString(certs.resolve("server1.pem"), pems.certificatePem);
    Files.writeString(certs.resolve("server1.key"), pems.keyPem);
    trust = TlsChannelCredentials.newBuilder().trustManager(cert.toFile()).build();
    server = InteropServer.start(0, true, true, certs, scheduler);
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
            .tlsCredentials(trust)
            .enableHttp3()
            .decompressorRegistry(probe)
            .build();
  }

  @Test
  void everyCasePassesOverHttp3() {
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
}
