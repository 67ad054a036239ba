package dev.tern.http3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerServiceDefinition;
import dev.tern.TlsChannelCredentials;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testing.TestMarshallers;
import dev.tern.testtools.ExternalTool;
import dev.tern.testtools.TestPems;
import dev.tern.testtools.ToolProcess;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * QUIC-level attacks from a hostile client on aioquic ({@code src/test/python/quic_attacker.py}),
 * each on a live connection: the server closes the attacker's connection with the error the RFCs
 * name, or, for a peer that never acknowledges, holds a bounded response until the call's deadline;
 * and a well-behaved client on another connection, connected before the attack, still gets answers
 * on it.
 */
@Tag("external-check") // needs aioquic; -Pexternal-checks and CI: README.md#development
class QuicHostilePeerTest {
  private static final Path ATTACKER = Path.of("src/test/python/quic_attacker.py").toAbsolutePath();

  /** The server's limit on concurrent calls per connection (its initial_max_streams_bidi). */
  private static final int STREAM_LIMIT = 5;

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @TempDir Path dir;

  /** Connections the server accepted: the well-behaved client's and the attacker's. */
  private final ConnectionCounter connections = new ConnectionCounter();

  /** Calls of the held method the server has seen (the flood's that got in). */
  private final AtomicInteger heldCalls = new AtomicInteger();

  /**
   * FullDuplexCall, held open: it never answers nor ends, so the flood's streams stay open and the
   * server has no reason to raise its stream limit while they arrive.
   */
  private ServerServiceDefinition heldService() {
    return ServerServiceDefinition.builder("grpc.testing.TestService")
        .addMethod(
            MethodDescriptor.newBuilder(TestMarshallers.bytes(), TestMarshallers.bytes())
                .setFullMethodName("grpc.testing.TestService/FullDuplexCall")
                .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
                .build(),
            (ServerCall<byte[], byte[]> call, Metadata headers) -> {
              heldCalls.incrementAndGet();
              return new ServerCall.Listener<byte[]>() {};
            })
        .addMethod(
            MethodDescriptor.newBuilder(TestMarshallers.bytes(), TestMarshallers.bytes())
                .setFullMethodName("grpc.testing.TestService/StreamingOutputCall")
                .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
                .build(),
            (call, headers) -> new Flood(call))
        .build();
  }

  /** Response bytes {@link Flood} handed to its call (isReady allowing). */
  private final AtomicLong flooded = new AtomicLong();

  /** How the flooding call ended: "cancelled" or "completed". */
  private final CompletableFuture<String> floodEnded = new CompletableFuture<>();

  /**
   * StreamingOutputCall, without end: 16 KiB messages for as long as the call is ready for them, as
   * a well-written handler sends. Its listener's methods run one at a time (the call's).
   */
  private final class Flood extends ServerCall.Listener<byte[]> {
    private final ServerCall<byte[], byte[]> call;
    private boolean sending; // from the request's end on

    Flood(ServerCall<byte[], byte[]> call) {
      this.call = call;
      call.request(1);
    }

    @Override
    public void onHalfClose() {
      call.sendHeaders(new Metadata());
      sending = true;
      sendWhileReady();
    }

    @Override
    public void onReady() {
      if (sending) {
        sendWhileReady();
      }
    }

    private void sendWhileReady() {
      byte[] message = new byte[16 * 1024];
      while (call.isReady()) {
        call.sendMessage(message);
        flooded.addAndGet(message.length);
      }
    }

    @Override
    public void onCancel() {
      floodEnded.complete("cancelled");
    }

    @Override
    public void onComplete() {
      floodEnded.complete("completed");
    }
  }

