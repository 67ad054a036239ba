package dev.tern.netty.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.Metadata;
import dev.tern.internal.wire.GrpcHeaders;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.Test;

/** Tern's inbound header holders, fed by Netty's real HPACK encoder and decoder. */
class GrpcHttp2HeadersDecoderTest {
  private static final Metadata.Key<String> ASCII =
      Metadata.Key.of("x-ascii", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<byte[]> BINARY =
      Metadata.Key.of("x-data-bin", Metadata.BINARY_BYTE_MARSHALLER);

  /** Encodes {@code headers} with HPACK and decodes the block with Tern's decoder. */
  private static Http2Headers roundTrip(
      boolean server, long maxHeaderListSize, Http2Headers headers) throws Http2Exception {
    ByteBuf block = Unpooled.buffer();
    try {
      new DefaultHttp2HeadersEncoder().encodeHeaders(3, headers, block);
      return new GrpcHttp2HeadersDecoder(server, maxHeaderListSize).decodeHeaders(3, block);
    } finally {
      block.release();
    }
  }

  private static Http2Headers request() {
    return new DefaultHttp2Headers()
        .method("POST")
        .scheme("http")
        .path("/pkg.Service/Method")
        .authority("example.com:443");
  }

  @Test
  void requestKeepsPseudoAndTransportHeadersOutOfTheMetadata() throws Http2Exception {
    Http2Headers sent =
        request()
            .add("te", "trailers")
            .add("content-type", "application/grpc")
            .add("user-agent", "test/1.0")
            .add("grpc-timeout", "100m")
            .add("x-ascii", "value");

    GrpcRequestHeaders decoded = (GrpcRequestHeaders) roundTrip(true, 8192, sent);

    assertThat(decoded.method().toString()).isEqualTo("POST");
    assertThat(decoded.path().toString()).isEqualTo("/pkg.Service/Method");
    assertThat(decoded.authority().toString()).isEqualTo("example.com:443");
    assertThat(decoded.scheme().toString()).isEqualTo("http");
    assertThat(decoded.te().toString()).isEqualTo("trailers");
    assertThat(decoded.contentType().toString()).isEqualTo("application/grpc");
    Metadata metadata = decoded.toMetadata();
    assertThat(metadata.keys()).containsExactly("user-agent", "grpc-timeout", "x-ascii");
    assertThat(metadata.get(GrpcHeaders.TIMEOUT)).isEqualTo("100m");
    assertThat(metadata.get(ASCII)).isEqualTo("value");
  }

  @Test
  void theHeadersReadViewNettysDecoderUsesSeesTheMetadataEntries() throws Http2Exception {
    Http2Headers decoded =
        roundTrip(
            true,
            8192,
            request()
                .add("content-type", "application/grpc")
                .add("x-ascii", "one")
                .add("x-other", "two")
                .add("x-ascii", "three"));

    assertThat(decoded.get("x-other").toString()).isEqualTo("two");
    assertThat(decoded.get("x-absent")).isNull();
    assertThat(decoded.get("x-ascii").toString()).isEqualTo("one");
    assertThat(decoded.getAll("x-ascii"))
        .extracting(CharSequence::toString)
        .containsExactly("one", "three");
    assertThat(decoded.getAll("content-length")).isEmpty();
    List<String> walked = new ArrayList<>();
    Iterator<Map.Entry<CharSequence, CharSequence>> it = decoded.iterator();
    while (it.hasNext()) {
      Map.Entry<CharSequence, CharSequence> e = it.next();
      walked.add(e.getKey() + "=" + e.getValue());
    }
    assertThat(walked).containsExactly("x-ascii=one", "x-other=two", "x-ascii=three");
    assertThatThrownBy(it::next).isInstanceOf(NoSuchElementException.class);
  }

  @Test
  void setLongReplacesEveryValueOfTheName() throws Http2Exception {
    GrpcRequestHeaders decoded =
        (GrpcRequestHeaders)
            roundTrip(
                true,
                8192,
                request()
                    .add("content-length", "0012")
                    .add("x-ascii", "kept")
                    .add("content-length", "12"));

    decoded.setLong("content-length", 12);

    assertThat(decoded.getAll("content-length"))
        .extracting(CharSequence::toString)
        .containsExactly("12");
    Metadata metadata = decoded.toMetadata();
    assertThat(metadata.get(ASCII)).isEqualTo("kept");
    assertThat(metadata.headerCount()).isEqualTo(2);
  }

  @Test
  void setLongKeepsAnAlreadyNormalValueAndRewritesOneWithLeadingZeros() throws Http2Exception {
    GrpcRequestHeaders normal =
        (GrpcRequestHeaders) roundTrip(true, 8192, request().add("content-length", "5"));
    GrpcRequestHeaders padded =
        (GrpcRequestHeaders) roundTrip(true, 8192, request().add("content-length", "05"));
    GrpcRequestHeaders other =
        (GrpcRequestHeaders) roundTrip(true, 8192, request().add("content-length", "6"));

    normal.setLong("content-length", 5);
    padded.setLong("content-length", 5);
    other.setLong("content-length", 5);

    for (GrpcRequestHeaders headers : List.of(normal, padded, other)) {
      assertThat(headers.getAll("content-length"))
          .extracting(CharSequence::toString)
          .containsExactly("5");
      assertThat(headers.toMetadata().headerCount()).isEqualTo(1);
    }
  }

  @Test
  void binaryValuesAreDecodedPaddedUnpaddedAndCommaSeparated() throws Http2Exception {
    Http2Headers sent =
        request()
            .add("x-data-bin", "AAH/") // 3 bytes, no padding needed
            .add("x-data-bin", "AAE") // 2 bytes, unpadded
            .add("x-data-bin", "AA==,/w"); // two elements: padded, then unpadded

    Metadata metadata = ((GrpcRequestHeaders) roundTrip(true, 8192, sent)).toMetadata();

    assertThat(metadata.getAll(BINARY))
        .containsExactly(new byte[] {0, 1, -1}, new byte[] {0, 1}, new byte[] {0}, new byte[] {-1});
  }

  @Test
  void invalidBase64IsReportedNotThrown() throws Http2Exception {
    Http2Headers sent = request().add("x-data-bin", "not base64!");

    GrpcRequestHeaders decoded = (GrpcRequestHeaders) roundTrip(true, 8192, sent);

    assertThat(decoded.invalidBinaryHeader()).contains("x-data-bin");
    assertThat(decoded.toMetadata().get(BINARY)).isNull();
  }

  @Test
  void valuesThatAreViewsIntoALargerArrayAreCopiedExactly() {
    byte[] shared = "xxx-ascii:hello world;x-data-bin=AAH/rest".getBytes(StandardCharsets.US_ASCII);
    GrpcRequestHeaders headers = new GrpcRequestHeaders(4);

    headers.add(new AsciiString(shared, 2, 7, false), new AsciiString(shared, 10, 5, false));
    headers.add(new AsciiString(shared, 22, 10, false), new AsciiString(shared, 33, 4, false));

    Metadata metadata = headers.toMetadata();
    assertThat(metadata.keys()).containsExactly("x-ascii", "x-data-bin");
    assertThat(metadata.get(ASCII)).isEqualTo("hello");
    assertThat(metadata.get(BINARY)).isEqualTo(new byte[] {0, 1, -1});
    byte[][] serialized = metadata.toSerialized();
    assertThat(serialized[0]).isNotSameAs(shared).hasSize(7);
    assertThat(serialized[1]).hasSize(5);
  }

  /** Also checked by GrpcHttp2HeadersDecoderFuzzTest (seeds value-with-nul, value-with-cr-lf). */
  @Test
  void aValueWithNulCrOrLfFailsTheStreamAndNeverReachesTheMetadata() {
    for (String value : new String[] {"a\u0000b", "a\r\nx-injected: 1", "\n"}) {
      for (boolean server : new boolean[] {true, false}) {
        // Unvalidated, as a hostile peer's encoder would be.
        Http2Headers sent = new DefaultHttp2Headers(false);
        if (server) {
          sent.method("POST").scheme("http").path("/pkg.Service/Method").authority("example.com");
        } else {
          sent.status("200");
        }
        sent.add("x-ascii", AsciiString.of(value));

        assertThatThrownBy(() -> roundTrip(server, 8192, sent))
            .as("value %s, server %s", value.replace("\r", "\\r").replace("\n", "\\n"), server)
            .isInstanceOf(Http2Exception.StreamException.class)
            .hasMessageContaining("x-ascii")
            .satisfies(
                e -> {
                  Http2Exception.StreamException stream = (Http2Exception.StreamException) e;
                  assertThat(stream.streamId()).isEqualTo(3);
                  assertThat(stream.error()).isEqualTo(Http2Error.PROTOCOL_ERROR);
                });
      }
    }
  }

  @Test
  void headerListOverTheLimitFailsTheStreamOnly() {
    Http2Headers sent = request().add("x-ascii", "a".repeat(2000));

    assertThatThrownBy(() -> roundTrip(true, 1024, sent))
        .isInstanceOf(Http2Exception.HeaderListSizeException.class)
        .satisfies(e -> assertThat(((Http2Exception.StreamException) e).streamId()).isEqualTo(3));
  }

  @Test
  void mutatorsTheDecoderNeverCallsSayWhy() {
    GrpcRequestHeaders headers = new GrpcRequestHeaders(1);

    assertThatThrownBy(() -> headers.set("x-ascii", "v"))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("GrpcRequestHeaders is append-only")
        .hasMessageContaining("set()");
  }
}
