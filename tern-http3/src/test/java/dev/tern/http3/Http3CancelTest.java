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
 * connection serves the next call (answered only once the cancelled call ended). So does one that
 * resets it after sending its whole request, to a handler that does not write again.
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

  /**
   * StreamingInputCall: answers the whole request with headers only, then nothing; how the call
   * ended goes to {@code ended} once it was half-closed.
   */
  private static ServerCall.Listener<byte[]> headersOnly(
      ServerCall<byte[], byte[]> call, CompletableFuture<String> ended) {
    call.request(1);
    return new ServerCall.Listener<byte[]>() {
      private boolean halfClosed;

      @Override
      public void onMessage(byte[] message) {
        call.request(1);
      }

      @Override
      public void onHalfClose() {
        halfClosed = true;
        call.sendHeaders(new Metadata());
      }

      @Override
      public void onCancel() {
        ended.complete(halfClosed ? "cancelled after the request" : "cancelled");
      }

      @Override
      public void onComplete() {
        ended.complete("completed");
      }
    };
  }

  /**
   * EmptyCall: answers one empty message once the cancelled call has ended, so that the client,
   * which exits after this answer, cannot end that call by closing the connection.
   */
  private static ServerCall.Listener<byte[]> empty(
      ServerCall<byte[], byte[]> call, CompletableFuture<String> ended) {
    call.request(1);
    return new ServerCall.Listener<byte[]>() {
      @Override
      public void onHalfClose() {
        ended.whenComplete(
            (how, failure) -> {
              call.sendHeaders(new Metadata());
              call.sendMessage(new byte[0]);
              call.close(Status.OK, new Metadata());
            });
      }
    };
  }

  @Test
  void resetStreamCancelsTheServersCall(@TempDir Path dir) throws Exception {
    assertThat(runCase(dir, "cancel_after_first_response")).isEqualTo("cancelled");
  }

  /**
   * The client's RESET_STREAM comes after the request's FIN, which QUIC lets the server ignore; its
   * STOP_SENDING is heard although the handler writes nothing more.
   */
  @Test
  void aResetAfterTheWholeRequestCancelsTheServersCall(@TempDir Path dir) throws Exception {
    assertThat(runCase(dir, "cancel_after_request")).isEqualTo("cancelled after the request");
  }

  /** Runs one case of the aioquic client; returns how the server's call ended. */
  private static String runCase(Path dir, String testCase) throws Exception {
    Path python = ExternalTool.requireHttp3Python();
    TestPems pems = TestPems.generate("localhost", "dns:localhost,ip:127.0.0.1");
    Path cert = Files.writeString(dir.resolve("cert.pem"), pems.certificatePem);
    Path key = Files.writeString(dir.resolve("key.pem"), pems.keyPem);
    CompletableFuture<String> ended = new CompletableFuture<>();
    ServerServiceDefinition service =
        ServerServiceDefinition.builder("grpc.testing.TestService")
            .addMethod(
                method("FullDuplexCall", MethodDescriptor.MethodType.BIDI_STREAMING),
                (call, headers) -> duplex(call, ended))
            .addMethod(
                method("StreamingInputCall", MethodDescriptor.MethodType.CLIENT_STREAMING),
                (call, headers) -> headersOnly(call, ended))
            .addMethod(
                method("EmptyCall", MethodDescriptor.MethodType.UNARY),
                (call, headers) -> empty(call, ended))
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
                  "--test_case=" + testCase));
      assertThat(client.awaitExit(Duration.ofSeconds(60))).as(client.output()).isTrue();

      assertThat(client.output().lines()).containsExactly("PASS " + testCase);
      return ended.get(10, TimeUnit.SECONDS);
    } finally {
      if (client != null) {
        client.stop(Duration.ofSeconds(5));
      }
      server.shutdownNow();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
