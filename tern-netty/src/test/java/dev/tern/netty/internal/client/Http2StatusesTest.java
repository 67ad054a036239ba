package dev.tern.netty.internal.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.netty.internal.codec.GrpcHttp2HeadersDecoder;
import dev.tern.netty.internal.codec.GrpcResponseHeaders;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import org.junit.jupiter.api.Test;

/** The client's statuses from response headers, fed by Netty's HPACK encoder and Tern's decoder. */
class Http2StatusesTest {
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

  @Test
  void responseTrailersCarryTheStatusApartFromTheMetadata() throws Http2Exception {
    Http2Headers sent =
        new DefaultHttp2Headers()
            .status("200")
            .add("content-type", "application/grpc")
            .add("grpc-status", "5")
            .add("grpc-message", "not %25 here%0A")
            .add("x-ascii", "detail");

    GrpcResponseHeaders decoded = (GrpcResponseHeaders) roundTrip(false, 8192, sent);
    Status status = Http2Statuses.fromTrailers(decoded);

    assertThat(status.getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(status.getDescription()).isEqualTo("not % here\n");
    Metadata trailers = decoded.toMetadata();
    assertThat(trailers.keys()).containsExactly("x-ascii");
  }

  @Test
  void missingGrpcStatusIsDerivedFromTheHttpStatus() throws Http2Exception {
    GrpcResponseHeaders notFound =
        (GrpcResponseHeaders) roundTrip(false, 8192, new DefaultHttp2Headers().status("404"));
    GrpcResponseHeaders ok =
        (GrpcResponseHeaders)
            roundTrip(
                false,
                8192,
                new DefaultHttp2Headers().status("200").add("content-type", "application/grpc"));
    GrpcResponseHeaders outOfRange =
        (GrpcResponseHeaders)
            roundTrip(
                false,
                8192,
                new DefaultHttp2Headers()
                    .status("200")
                    .add("content-type", "application/grpc")
                    .add("grpc-status", "17"));

    assertThat(Http2Statuses.fromTrailersOnly(notFound).getCode())
        .isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(Http2Statuses.fromTrailersOnly(ok).getCode()).isEqualTo(Status.Code.UNKNOWN);
    assertThat(Http2Statuses.fromTrailersOnly(outOfRange).getCode()).isEqualTo(Status.Code.UNKNOWN);
  }
}
