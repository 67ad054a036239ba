package dev.tern.services.binarylog;

import static dev.tern.services.binarylog.TestCalls.byCall;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.TextFormat;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.services.binarylog.v1.ClientHeader;
import dev.tern.services.binarylog.v1.GrpcLogEntry;
import dev.tern.services.binarylog.v1.Metadata;
import dev.tern.services.binarylog.v1.MetadataEntry;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The same calls logged by grpc-java's binary log (grpc-services) and by Tern's give the same
 * entries: types, order, sequence ids, methods, metadata, messages, statuses and peers, apart from
 * call ids, timestamps, ports and the timeout's exact value. grpc-java also logs metadata that gRFC
 * A16 says to leave out (for example {@code user-agent} and {@code grpc-accept-encoding}); those
 * entries are dropped from its records before comparing.
 */
class BinaryLogGrpcJavaParityTest {
  /** The metadata keys A16 leaves out besides every {@code grpc-} key but grpc-trace-bin. */
  private static final Set<String> TRANSPORT_KEYS =
      Set.of("content-type", "user-agent", "te", "content-encoding", "content-length", "host");

  private final List<AutoCloseable> cleanup = new ArrayList<>();

  /** Collects Tern's entries. */
  private static final class TernSink implements BinaryLogSink {
    final List<GrpcLogEntry> entries = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void write(MessageLite entry) {
      entries.add((GrpcLogEntry) entry);
    }

    @Override
    public void close() {}
  }

