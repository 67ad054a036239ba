package dev.tern.web.internal;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.web.WebProtocols;
import dev.tern.web.test.EchoRequest;
import dev.tern.web.test.EchoResponse;
import dev.tern.web.test.WebTestTern;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * gRPC-Web and Connect over real HTTP/1.1 (the JDK's client) on a Tern server's port, beside gRPC:
 * what a browser or curl sees.
 */
class WebProtocolsHttp1Test {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();

  private int start(NettyServerBuilder builder) throws IOException {
    Server server = cleanup.register(builder.addService(new WebTestService()).build().start());
    return server.getPort();
  }

  private static HttpResponse<byte[]> post(int port, String path, String type, byte[] body)
      throws Exception {
    return CLIENT.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .header("content-type", type)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build(),
        HttpResponse.BodyHandlers.ofByteArray());
  }

  @Test
  void connectJson_likeCurl_withTheDefaultProtocolsFromServiceLoader() throws Exception {
    int port = start(NettyServerBuilder.forPort(0));

    HttpResponse<byte[]> response =
        post(
            port,
            "/tern.web.test.WebTest/Echo",
            "application/json",
            "{\"text\":\"curl\"}".getBytes(UTF_8));

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
    assertThat(new String(response.body(), UTF_8)).isEqualTo("{\"text\":\"curl\"}");

    // The same connection (keep-alive) serves the next request, an error.
    HttpResponse<byte[]> error =
        post(
            port,
            "/tern.web.test.WebTest/Echo",
            "application/json",
            "{\"text\":\"fail\"}".getBytes(UTF_8));
    assertThat(error.statusCode()).isEqualTo(404);
    assertThat(new String(error.body(), UTF_8)).startsWith("{\"code\":\"not_found\"");
  }

  @Test
  void grpcWeb_serverStreamingAndGrpcOnTheSamePort() throws Exception {
    int port = start(NettyServerBuilder.forPort(0).httpProtocols(WebProtocols.builder().build()));
    byte[] request = EchoRequest.newBuilder().setText("s").setCount(3).build().toByteArray();

    HttpResponse<byte[]> response =
        post(
            port,
            "/tern.web.test.WebTest/Count",
            "application/grpc-web+proto",
            envelope(0, request));

    assertThat(response.statusCode()).isEqualTo(200);
    List<byte[]> frames = frames(response.body());
    assertThat(frames).hasSize(4);
    assertThat(EchoResponse.parseFrom(payload(frames.get(2))).getText()).isEqualTo("s 2");
    assertThat(frames.get(3)[0] & 0xFF).isEqualTo(0x80);
    assertThat(new String(payload(frames.get(3)), UTF_8)).isEqualTo("grpc-status:0\r\n");

    ManagedChannel channel =
        cleanup.register(NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build());
    EchoResponse grpc =
        WebTestTern.newBlockingStub(channel).echo(EchoRequest.newBuilder().setText("grpc").build());
    assertThat(grpc.getText()).isEqualTo("grpc");
  }

  @Test
  void connectStreaming_endsWithTheEndOfStreamMessage() throws Exception {
    int port = start(NettyServerBuilder.forPort(0).httpProtocols(WebProtocols.builder().build()));

    HttpResponse<byte[]> response =
        post(
            port,
            "/tern.web.test.WebTest/Count",
            "application/connect+json",
            envelope(0, "{\"text\":\"c\",\"count\":2}".getBytes(UTF_8)));

    assertThat(response.statusCode()).isEqualTo(200);
    List<byte[]> frames = frames(response.body());
    assertThat(frames).hasSize(3);
    assertThat(new String(payload(frames.get(1)), UTF_8)).isEqualTo("{\"text\":\"c 1\"}");
    assertThat(frames.get(2)[0]).isEqualTo((byte) 2);
  }

  @Test
  void cors_preflightAndResponseForAnAllowedOrigin_nothingForOthers() throws Exception {
    int port =
        start(
            NettyServerBuilder.forPort(0)
                .httpProtocols(
                    WebProtocols.builder().corsAllowedOrigins("http://app.test").build()));
    URI echo = URI.create("http://127.0.0.1:" + port + "/tern.web.test.WebTest/Echo");

    HttpResponse<byte[]> preflight =
        CLIENT.send(
            HttpRequest.newBuilder(echo)
                .header("origin", "http://app.test")
                .header("access-control-request-method", "POST")
                .header("access-control-request-headers", "content-type, x-custom")
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertThat(preflight.statusCode()).isEqualTo(204);
    assertThat(preflight.headers().firstValue("access-control-allow-origin"))
        .hasValue("http://app.test");
    assertThat(preflight.headers().firstValue("access-control-allow-headers").orElseThrow())
        .contains("x-custom", "connect-protocol-version", "x-grpc-web");

    HttpResponse<byte[]> allowed = postFrom(echo, "http://app.test", "fail");
    assertThat(allowed.statusCode()).isEqualTo(404);
    assertThat(allowed.headers().firstValue("access-control-allow-origin"))
        .hasValue("http://app.test");
    assertThat(allowed.headers().firstValue("access-control-expose-headers").orElseThrow())
        .contains("grpc-status", "trailer-x-trailer");

    HttpResponse<byte[]> other = postFrom(echo, "http://evil.test", "x");
    assertThat(other.statusCode()).isEqualTo(200);
    assertThat(other.headers().map().keySet())
        .noneMatch(name -> name.startsWith("access-control-"));
  }

  private static HttpResponse<byte[]> postFrom(URI uri, String origin, String text)
      throws Exception {
    return CLIENT.send(
        HttpRequest.newBuilder(uri)
            .header("content-type", "application/json")
            .header("origin", origin)
            .POST(HttpRequest.BodyPublishers.ofString("{\"text\":\"" + text + "\"}"))
            .build(),
        HttpResponse.BodyHandlers.ofByteArray());
  }

  static byte[] envelope(int flags, byte[] payload) {
    return ByteBuffer.allocate(5 + payload.length)
        .put((byte) flags)
        .putInt(payload.length)
        .put(payload)
        .array();
  }

  static List<byte[]> frames(byte[] body) {
    List<byte[]> frames = new ArrayList<>();
    ByteBuffer in = ByteBuffer.wrap(body);
    while (in.hasRemaining()) {
      int start = in.position();
      in.get();
      int length = in.getInt();
      in.position(in.position() + length);
      byte[] frame = new byte[5 + length];
      System.arraycopy(body, start, frame, 0, frame.length);
      frames.add(frame);
    }
    return frames;
  }

  static byte[] payload(byte[] frame) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(frame, 5, frame.length - 5);
    return out.toByteArray();
  }
}
