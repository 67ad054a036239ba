package dev.tern.netty.internal.server;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Metadata;
import org.junit.jupiter.api.Test;

/** The request header checks of RFC 9113 section 8 on Tern's engine, field by field. */
class RequestHeadersTest {
  private static final Metadata.Key<String> USER =
      Metadata.Key.of("x-user", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<byte[]> TRACE =
      Metadata.Key.of("x-trace-bin", Metadata.BINARY_BYTE_MARSHALLER);

  private static RequestHeaders request(String... fields) {
    RequestHeaders headers = new RequestHeaders(false);
    for (int i = 0; i < fields.length; i += 2) {
      headers.header(fields[i].getBytes(US_ASCII), fields[i + 1].getBytes(US_ASCII), false);
    }
    headers.finishRequest();
    return headers;
  }

  private static String[] grpcRequestWith(String... extra) {
    String[] base = {
      ":method",
      "POST",
      ":scheme",
      "http",
      ":path",
      "/pkg.Svc/Call",
      ":authority",
      "example",
      "content-type",
      "application/grpc",
      "te",
      "trailers"
    };
    String[] all = new String[base.length + extra.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(extra, 0, all, base.length, extra.length);
    return all;
  }

  @Test
  void aGrpcRequestDecodesIntoMetadataWithoutItsPseudoAndTransportFields() {
    RequestHeaders headers =
        request(grpcRequestWith("x-user", "ada", "x-trace-bin", "AQID", "content-length", "5"));

    assertThat(headers.malformed()).isNull();
    assertThat(headers.isPost()).isTrue();
    assertThat(headers.path().toString()).isEqualTo("/pkg.Svc/Call");
    assertThat(headers.authority()).isEqualTo("example");
    assertThat(headers.contentType().toString()).isEqualTo("application/grpc");
    assertThat(headers.contentLength()).isEqualTo(5);
    Metadata metadata = headers.toMetadata();
    assertThat(metadata.get(USER)).isEqualTo("ada");
    assertThat(metadata.get(TRACE)).containsExactly(1, 2, 3);
    assertThat(metadata.keys()).containsExactlyInAnyOrder("x-user", "x-trace-bin");
  }

  @Test
  void badBase64IsReportedForTheCallNotAsAMalformedRequest() {
    RequestHeaders headers = request(grpcRequestWith("x-trace-bin", "!!"));

    assertThat(headers.malformed()).isNull();
    assertThat(headers.invalidBinaryHeader()).contains("x-trace-bin");
  }

  @Test
  void eachMalformedRequestSaysWhy() {
    assertThat(request(grpcRequestWith("X-User", "ada")).malformed())
        .isEqualTo("header name 'X-User' is not a lower-case token");
    assertThat(request(grpcRequestWith("connection", "keep-alive")).malformed())
        .isEqualTo("connection-specific header 'connection'");
    assertThat(request(grpcRequestWith("transfer-encoding", "chunked")).malformed())
        .isEqualTo("connection-specific header 'transfer-encoding'");
    assertThat(request(grpcRequestWith("te", "gzip")).malformed())
        .isEqualTo("te other than 'trailers': 'gzip'");
    assertThat(request(grpcRequestWith(":path", "/again")).malformed())
        .isEqualTo("pseudo-header ':path' after a regular header");
    assertThat(request(grpcRequestWith("x-bad", "a\r\nb")).malformed())
        .isEqualTo("value of 'x-bad' has a NUL, CR or LF");
    assertThat(request(grpcRequestWith("content-length", "12a")).malformed())
        .isEqualTo("content-length is not a number: '12a'");
    assertThat(
            request(":method", "POST", ":method", "GET", ":scheme", "http", ":path", "/a/b")
                .malformed())
        .isEqualTo("duplicate pseudo-header ':method'");
    assertThat(
            request(":status", "200", ":method", "POST", ":scheme", "http", ":path", "/a/b")
                .malformed())
        .isEqualTo("':status' is not a request pseudo-header");
    assertThat(request(":method", "POST", ":scheme", "http").malformed())
        .isEqualTo("missing or empty :method, :scheme or :path");
    assertThat(request(":method", "POST", ":scheme", "http", ":path", "").malformed())
        .isEqualTo("missing or empty :method, :scheme or :path");
  }

  @Test
  void theFirstProblemIsKeptAndLaterFieldsAreIgnored() {
    RequestHeaders headers = request(grpcRequestWith("Upper", "x", "connection", "close"));

    assertThat(headers.malformed()).isEqualTo("header name 'Upper' is not a lower-case token");
  }

  @Test
  void trailersMayHoldNoPseudoHeaderAndTheirFieldsAreDropped() {
    RequestHeaders trailers = new RequestHeaders(true);
    trailers.header("x-checksum".getBytes(US_ASCII), "1".getBytes(US_ASCII), false);
    assertThat(trailers.malformed()).isNull();
    assertThat(trailers.toMetadata().headerCount()).isZero();

    RequestHeaders pseudo = new RequestHeaders(true);
    pseudo.header(":path".getBytes(US_ASCII), "/a/b".getBytes(US_ASCII), false);
    assertThat(pseudo.malformed()).isEqualTo("pseudo-header ':path' in trailers");
  }
}