  /** Runs {@code attack} against a fresh server; returns the attacker's verdict line. */
  private String attack(String attack, String... extra) throws Exception {
    Path python = ExternalTool.requireHttp3Python();
    TestPems pems = TestPems.generate("localhost", "dns:localhost,ip:127.0.0.1");
    Path cert = Files.writeString(dir.resolve("cert.pem"), pems.certificatePem);
    Path key = Files.writeString(dir.resolve("key.pem"), pems.keyPem);
    Server server =
        cleanup.register(
            NettyServerBuilder.forPort(0)
                .useTransportSecurity(cert.toFile(), key.toFile())
                .enableHttp3()
                .maxConcurrentCallsPerConnection(STREAM_LIMIT)
                .addService(EchoService.definition())
                .addService(heldService())
                .addTransportFilter(connections)
                .build()
                .start());
    ManagedChannel good =
        cleanup.register(
            NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
                .tlsCredentials(
                    TlsChannelCredentials.newBuilder()
                        .trustManager(
                            new ByteArrayInputStream(
                                pems.certificatePem.getBytes(StandardCharsets.US_ASCII)))
                        .build())
                .enableHttp3()
                .build());
    assertThat(unary(good, "before")).isEqualTo("before");
    List<String> command = new ArrayList<>();
    command.addAll(
        List.of(
            python.toString(),
            ATTACKER.toString(),
            "--port=" + server.getPort(),
            "--ca=" + cert,
            "--attack=" + attack));
    command.addAll(List.of(extra));
    ToolProcess attacker = ToolProcess.start("quic-attacker", command);
    try {
      assertThat(attacker.awaitExit(Duration.ofSeconds(60))).as(attacker.output()).isTrue();
      assertThat(attacker.exitValue()).as(attacker.output()).isZero();
    } finally {
      attacker.stop(Duration.ofSeconds(5));
    }
    // The well-behaved client's connection was never touched: it answers, and no third
    // connection was made.
    assertThat(unary(good, "after")).isEqualTo("after");
    assertThat(connections.accepted()).isEqualTo(2);
    return attacker
        .output()
        .lines()
        .filter(l -> l.startsWith("CLOSED") || l.startsWith("OPEN"))
        .findFirst()
        .orElse(attacker.output());
  }

  private static String unary(ManagedChannel channel, String request) {
    return ClientCalls.blockingUnaryCall(
        channel,
        EchoService.UNARY,
        CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
        request);
  }

  @Test
  void aStreamFloodPastTheLimitIsStreamLimitError() throws Exception {
    String verdict = attack("stream_flood", "--streams=" + (STREAM_LIMIT * 8));
    // STREAM_LIMIT_ERROR (RFC 9000 section 19.11), a transport error, quiche's own.
    assertThat(verdict).startsWith("CLOSED code=0x4 ");
    assertThat(heldCalls.get()).isLessThanOrEqualTo(STREAM_LIMIT);
  }

  @Test
  void aPeerThatNeverAcknowledgesGetsABoundedResponseUntilTheDeadline() throws Exception {
    // A server-streaming call with a 3-second deadline, then 6 seconds of PINGs and no ACK.
    String verdict = attack("no_acks", "--wait=6");
    // Unacknowledged, QUIC's congestion window lets no more out (about 12 KB), the stream holds
    // what waits, and isReady stays false: the handler hands over a bounded amount (32 KiB here;
    // the same client acknowledging gets some 16 MiB in those 3 seconds).
    assertThat(flooded.get()).as(verdict).isPositive().isLessThan(2L << 20);
    // The deadline ends the call on the server, which frees what it held, while the peer is still
    // there: the connection, kept busy by its PINGs, stays open (its idle timeout never runs).
    assertThat(floodEnded.completeOnTimeout("still open", 10, TimeUnit.SECONDS).get())
        .as("flooded %d, %s", flooded.get(), verdict)
        .isEqualTo("cancelled");
    assertThat(verdict).startsWith("OPEN received=");
    long received = Long.parseLong(verdict.substring("OPEN received=".length()));
    assertThat(received).isLessThan(flooded.get());
  }

  @Test
  void aDynamicTableCapacityPastTheServersIsQpackEncoderStreamError() throws Exception {
    assertThat(attack("qpack_capacity")).startsWith("CLOSED code=0x201 ");
  }

  @Test
  void insertsIntoATableOfCapacityZeroAreQpackEncoderStreamError() throws Exception {
    // A 4 MiB entry, more than the encoder stream's flow-control credit (1 MiB): the server
    // closes at the instruction's first byte, never buffering the huge name.
    assertThat(attack("qpack_insert")).startsWith("CLOSED code=0x201 ");
  }

  @Test
  void aReferenceToTheDynamicTableIsQpackDecompressionFailed() throws Exception {
    assertThat(attack("qpack_reference")).startsWith("CLOSED code=0x200 ");
  }
}
