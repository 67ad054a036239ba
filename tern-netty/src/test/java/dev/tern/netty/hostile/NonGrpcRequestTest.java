package dev.tern.netty.hostile;

import static dev.tern.netty.hostile.RawHttp2Connection.DATA;
import static dev.tern.netty.hostile.RawHttp2Connection.FLAG_END_HEADERS;
import static dev.tern.netty.hostile.RawHttp2Connection.FLAG_END_STREAM;
import static dev.tern.netty.hostile.RawHttp2Connection.HEADERS;
import static dev.tern.netty.hostile.RawHttp2Connection.WINDOW_UPDATE;
import static dev.tern.netty.hostile.RawHttp2Connection.frame;
import static dev.tern.netty.hostile.RawHttp2Connection.headerBlock;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netty.hostile.RawHttp2Connection.StreamEnd;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A request that is not gRPC at all (a browser's or an HTTP tool's GET, as h2spec's generic tests
 * send) gets its HTTP error with a short text body saying why, in DATA after the headers, and the
 * connection goes on serving calls.
 */
class NonGrpcRequestTest extends HostileServerBase {
  @Test
  void plainGetGets405WithATextBody() throws IOException {
    try (RawHttp2Connection raw = openRaw()) {
      raw.writeRaw(frame(HEADERS, FLAG_END_STREAM | FLAG_END_HEADERS, 1, headerBlock(get("/"))));
      // h2spec's generic/2/2: a WINDOW_UPDATE on the half-closed (remote) stream is accepted.
      raw.writeRaw(frame(WINDOW_UPDATE, 0, 1, ByteBuffer.allocate(4).putInt(1).array()));
      StreamEnd end = raw.awaitStreamEnd(1);

      assertThat(end.reset()).as("stream ended by %s", end.last()).isFalse();
      assertThat(end.headers()).containsEntry(":status", "405");
      assertThat(end.headers().get("content-type")).startsWith("text/plain");
      assertThat(end.headers()).containsEntry("grpc-status", "13");
      assertThat(end.last().type()).isEqualTo(DATA);
      assertThat(new String(end.data(), UTF_8)).isEqualTo("405 Method 'GET' is not supported\n");
    }
    assertThat(callsStartedByTest()).isZero();
    assertStillServingWellBehavedClient();
  }

  @Test
  void postWithAnotherContentTypeGets415WithATextBody() throws IOException {
    try (RawHttp2Connection raw = openRaw()) {
      List<String[]> headers = RawHttp2Connection.grpcRequestHeaders("/tern.testing.Echo/Unary");
      headers.set(4, new String[] {"content-type", "application/json"});
      raw.writeHeaders(1, false, headers);
      raw.writeData(1, true, "{}".getBytes(UTF_8));
      StreamEnd end = raw.awaitStreamEnd(1);

      assertThat(end.headers()).containsEntry(":status", "415");
      assertThat(new String(end.data(), UTF_8))
          .isEqualTo("415 Content-Type 'application/json' is not supported\n");
    }
    assertThat(callsStartedByTest()).isZero();
    assertStillServingWellBehavedClient();
  }

  private static List<String[]> get(String path) {
    List<String[]> headers = new ArrayList<>();
    headers.add(new String[] {":method", "GET"});
    headers.add(new String[] {":scheme", "http"});
    headers.add(new String[] {":path", path});
    headers.add(new String[] {":authority", "127.0.0.1"});
    return headers;
  }
}
