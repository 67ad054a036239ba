package dev.tern.services.binarylog;

import static dev.tern.services.binarylog.TestCalls.byCall;
import static dev.tern.services.binarylog.TestCalls.events;
import static dev.tern.services.binarylog.TestCalls.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.BinaryLog;
import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.services.binarylog.v1.GrpcLogEntry;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A message the method's marshaller cannot parse fails the call as it does without a binary log
 * (the log parses messages itself, after logging their bytes), and the log shows the bytes.
 */
class BinaryLogUnparseableMessageTest {
  @TempDir Path dir;

  private final List<AutoCloseable> cleanup = new ArrayList<>();

  /** Serializes strings; refuses to parse anything. */
  private static final MethodDescriptor.Marshaller<String> UNPARSEABLE =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
          return EchoService.UTF8.stream(value);
        }

        @Override
        public String parse(InputStream stream) {
          throw new IllegalStateException("this marshaller parses nothing");
        }
      };

  /** test.Picky/Call: the server cannot parse its requests; the handler notes onCancel. */
  private static ServerServiceDefinition picky(CompletableFuture<Void> cancelled) {
    MethodDescriptor<String, String> method =
        MethodDescriptor.newBuilder(UNPARSEABLE, EchoService.UTF8)
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName("test.Picky/Call")
            .build();
    return ServerServiceDefinition.builder("test.Picky")
        .addMethod(
            method,
            (ServerCall<String, String> call, Metadata headers) -> {
              call.request(2);
              return new ServerCall.Listener<>() {
                @Override
                public void onCancel() {
                  cancelled.complete(null);
                }
              };
            })
        .build();
  }

  @AfterEach
  void tearDown() throws Exception {
    Collections.reverse(cleanup);
    for (AutoCloseable resource : cleanup) {
      resource.close();
    }
    cleanup.clear();
  }

  private Server server(BinaryLog log) throws Exception {
    return server(log, new CompletableFuture<>());
  }

  private Server server(BinaryLog log, CompletableFuture<Void> pickyCancelled) throws Exception {
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(new EchoService().definition())
            .addService(picky(pickyCancelled));
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

  private ManagedChannel channel(Server server, BinaryLog log) {
    NettyChannelBuilder builder =
        NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext();
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

  private BinaryLog log(String file) throws Exception {
    BinaryLog log = BinaryLogs.createBinaryLog(new FileBinaryLogSink(dir.resolve(file)), "*");
    cleanup.add(log);
    return log;
  }

  private static Status call(
      ManagedChannel channel, MethodDescriptor<String, String> method, String request)
      throws Exception {
    TestCalls.Recorded call = new TestCalls.Recorded(channel, method, CallOptions.DEFAULT);
    call.call.sendMessage(request);
    call.call.halfClose();
    return call.awaitStatus();
  }

  private static String describe(Status status) {
    return status.getCode() + ": " + status.getDescription();
  }

  @Test
  void aResponseTheClientCannotParseFailsTheCallAsWithoutALog() throws Exception {
    MethodDescriptor<String, String> unparseableResponses =
        EchoService.UNARY.toBuilder().setResponseMarshaller(UNPARSEABLE).build();
    Server server = server(null);
    BinaryLog log = log("client.log");

    Status plain = call(channel(server, null), unparseableResponses, "hello");
    Status logged = call(channel(server, log), unparseableResponses, "hello");

    assertThat(describe(logged))
        .isEqualTo(describe(plain))
        .isEqualTo("INTERNAL: Failed to read message");
    assertThat(logged.getCause()).hasMessage("this marshaller parses nothing");
    log.close();
    List<GrpcLogEntry> entries = read(dir.resolve("client.log"));
    assertThat(events(entries))
        .containsExactly(
            "CLIENT_HEADER 1",
            "CLIENT_MESSAGE 2",
            "CLIENT_HALF_CLOSE 3",
            "SERVER_HEADER 4",
            "SERVER_MESSAGE 5",
            "SERVER_TRAILER 6");
    assertThat(entries.get(4).getMessage().getData().toStringUtf8()).isEqualTo("hello!");
    assertThat(entries.get(5).getTrailer().getStatusCode()).isEqualTo(Status.Code.INTERNAL.value());
    assertThat(entries.get(5).getTrailer().getStatusMessage()).isEqualTo("Failed to read message");
  }

  @Test
  void aRequestTheServerCannotParseFailsTheCallAsWithoutALog() throws Exception {
    MethodDescriptor<String, String> pickyCall =
        EchoService.UNARY.toBuilder().setFullMethodName("test.Picky/Call").build();
    BinaryLog log = log("server.log");

    Status plain = call(channel(server(null), null), pickyCall, "x");
    CompletableFuture<Void> handlerCancelled = new CompletableFuture<>();
    Status logged = call(channel(server(log, handlerCancelled), null), pickyCall, "x");

    assertThat(describe(logged))
        .isEqualTo(describe(plain))
        .isEqualTo("INTERNAL: Failed to parse request");
    handlerCancelled.get(5, TimeUnit.SECONDS);
    tearDown();
    List<List<GrpcLogEntry>> calls = byCall(read(dir.resolve("server.log")));
    assertThat(calls).hasSize(1);
    assertThat(events(calls.get(0)))
        .containsExactly("CLIENT_HEADER 1", "CLIENT_MESSAGE 2", "SERVER_TRAILER 3");
    assertThat(calls.get(0).get(1).getMessage().getData().toStringUtf8()).isEqualTo("x");
    assertThat(calls.get(0).get(2).getTrailer().getStatusMessage())
        .isEqualTo("Failed to parse request");
  }
}
