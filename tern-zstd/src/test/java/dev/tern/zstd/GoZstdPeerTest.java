package dev.tern.zstd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientInterceptors;
import dev.tern.DecompressorRegistry;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Metadata;
import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.MetadataUtils;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testtools.ExternalTool;
import dev.tern.testtools.ToolProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * zstd against a peer nobody here wrote the codec of: grpc-go with klauspost/compress's zstd
 * registered as its {@code zstd} encoding ({@value ExternalTool#ZSTD_PEER}, built by {@code
 * tools/install-zstd-tools.sh}), both ways. Each side reports what it received: the Go peer the
 * {@code grpc-encoding} of the request (a response header) and of the response (its output); Tern
 * counts the messages its zstd decompressor opened.
 */
@Tag("external-check") // not in mvn verify; -Pexternal-checks and CI: README.md#development
class GoZstdPeerTest {
  private static final int SIZE = 256 * 1024;
  private static final Metadata.Key<String> RECEIVED =
      Metadata.Key.of("peer-received-encoding", Metadata.ASCII_STRING_MARSHALLER);

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @Test
  void ternClientToGoServerSpeaksZstdBothWays() throws IOException {
    Path peer = ExternalTool.require(ExternalTool.ZSTD_PEER);
    ToolProcess server = ToolProcess.start("zstd-peer", List.of(peer.toString(), "server"));
    try {
      Pattern listening = Pattern.compile("listening on 127\\.0\\.0\\.1:(\\d+)");
      assertThat(server.awaitOutput(out -> listening.matcher(out).find(), Duration.ofSeconds(30)))
          .as(server.output())
          .isTrue();
      Matcher port = listening.matcher(server.output());
      assertThat(port.find()).isTrue();
      CountingZstd responses = new CountingZstd();
      ManagedChannel channel =
          cleanup.register(
              ManagedChannelBuilder.forAddress("127.0.0.1", Integer.parseInt(port.group(1)))
                  .usePlaintext()
                  .decompressorRegistry(
                      DecompressorRegistry.getDefaultInstance().with(responses, true))
                  .build());
      AtomicReference<Metadata> headers = new AtomicReference<>();
      String request = new String(ZstdCodecTest.text(SIZE), StandardCharsets.US_ASCII);

      String reply =
          ClientCalls.blockingUnaryCall(
              ClientInterceptors.intercept(
                  channel,
                  MetadataUtils.newCaptureMetadataInterceptor(headers, new AtomicReference<>())),
              EchoService.UNARY,
              CallOptions.DEFAULT.withCompression("zstd"),
              request);

      assertThat(reply).isEqualTo(request);
      assertThat(headers.get().get(RECEIVED)).as("what grpc-go received").isEqualTo("zstd");
      assertThat(responses.messages).as("responses Tern decompressed with zstd").hasValue(1);
    } finally {
      server.stop(Duration.ofSeconds(5));
    }
  }

  @Test
  void goClientToTernServerSpeaksZstdBothWays() throws Exception {
    Path peer = ExternalTool.require(ExternalTool.ZSTD_PEER);
    CountingZstd requests = new CountingZstd();
    Server server =
        cleanup.register(
            ServerBuilder.forPort(0)
                .decompressorRegistry(
                    DecompressorRegistry.getDefaultInstance().with(requests, true))
                .intercept(new CompressResponses(ZstdCodec.ENCODING))
                .addService(EchoService.definition())
                .build()
                .start());

    String output =
        run(
            List.of(
                peer.toString(),
                "client",
                "127.0.0.1:" + server.getPort(),
                Integer.toString(SIZE)));

    assertThat(output.lines()).as(output).containsExactly("response-encoding: zstd", "echo: ok");
    assertThat(requests.messages).as("requests Tern decompressed with zstd").hasValue(1);
  }

  /** Runs {@code command} to its end and returns its output; stops it by its PID in any case. */
  private static String run(List<String> command) throws IOException {
    ToolProcess client = ToolProcess.start("zstd-peer-client", command);
    try {
      assertThat(client.awaitExit(Duration.ofSeconds(60))).as("%s finishes", command).isTrue();
    } finally {
      client.stop(Duration.ofSeconds(5)); // also waits until its output is read to the end
    }
    String output = client.output().trim();
    assertThat(client.exitValue()).as(output).isZero();
    return output;
  }
}
