package dev.tern.netty.internal.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Metadata;
import dev.tern.Status;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The client's statuses from response headers, as the connection decodes them. */
class Http2StatusesTest {
  /** The block the connection's sink makes of {@code namesAndValues}, fed as HPACK hands fields. */
  private static GrpcResponseHeaders decoded(String... namesAndValues) {
    ResponseHeaderSink sink = new ResponseHeaderSink();
    sink.start();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      sink.header(
          namesAndValues[i].getBytes(StandardCharsets.US_ASCII),
          namesAndValues[i + 1].getBytes(StandardCharsets.US_ASCII),
          false);
    }
    assertThat(sink.malformed()).as("why the block is malformed").isNull();
    return sink.headers();
  }

  @Test
  void responseTrailersCarryTheStatusApartFromTheMetadata() {
    GrpcResponseHeaders decoded =
        decoded(
            ":status", "200",
            "content-type", "application/grpc",
            "grpc-status", "5",
            "grpc-message", "not %25 here%0A",
            "x-ascii", "detail");
    Status status = Http2Statuses.fromTrailers(decoded);

    assertThat(status.getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(status.getDescription()).isEqualTo("not % here\n");
    Metadata trailers = decoded.toMetadata();
    assertThat(trailers.keys()).containsExactly("x-ascii");
  }

  @Test
  void missingGrpcStatusIsDerivedFromTheHttpStatus() {
    GrpcResponseHeaders notFound = decoded(":status", "404");
    assertThat(Http2Statuses.fromTrailersOnly(notFound).getCode())
        .isEqualTo(Status.Code.UNIMPLEMENTED);
    GrpcResponseHeaders ok = decoded(":status", "200", "content-type", "application/grpc");
    assertThat(Http2Statuses.fromTrailersOnly(ok).getCode()).isEqualTo(Status.Code.UNKNOWN);
    GrpcResponseHeaders outOfRange =
        decoded(":status", "200", "content-type", "application/grpc", "grpc-status", "17");
    assertThat(Http2Statuses.fromTrailersOnly(outOfRange).getCode()).isEqualTo(Status.Code.UNKNOWN);
  }
}