  /** Collects grpc-java's entries, re-read as Tern's generated type (the same wire format). */
  private static final class GrpcJavaSink implements io.grpc.protobuf.services.BinaryLogSink {
    final List<GrpcLogEntry> entries = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void write(MessageLite entry) {
      try {
        entries.add(GrpcLogEntry.parseFrom(entry.toByteString()));
      } catch (InvalidProtocolBufferException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void close() {}
  }

  @AfterEach
  void tearDown() throws Exception {
    Collections.reverse(cleanup);
    for (AutoCloseable resource : cleanup) {
      resource.close();
    }
  }

  private Server ternServer(dev.tern.BinaryLog log, EchoService echo) throws Exception {
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(echo.definition());
    if (log != null) {
      builder.setBinaryLog(log);
    }
    Server server = builder.build().start();
    cleanup.add(
        () -> {
          server.shutdownNow();
          assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        });
    return server;
  }

  private ManagedChannel ternChannel(int port, dev.tern.BinaryLog log) {
    NettyChannelBuilder builder = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext();
    if (log != null) {
      builder.setBinaryLog(log);
    }
    ManagedChannel channel = builder.build();
    cleanup.add(
        () -> {
          channel.shutdownNow();
          assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        });
    return channel;
  }

  /** The four calls, from a Tern channel. */
  private static void ternCalls(ManagedChannel channel, CompletableFuture<Void> hangStarted)
      throws Exception {
    assertThat(TestCalls.unary(channel).getCode()).isEqualTo(Status.Code.OK);
    assertThat(TestCalls.chat(channel).getCode()).isEqualTo(Status.Code.OK);
    assertThat(TestCalls.fail(channel).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(TestCalls.cancelled(channel, hangStarted).getCode())
        .isEqualTo(Status.Code.CANCELLED);
  }

  @Test
  void aGrpcJavaServerAndATernServerLogTheSameCallsAlike() throws Exception {
    GrpcJavaSink grpcJavaSink = new GrpcJavaSink();
    GrpcJavaEchoService grpcJavaEcho = new GrpcJavaEchoService();
    io.grpc.Server grpcJavaServer =
        io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder.forAddress(
                new InetSocketAddress("127.0.0.1", 0))
            .addService(grpcJavaEcho.definition())
            .setBinaryLog(io.grpc.protobuf.services.BinaryLogs.createBinaryLog(grpcJavaSink, "*"))
            .build()
            .start();
    cleanup.add(
        () -> {
          grpcJavaServer.shutdownNow();
          assertThat(grpcJavaServer.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        });
    TernSink ternSink = new TernSink();
    EchoService ternEcho = new EchoService();
    Server ternServer = ternServer(BinaryLogs.createBinaryLog(ternSink, "*"), ternEcho);

    ternCalls(ternChannel(grpcJavaServer.getPort(), null), grpcJavaEcho.hangStarted);
    grpcJavaEcho.hangCancelled.get(5, TimeUnit.SECONDS);
    ternCalls(ternChannel(ternServer.getPort(), null), ternEcho.hangStarted);
    ternEcho.hangCancelled.get(5, TimeUnit.SECONDS);

    List<String> ternCalls = normalized(ternSink.entries, false);
    assertThat(ternCalls).hasSize(4);
    assertThat(ternCalls).isEqualTo(normalized(grpcJavaSink.entries, true));
    assertThat(ternCalls.get(0))
        .contains("type: EVENT_TYPE_CLIENT_HEADER", "logger: LOGGER_SERVER", "key: \"client-bin\"");
  }

  @Test
  void aGrpcJavaChannelAndATernChannelLogTheSameCallsAlike() throws Exception {
    EchoService echo = new EchoService();
    Server server = ternServer(null, echo);

    GrpcJavaSink grpcJavaSink = new GrpcJavaSink();
    io.grpc.ManagedChannel grpcJavaChannel =
        io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder.forAddress(
                "127.0.0.1", server.getPort())
            .usePlaintext()
            .setBinaryLog(io.grpc.protobuf.services.BinaryLogs.createBinaryLog(grpcJavaSink, "*"))
            .build();
    cleanup.add(
        () -> {
          grpcJavaChannel.shutdownNow();
          assertThat(grpcJavaChannel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        });
    GrpcJavaCalls.all(grpcJavaChannel, echo.hangStarted);
    echo.hangCancelled.get(5, TimeUnit.SECONDS);

    EchoService echo2 = new EchoService();
    Server server2 = ternServer(null, echo2);
    TernSink ternSink = new TernSink();
    ternCalls(
        ternChannel(server2.getPort(), BinaryLogs.createBinaryLog(ternSink, "*")),
        echo2.hangStarted);

    List<String> ternCalls = normalized(ternSink.entries, false);
    assertThat(ternCalls).hasSize(4);
    assertThat(ternCalls).isEqualTo(normalized(grpcJavaSink.entries, true));
    assertThat(ternCalls.get(0))
        .contains("type: EVENT_TYPE_SERVER_HEADER", "logger: LOGGER_CLIENT", "type: TYPE_IPV4");
  }

  /**
   * Each call's entries as text without what differs by nature (ids, timestamps, ports, the
   * timeout's value); for grpc-java's, without the metadata A16 leaves out.
   */
  private static List<String> normalized(List<GrpcLogEntry> entries, boolean filterMetadata) {
    List<String> calls = new ArrayList<>();
    for (List<GrpcLogEntry> call : byCall(List.copyOf(entries))) {
      StringBuilder text = new StringBuilder();
      for (GrpcLogEntry entry : call) {
        GrpcLogEntry.Builder b = entry.toBuilder().clearTimestamp().clearCallId();
        if (b.hasPeer()) {
          b.getPeerBuilder().setIpPort(0);
        }
        if (b.hasClientHeader()) {
          ClientHeader.Builder header = b.getClientHeaderBuilder();
          header.setAuthority(header.getAuthority().replaceAll(":\\d+$", ":PORT"));
          if (header.hasTimeout()) {
            header.getTimeoutBuilder().setSeconds(1).setNanos(0);
          }
          if (filterMetadata) {
            header.setMetadata(filter(header.getMetadata()));
          }
        }
        if (filterMetadata && b.hasServerHeader()) {
          b.getServerHeaderBuilder().setMetadata(filter(b.getServerHeader().getMetadata()));
        }
        if (filterMetadata && b.hasTrailer()) {
          b.getTrailerBuilder().setMetadata(filter(b.getTrailer().getMetadata()));
        }
        text.append(TextFormat.printer().printToString(b.build())).append("---\n");
      }
      calls.add(text.toString());
    }
    return calls;
  }

  private static Metadata filter(Metadata metadata) {
    Metadata.Builder out = Metadata.newBuilder();
    for (MetadataEntry entry : metadata.getEntryList()) {
      String key = entry.getKey();
      boolean dropped =
          (key.startsWith("grpc-") && !key.equals("grpc-trace-bin"))
              || key.startsWith(":")
              || TRANSPORT_KEYS.contains(key);
      if (!dropped) {
        out.addEntry(entry);
      }
    }
    return out.build();
  }

  /** {@link TestCalls}' four calls on grpc-java's client API. */
  private static final class GrpcJavaCalls {
    static void all(io.grpc.Channel channel, CompletableFuture<Void> hangStarted) throws Exception {
      Recorded unary =
          new Recorded(
              channel,
              GrpcJavaEchoService.UNARY,
              CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS));
      unary.call.sendMessage("hello");
      unary.call.halfClose();
      assertThat(unary.nextMessage()).isEqualTo("hello!");
      assertThat(unary.awaitStatus().getCode()).isEqualTo(io.grpc.Status.Code.OK);

      Recorded chat = new Recorded(channel, GrpcJavaEchoService.CHAT, CallOptions.DEFAULT);
      chat.call.sendMessage("a");
      assertThat(chat.nextMessage()).isEqualTo("A");
      chat.call.sendMessage("b");
      assertThat(chat.nextMessage()).isEqualTo("B");
      chat.call.halfClose();
      assertThat(chat.awaitStatus().getCode()).isEqualTo(io.grpc.Status.Code.OK);

      Recorded fail = new Recorded(channel, GrpcJavaEchoService.FAIL, CallOptions.DEFAULT);
      fail.call.sendMessage("x");
      fail.call.halfClose();
      assertThat(fail.awaitStatus().getCode()).isEqualTo(io.grpc.Status.Code.INVALID_ARGUMENT);

      Recorded hang = new Recorded(channel, GrpcJavaEchoService.HANG, CallOptions.DEFAULT);
      hang.call.sendMessage("wait");
      hangStarted.get(5, TimeUnit.SECONDS);
      hang.call.cancel("the test gives up", null);
      assertThat(hang.awaitStatus().getCode()).isEqualTo(io.grpc.Status.Code.CANCELLED);
    }

    /** A started grpc-java call with {@link TestCalls#requestHeaders()}' headers. */
    private static final class Recorded {
      final ClientCall<String, String> call;
      final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
      final CompletableFuture<io.grpc.Status> status = new CompletableFuture<>();

      Recorded(
          io.grpc.Channel channel,
          io.grpc.MethodDescriptor<String, String> method,
          CallOptions options) {
        call = channel.newCall(method, options);
        io.grpc.Metadata headers = new io.grpc.Metadata();
        headers.put(
            io.grpc.Metadata.Key.of("client-header", io.grpc.Metadata.ASCII_STRING_MARSHALLER),
            "c");
        headers.put(
            io.grpc.Metadata.Key.of("client-bin", io.grpc.Metadata.BINARY_BYTE_MARSHALLER),
            new byte[] {1, 2, 3});
        call.start(
            new ClientCall.Listener<>() {
              @Override
              public void onMessage(String message) {
                messages.add(message);
              }

              @Override
              public void onClose(io.grpc.Status status, io.grpc.Metadata trailers) {
                Recorded.this.status.complete(status);
              }
            },
            headers);
        call.request(Integer.MAX_VALUE);
      }

      String nextMessage() throws InterruptedException {
        String message = messages.poll(5, TimeUnit.SECONDS);
        assertThat(message).as("a response within 5 s").isNotNull();
        return message;
      }

      io.grpc.Status awaitStatus() throws Exception {
        return status.get(5, TimeUnit.SECONDS);
      }
    }
  }
}
