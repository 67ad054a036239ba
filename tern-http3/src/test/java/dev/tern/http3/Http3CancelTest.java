package dev.tern.http3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.testing.TestMarshallers;
import dev.tern.testtools.ExternalTool;
import dev.tern.testtools.TestPems;
import dev.tern.testtools.ToolProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client that resets an HTTP/3 request stream once the call is under way (RESET_STREAM and
 * STOP_SENDING with H3_REQUEST_CANCELLED, as a cancelled call sends) cancels the server's call, as
 * RST_STREAM(CANCEL) does on HTTP/2: the handler's listener hears {@code onCancel}, and the
 * connection serves the next call.
 */
@Tag("external-check") // needs aioquic; -Pexternal-checks and CI: README.md#development
class Http3CancelTest {
  private static final Path CLIENT = Path.of("src/test/python/grpc_h3_client.py").toAbsolutePath();

  private static MethodDescriptor<byte[], byte[]> method(
      String name, MethodDescriptor.MethodType t) {
    return MethodDescriptor.newBuilder(TestMarshallers.bytes(), TestMarshallers.bytes())
        .setFullMethodName("grpc.testing.TestService/" + name)
        .setType(t)
        .build();
  }

  /** FullDuplexCall: a message back per message; how the call ended goes to {@code ended}. */
  private static ServerCall.Listener<byte[]> duplex(
      ServerCall<byte[], byte[]> call, CompletableFuture<String> ended) {
    call.request(1);
    return new ServerCall.Listener<byte[]>() {
      @Override
      public void onMessage(byte[] message) {
        call.sendHeaders(new Metadata());
        call.sendMessage(new byte[] {1});
        call.request(1);
      }

      @Override
      public void onHalfClose() {
        ended.complete("half-closed");
      }

      @Override
      public void onCancel() {
        ended.complete("cancelled");
      }

      @Override
      public void onComplete() {
        ended.complete("completed");
      }
    };
  }

  /** EmptyCall: answers one empty message. */
  private static ServerCall.Listener<byte[]> empty(
      ServerCall<byte[], byte[]> call, Metadata headers) {
    call.request(1);
    return new ServerCall.Listener<byte[]>() {
      @Override
      public void onHalfClose() {
        call.sendHeaders(new Metadata());
        call.sendMessage(new byte[0]);
        call.close(Status.OK, new Metadata());
      }
    };
  }

  @Test
  void resetStreamCancelsTheServersCall(@TempDir Path dir) throws Exception {
    Path python = ExternalTool.requireHttp3Python();
    TestPems pems = TestPems.generate("localhost", "dns:localhost,ip:127.0.0.1");
    Path cert = Files.writeString(dir.resolve("cert.pem"), pems.certificatePem);
    Path key = Files.writeString(dir.resolve("key.pem"), pems.keyPem);
    CompletableFuture<String> duplexCall = new CompletableFuture<>();
    ServerServiceDefinition service =
        ServerServiceDefinition.builder("grpc.testing.TestService")
            .addMethod(
                method("FullDuplexCall", MethodDescriptor.MethodType.BIDI_STREAMING),
                (call, headers) -> duplex(call, duplexCall))
            .addMethod(
                method("EmptyCall", MethodDescriptor.MethodType.UNARY), Http3CancelTest::empty)
            .build();
    Server server =
        NettyServerBuilder.forPort(0)
            .useTransportSecurity(cert.toFile(), key.toFile())
            .enableHttp3()
            .addService(service)
            .build()
            .start();
    ToolProcess client = null;
    try {
      client =
          ToolProcess.start(
              "grpc-h3-client",
              List.of(
                  python.toString(),
                  CLIENT.toString(),
                  "--port=" + server.getPort(),
                  "--ca=" + cert,
                  "--server_host_override=localhost",
                  "--test_case=cancel_after_first_response"));
      assertThat(client.awaitExit(Duration.ofSeconds(60))).as(client.output()).isTrue();

      assertThat(client.output().lines()).containsExactly("PASS cancel_after_first_response");
      assertThat(duplexCall.get(10, TimeUnit.SECONDS)).isEqualTo("cancelled");
    } finally {
      if (client != null) {
        client.stop(Duration.ofSeconds(5));
      }
      server.shutdownNow();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
