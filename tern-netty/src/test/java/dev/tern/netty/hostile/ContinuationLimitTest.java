package dev.tern.netty.hostile;

import static dev.tern.netty.hostile.RawHttp2Connection.CONTINUATION;
import static dev.tern.netty.hostile.RawHttp2Connection.ENHANCE_YOUR_CALM;
import static dev.tern.netty.hostile.RawHttp2Connection.FLAG_END_HEADERS;
import static dev.tern.netty.hostile.RawHttp2Connection.GOAWAY;
import static dev.tern.netty.hostile.RawHttp2Connection.HEADERS;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcMessage;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcRequestHeaders;
import static dev.tern.netty.hostile.RawHttp2Connection.headerBlock;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.netty.hostile.RawHttp2Connection.Frame;
import dev.tern.netty.hostile.RawHttp2Connection.StreamEnd;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code NettyServerBuilder.maxContinuationFrames}: a header block in more small frames than the
 * server allows closes the connection with GOAWAY(ENHANCE_YOUR_CALM), one within the bound is
 * served, and other connections are not affected.
 */
@Tag("attack")
class ContinuationLimitTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static final int MAX_FRAMES = 4;
  private static final String ECHO_PATH = "/tern.testing.Echo/Unary";

  private Server server;

  @BeforeEach
  void startServer() throws IOException {
    server =
        cleanup.register(
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .maxContinuationFrames(MAX_FRAMES)
                .addService(EchoService.definition())
                .build()
                .start());
  }

  @Test
  void headerBlockWithinTheBoundIsServed() throws IOException {
    try (RawHttp2Connection raw = RawHttp2Connection.open(server.getPort())) {
      writeInFrames(raw, 1, MAX_FRAMES);
      raw.writeData(1, true, grpcMessage(0, "few frames".getBytes(UTF_8)));
      StreamEnd end = raw.awaitStreamEnd(1);

      assertThat(end.headers()).as("frames %s", end.frames()).containsEntry("grpc-status", "0");
    }
    assertServing();
  }

  @Test
  void headerBlockInMoreFramesThanTheBoundClosesTheConnection() throws IOException {
    try (RawHttp2Connection raw = RawHttp2Connection.open(server.getPort())) {
      writeInFrames(raw, 1, 4 * MAX_FRAMES);
      List<Frame> frames = raw.awaitClose();
      Frame goAway = frames.stream().filter(f -> f.type() == GOAWAY).findFirst().orElse(null);

      assertThat(goAway).as("GOAWAY before closing; frames %s", frames).isNotNull();
      assertThat(goAway.errorCode()).as("GOAWAY %s", goAway).isEqualTo(ENHANCE_YOUR_CALM);
    }
    assertServing();
  }

  /** Writes a request's header block for {@code streamId} as {@code count} frames of equal size. */
  private static void writeInFrames(RawHttp2Connection raw, int streamId, int count)
      throws IOException {
    List<String[]> headers = grpcRequestHeaders(ECHO_PATH);
    headers.add(new String[] {"x-padding", "p".repeat(40 * count)});
    byte[] block = headerBlock(headers);
    int size = (block.length + count - 1) / count;
    for (int i = 0; i < count; i++) {
      int start = i * size;
      int end = Math.min(block.length, start + size);
      raw.writeFrame(
          i == 0 ? HEADERS : CONTINUATION,
          i == count - 1 ? FLAG_END_HEADERS : 0,
          streamId,
          Arrays.copyOfRange(block, start, end));
    }
  }

  private void assertServing() {
    ManagedChannel channel =
        cleanup.register(
            NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build());
    String reply =
        ClientCalls.blockingUnaryCall(
            channel,
            EchoService.UNARY,
            CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
            "fresh call");
    assertThat(reply).isEqualTo("fresh call");
  }
}
