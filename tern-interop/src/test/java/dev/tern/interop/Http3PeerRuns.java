package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.DecompressorRegistry;
import dev.tern.ManagedChannel;
import dev.tern.TlsChannelCredentials;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.testtools.TestPems;
import dev.tern.testtools.ToolProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the HTTP/3 interop tests against foreign peers share: a certificate for localhost, the port
 * a peer server prints, and Tern's HTTP/3 client running interop cases against such a server.
 * Stateless; safe from any thread.
 */
final class Http3PeerRuns {
  /** What the peer servers print once bound: {@code LISTENING <udp port>}. */
  private static final Pattern LISTENING = Pattern.compile("LISTENING (\\d+)");

  private Http3PeerRuns() {}

  /**
   * Writes a new self-signed certificate for localhost and 127.0.0.1 into {@code dir} as {@code
   * server1.pem} and {@code server1.key}, the names {@link InteropServer#start} reads; returns the
   * certificate's path (it is its own CA).
   */
  static Path writeLocalhostCertificate(Path dir) throws Exception {
    TestPems pems = TestPems.generate("localhost", "dns:localhost,ip:127.0.0.1");
    Files.writeString(dir.resolve("server1.key"), pems.keyPem);
    return Files.writeString(dir.resolve("server1.pem"), pems.certificatePem);
  }

  /** The UDP port {@code server} prints it listens on, waiting up to a minute for the line. */
  static int awaitListeningPort(ToolProcess server) throws Exception {
    assertThat(server.awaitOutput(l -> LISTENING.matcher(l).find(), Duration.ofSeconds(60)))
        .as(server.output())
        .isTrue();
    Matcher port = LISTENING.matcher(server.output());
    assertThat(port.find()).isTrue();
    return Integer.parseInt(port.group(1));
  }

  /**
   * Runs {@code cases} with Tern's client over HTTP/3 ({@code NettyChannelBuilder.enableHttp3()},
   * as {@code bin/interop-client --http3} uses it) against {@code server}, listening on 127.0.0.1
   * at {@code port} with a certificate {@code trusted} signs, and asserts that every case passed.
   */
  static void assertTernClientPasses(ToolProcess server, int port, Path trusted, List<String> cases)
      throws Exception {
    assertTernClientPasses(server::output, port, trusted, cases);
  }

  /**
   * As {@link #assertTernClientPasses(ToolProcess, int, Path, List)}, against any server; a failure
   * message ends with what {@code evidence} says (the server's output, or where its log is).
   */
  static void assertTernClientPasses(
      Supplier<String> evidence, int port, Path trusted, List<String> cases) throws Exception {
    Supplier<ManagedChannel> channels = () -> channel(port, trusted);
    ManagedChannel channel = channels.get();
    try {
      ByteArrayOutputStream lines = new ByteArrayOutputStream();
      int failed =
          InteropClient.runCases(
              new InteropCases(channel, channels, SoakConfig.ofIterations(1)),
              cases,
              new PrintStream(lines, true, StandardCharsets.UTF_8));

      String report = lines.toString(StandardCharsets.UTF_8);
      assertThat(failed).as(report + evidence.get()).isZero();
      assertThat(report.lines()).hasSize(cases.size()).allMatch(l -> l.startsWith("PASS "));
    } finally {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  /**
   * A channel over HTTP/3 ({@code NettyChannelBuilder.enableHttp3()}, as {@code bin/interop-client
   * --http3} builds it) to 127.0.0.1 at {@code port}, trusting the certificate {@code trusted}.
   */
  static ManagedChannel channel(int port, Path trusted) {
    TlsChannelCredentials trust;
    try {
      trust = TlsChannelCredentials.newBuilder().trustManager(trusted.toFile()).build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return NettyChannelBuilder.forAddress("127.0.0.1", port)
        .tlsCredentials(trust)
        // Tells the server-compressed cases which responses arrived compressed.
        .decompressorRegistry(
            DecompressorRegistry.getDefaultInstance().with(new CompressionProbe(), true))
        .enableHttp3()
        .build();
  }
}
