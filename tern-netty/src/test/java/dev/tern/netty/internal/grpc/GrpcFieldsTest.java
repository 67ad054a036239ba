package dev.tern.netty.internal.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Metadata;
import dev.tern.Status;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The header blocks {@link GrpcFields} builds: what the peer reads, field by field, in the wire
 * protocol's order.
 */
class GrpcFieldsTest {
  private static final Metadata.Key<String> ACCEPT =
      Metadata.Key.of("grpc-accept-encoding", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> CUSTOM =
      Metadata.Key.of("x-custom", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<byte[]> BINARY =
      Metadata.Key.of("x-data-bin", Metadata.BINARY_BYTE_MARSHALLER);

  /** The block as the HPACK encoder walks it: name=value in order. */
  private static List<String> walk(byte[][] fields) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < fields.length; i += 2) {
      out.add(ascii(fields[i]) + "=" + ascii(fields[i + 1]));
    }
    return out;
  }

  private static String ascii(byte[] bytes) {
    return new String(bytes, StandardCharsets.US_ASCII);
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  private static Metadata metadata(String accept) {
    Metadata md = new Metadata();
    md.put(ACCEPT, accept);
    return md;
  }

  @Test
  void responseHeadersCarryStatusContentTypeThenMetadataInOrder() {
    Metadata md = metadata("gzip");
    md.put(CUSTOM, "v");
    md.put(BINARY, new byte[] {1, 2, 3});

    assertThat(walk(GrpcFields.response(md)))
        .containsExactly(
            ":status=200",
            "content-type=application/grpc",
            "grpc-accept-encoding=gzip",
            "x-custom=v",
            "x-data-bin=AQID");
    assertThat(walk(GrpcFields.response(new Metadata())))
        .containsExactly(":status=200", "content-type=application/grpc");
  }

  @Test
  void aResponseBlockOfOneEntryIsSharedOnlyWhileTheEntryIsTheSame() {
    byte[][] first = GrpcFields.response(metadata("gzip"));
    assertThat(GrpcFields.response(metadata("gzip"))).isSameAs(first);

    byte[][] other = GrpcFields.response(metadata("deflate"));
    assertThat(other).isNotSameAs(first);
    assertThat(walk(other)).contains("grpc-accept-encoding=deflate");
    assertThat(walk(first)).contains("grpc-accept-encoding=gzip");
  }

  @Test
  void trailersCarryStatusMessageAndMetadata() {
    assertThat(walk(GrpcFields.trailers(Status.OK, new Metadata(), false)))
        .containsExactly("grpc-status=0");
    assertThat(GrpcFields.trailers(Status.OK, new Metadata(), false))
        .isSameAs(GrpcFields.trailers(Status.OK, new Metadata(), false));

    Metadata md = new Metadata();
    md.put(CUSTOM, "t");
    assertThat(walk(GrpcFields.trailers(Status.NOT_FOUND.withDescription("no 100%"), md, false)))
        .containsExactly("grpc-status=5", "grpc-message=no 100%25", "x-custom=t");
    assertThat(walk(GrpcFields.trailers(Status.UNAVAILABLE, new Metadata(), true)))
        .containsExactly(":status=200", "content-type=application/grpc", "grpc-status=14");
  }

  @Test
  void metadataCannotForgeTransportHeaders() {
    Metadata md = new Metadata();
    md.put(Metadata.Key.of("grpc-status", Metadata.ASCII_STRING_MARSHALLER), "0");
    md.put(Metadata.Key.of("content-type", Metadata.ASCII_STRING_MARSHALLER), "text/html");
    md.put(CUSTOM, "x");

    assertThat(walk(GrpcFields.trailers(Status.INTERNAL, md, false)))
        .containsExactly("grpc-status=13", "x-custom=x");
  }

  @Test
  void requestHeadersFollowTheWireOrderAndLeaveTransportHeadersToTheTransport() {
    Metadata md = new Metadata();
    md.put(CUSTOM, "c");
    md.put(Metadata.Key.of("user-agent", Metadata.ASCII_STRING_MARSHALLER), "forged");
    md.put(Metadata.Key.of("grpc-timeout", Metadata.ASCII_STRING_MARSHALLER), "1S");
    md.put(ACCEPT, "gzip");
    md.put(BINARY, new byte[] {1, 2, 3});

    assertThat(
            walk(
                GrpcFields.request(
                    ascii("http"), ascii("/pkg.S/M"), ascii("host:1"), ascii("tern/1"), md)))
        .containsExactly(
            ":method=POST",
            ":scheme=http",
            ":path=/pkg.S/M",
            ":authority=host:1",
            "te=trailers",
            "content-type=application/grpc",
            "user-agent=tern/1",
            "grpc-timeout=1S",
            "grpc-accept-encoding=gzip",
            "x-custom=c",
            "x-data-bin=AQID");
  }

  @Test
  void httpErrorsCarryTheirStatusContentTypeAndGrpcStatus() {
    assertThat(walk(GrpcFields.httpError(404, Status.UNIMPLEMENTED.withDescription("no"))))
        .containsExactly(
            ":status=404", "content-type=application/grpc", "grpc-status=12", "grpc-message=no");
    assertThat(walk(GrpcFields.httpErrorWithBody(415, Status.INTERNAL)))
        .containsExactly(":status=415", "content-type=text/plain; charset=utf-8", "grpc-status=13");
  }

  private static byte[][] requestWithTimeout(String timeout) {
    Metadata md = metadata("gzip");
    md.put(Metadata.Key.of("grpc-timeout", Metadata.ASCII_STRING_MARSHALLER), timeout);
    md.put(CUSTOM, "v");
    return GrpcFields.request(ascii("http"), ascii("/s/M"), ascii("h"), null, md);
  }

  @Test
  void aHeldStreamsTimeoutIsShortenedByItsWaitAndNothingElseChanges() {
    byte[][] fields = requestWithTimeout("1000m");
    List<String> before = walk(fields);

    GrpcFields.shortenTimeout(fields, 250_000_000L);

    List<String> after = walk(fields);
    assertThat(after).contains("grpc-timeout=750000u").doesNotContain("grpc-timeout=1000m");
    assertThat(after).hasSameSizeAs(before);
    after.remove("grpc-timeout=750000u");
    before.remove("grpc-timeout=1000m");
    assertThat(after).isEqualTo(before);
  }

  @Test
  void aWaitLongerThanTheTimeoutLeavesTheSmallestTimeoutAndNoneOrABadOneStayAsTheyAre() {
    byte[][] expired = requestWithTimeout("5m");
    GrpcFields.shortenTimeout(expired, 6_000_000L);
    assertThat(walk(expired)).contains("grpc-timeout=1n");

    byte[][] none =
        GrpcFields.request(ascii("http"), ascii("/s/M"), ascii("h"), null, metadata("gzip"));
    List<String> before = walk(none);
    GrpcFields.shortenTimeout(none, 1_000_000_000L);
    assertThat(walk(none)).isEqualTo(before).noneMatch(f -> f.startsWith("grpc-timeout"));

    // Not one the runtime wrote: it goes out unchanged, for the server to reject it.
    byte[][] bad = requestWithTimeout("soon");
    GrpcFields.shortenTimeout(bad, 1_000_000L);
    assertThat(walk(bad)).contains("grpc-timeout=soon");
  }
}
