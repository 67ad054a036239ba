package dev.tern.zstd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.CallOptions;
import dev.tern.Codec;
import dev.tern.Compressor;
import dev.tern.CompressorRegistry;
import dev.tern.DecompressorRegistry;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * zstd between a Tern client and a Tern server over HTTP/2 on loopback: chosen per call, answered
 * in kind, and, from a hostile peer (a client or server whose "zstd" compressor sends prepared
 * bytes), bombs, corrupt frames and huge windows ending the call with a status, never the server.
 */
class ZstdCallsTest {
  private static final int LIMIT = 4 * 1024 * 1024;
  private static final String MESSAGE =
      new String(ZstdCodecTest.text(256 * 1024), StandardCharsets.US_ASCII);

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @Test
  void aCallThatAsksForZstdIsCompressedBothWaysWithIt() throws IOException {
    CountingZstd serverSide = new CountingZstd();
    CountingZstd clientSide = new CountingZstd();
    Server server =
        start(
            ServerBuilder.forPort(0)
                .decompressorRegistry(
                    DecompressorRegistry.getDefaultInstance().with(serverSide, true))
                .intercept(new CompressResponses(ZstdCodec.ENCODING)));
    ManagedChannel channel =
        channel(
            server,
            ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort())
                .decompressorRegistry(
                    DecompressorRegistry.getDefaultInstance().with(clientSide, true)));

    String reply =
        ClientCalls.blockingUnaryCall(
            channel, EchoService.UNARY, CallOptions.DEFAULT.withCompression("zstd"), MESSAGE);

