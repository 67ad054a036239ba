package dev.tern.web.internal;

import static dev.tern.web.internal.WebProtocolsHttp1Test.envelope;
import static dev.tern.web.internal.WebProtocolsHttp1Test.frames;
import static dev.tern.web.internal.WebProtocolsHttp1Test.payload;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.web.WebProtocols;
import dev.tern.web.test.EchoRequest;
import dev.tern.web.test.EchoResponse;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * gRPC-Web and Connect over cleartext HTTP/2 with prior knowledge, several calls per connection.
 */
class WebProtocolsHttp2Test {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @Test
  void connectAndGrpcWebOnOneH2cConnection() throws Exception {
    Server server =
        cleanup.register(
            NettyServerBuilder.forPort(0)
                .httpProtocols(WebProtocols.builder().build())
                .addService(new WebTestService())
                .build()
                .start());
    try (H2cClient client = new H2cClient(server.getPort())) {
      H2cClient.Response unary =
          client.post(
              "/tern.web.test.WebTest/Echo",
              "application/json",
              "{\"text\":\"h2\"}".getBytes(UTF_8));
      assertThat(unary.headers().status().toString()).isEqualTo("200");
      assertThat(new String(unary.body(), UTF_8)).isEqualTo("{\"text\":\"h2\"}");

      H2cClient.Response error =
          client.post(
              "/tern.web.test.WebTest/Echo",
              "application/json",
              "{\"text\":\"fail\"}".getBytes(UTF_8));
      assertThat(error.headers().status().toString()).isEqualTo("404");

      byte[] request = EchoRequest.newBuilder().setText("t").setCount(2).build().toByteArray();
      H2cClient.Response text =
          client.post(
              "/tern.web.test.WebTest/Count",
              "application/grpc-web-text",
              Base64.getEncoder().encode(envelope(0, request)));
      assertThat(text.headers().get("content-type").toString())
          .isEqualTo("application/grpc-web-text");
      List<byte[]> frames = frames(decodeChunks(text.body()));
      assertThat(frames).hasSize(3);
      assertThat(EchoResponse.parseFrom(payload(frames.get(1))).getText()).isEqualTo("t 1");
      assertThat(new String(payload(frames.get(2)), UTF_8)).isEqualTo("grpc-status:0\r\n");

      H2cClient.Response streaming =
          client.post(
              "/tern.web.test.WebTest/Count", "application/connect+proto", envelope(0, request));
      List<byte[]> connectFrames = frames(streaming.body());
      assertThat(connectFrames).hasSize(3);
      assertThat(connectFrames.get(2)[0]).isEqualTo((byte) 2);
    }
  }

  /** Decodes a body of independently padded base64 chunks, as gRPC-Web text responses are. */
  private static byte[] decodeChunks(byte[] body) {
    String text = new String(body, UTF_8);
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    int start = 0;
    for (int i = 0; i < text.length(); i += 4) {
      if (text.charAt(i + 3) == '=' || i + 4 == text.length()) {
        out.writeBytes(Base64.getDecoder().decode(text.substring(start, i + 4)));
        start = i + 4;
      }
    }
    return out.toByteArray();
  }
}