    assertThat(reply).isEqualTo(MESSAGE);
    assertThat(serverSide.messages).as("requests the server decompressed").hasValue(1);
    assertThat(clientSide.messages).as("responses the client decompressed").hasValue(1);
  }

  @Test
  void aServerWithTheDefaultRegistriesTakesZstdAndKeepsGzip() throws IOException {
    Server server = start(ServerBuilder.forPort(0));
    ManagedChannel channel = channel(server, plaintext(server));

    for (String encoding : new String[] {"zstd", "gzip"}) {
      assertThat(
              ClientCalls.blockingUnaryCall(
                  channel,
                  EchoService.UNARY,
                  CallOptions.DEFAULT.withCompression(encoding),
                  MESSAGE))
          .as(encoding)
          .isEqualTo(MESSAGE);
    }
  }

  @Test
  void aZstdBombIsResourceExhaustedAndTheServerKeepsServing() throws IOException {
    // 64 MiB of zeros: 16 times the limit, a few KiB on the wire.
    byte[] bomb = ZstdCodecTest.compress(new ZstdCodec(), new byte[64 * 1024 * 1024]);
    assertThat(bomb.length).isLessThan(8 * 1024);
    Server server = start(ServerBuilder.forPort(0));

    StatusRuntimeException e = callSending(server, bomb);

    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(e.getStatus().getDescription())
        .isEqualTo("Decompressed gRPC message exceeds maximum size " + LIMIT);
    assertStillServing(server);
  }

  @Test
  void concurrentZstdBombsAreEachResourceExhausted() throws Exception {
    byte[] bomb = ZstdCodecTest.compress(new ZstdCodec(), new byte[64 * 1024 * 1024]);
    Server server = start(ServerBuilder.forPort(0));
    CompressorRegistry hostile = CompressorRegistry.newEmptyInstance();
    hostile.register(new Prepared(bomb));
    ManagedChannel channel = channel(server, plaintext(server).compressorRegistry(hostile));
    List<CompletableFuture<String>> calls = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      calls.add(
          ClientCalls.futureUnaryCall(
              channel.newCall(EchoService.UNARY, CallOptions.DEFAULT.withCompression("zstd")),
              "x"));
    }

    for (CompletableFuture<String> call : calls) {
      assertThat(call)
          .failsWithin(Duration.ofSeconds(30))
          .withThrowableOfType(ExecutionException.class)
          .havingCause()
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
    }
    assertStillServing(server);
  }

  @Test
  void aZstdBombInAResponseFailsTheClientsReadAtTheLimit() throws IOException {
    byte[] bomb = ZstdCodecTest.compress(new ZstdCodec(), new byte[64 * 1024 * 1024]);
    CompressorRegistry hostile = CompressorRegistry.newEmptyInstance();
    hostile.register(new Prepared(bomb));
    Server server =
        start(
            ServerBuilder.forPort(0)
                .compressorRegistry(hostile)
                .intercept(new CompressResponses(ZstdCodec.ENCODING)));
    ManagedChannel channel = channel(server, plaintext(server));

    // As for gzip: the client fails the read (INTERNAL), the cause naming the limit it hit.
    assertThatThrownBy(
            () ->
                ClientCalls.blockingUnaryCall(
                    channel, EchoService.UNARY, CallOptions.DEFAULT, "hello"))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
              assertThat(e.getStatus().getDescription()).isEqualTo("Failed to read message");
              assertThat(e.getStatus().getCause())
                  .hasMessage(
                      "RESOURCE_EXHAUSTED: Decompressed gRPC message exceeds maximum size "
                          + LIMIT);
            });
  }

  @Test
  void framesTheCodecRefusesAreInternalNamingZstd() throws IOException {
    Server server = start(ServerBuilder.forPort(0));
    byte[] hugeWindow = ZstdCodecTest.compressWithWindowLog(30, "hello".repeat(100).getBytes());
    byte[] notZstd = ZstdCodecTest.compress(new Codec.Gzip(), MESSAGE.getBytes());

    for (byte[] body : new byte[][] {hugeWindow, notZstd, new byte[0]}) {
      StatusRuntimeException e = callSending(server, body);

      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
      assertThat(e.getStatus().getDescription())
          .isEqualTo("Can't decompress gRPC message with zstd");
    }
    assertStillServing(server);
  }

  @Test
  void aCorruptBlockIsInternal() throws IOException {
    Server server = start(ServerBuilder.forPort(0));
    byte[] corrupt = ZstdCodecTest.compress(new ZstdCodec(), MESSAGE.getBytes());
    corrupt[6] |= 0x06; // the first block's type: 3 is reserved

    StatusRuntimeException e = callSending(server, corrupt);

    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
    assertStillServing(server);
  }

  /** A unary call whose request body, compressed as "zstd", is {@code body} as given. */
  private StatusRuntimeException callSending(Server server, byte[] body) {
    CompressorRegistry hostile = CompressorRegistry.newEmptyInstance();
    hostile.register(new Prepared(body));
    ManagedChannel channel = channel(server, plaintext(server).compressorRegistry(hostile));
    try {
      String reply =
          ClientCalls.blockingUnaryCall(
              channel, EchoService.UNARY, CallOptions.DEFAULT.withCompression("zstd"), "x");
      throw new AssertionError("the call succeeded: " + reply);
    } catch (StatusRuntimeException e) {
      return e;
    }
  }

  private void assertStillServing(Server server) {
    ManagedChannel channel = channel(server, plaintext(server));
    assertThat(
            ClientCalls.blockingUnaryCall(
                channel, EchoService.UNARY, CallOptions.DEFAULT.withCompression("zstd"), "again"))
        .isEqualTo("again");
  }

  private Server start(ServerBuilder<?> builder) throws IOException {
    return cleanup.register(builder.addService(EchoService.definition()).build().start());
  }

  private static ManagedChannelBuilder<?> plaintext(Server server) {
    return ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort());
  }

  private ManagedChannel channel(Server server, ManagedChannelBuilder<?> builder) {
    return cleanup.register(builder.usePlaintext().build());
  }

  /** A hostile "zstd" compressor: whatever the message, it sends {@code body}. */
  private static final class Prepared implements Compressor {
    private final byte[] body;

    Prepared(byte[] body) {
      this.body = body;
    }

    @Override
    public String getMessageEncoding() {
      return ZstdCodec.ENCODING;
    }

    @Override
    public OutputStream compress(OutputStream os) {
      return new OutputStream() {
        @Override
        public void write(int b) {}

        @Override
        public void write(byte[] b, int off, int len) {}

        @Override
        public void close() throws IOException {
          os.write(body);
          os.close();
        }
      };
    }
  }
}
