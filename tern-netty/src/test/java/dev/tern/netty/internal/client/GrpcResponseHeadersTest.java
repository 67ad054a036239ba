package dev.tern.netty.internal.client;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.Metadata;
import io.netty.util.AsciiString;
import org.junit.jupiter.api.Test;

class GrpcResponseHeadersTest {
  private static final Metadata.Key<String> TOKEN =
      Metadata.Key.of("x-token", Metadata.ASCII_STRING_MARSHALLER);

  @Test
  void trailersOfOnlyTheStatusGiveEmptyMetadataThatCanGrow() {
    GrpcResponseHeaders trailers = GrpcResponseHeaders.create();
    trailers.add(AsciiString.of("grpc-status"), AsciiString.of("0"));

    Metadata metadata = trailers.toMetadata();

    assertThat(trailers.grpcStatus().toString()).isEqualTo("0");
    assertThat(metadata.headerCount()).isZero();
    metadata.put(TOKEN, "added");
    assertThat(metadata.get(TOKEN)).isEqualTo("added");
  }

  @Test
  void metadataBesideTheReservedFieldsIsKeptInOrder() {
    GrpcResponseHeaders headers = GrpcResponseHeaders.create();
    headers.add(AsciiString.of(":status"), AsciiString.of("200"));
    headers.add(AsciiString.of("content-type"), AsciiString.of("application/grpc"));
    for (int i = 0; i < 6; i++) {
      headers.add(AsciiString.of("x-token"), AsciiString.of("v" + i));
    }

    Metadata metadata = headers.toMetadata();

    assertThat(headers.status().toString()).isEqualTo("200");
    assertThat(metadata.getAll(TOKEN)).containsExactly("v0", "v1", "v2", "v3", "v4", "v5");
  }

  @Test
  void resetEmptiesTheHolderForTheNextBlockAndLeavesTheMetadataHandedOut() {
    GrpcResponseHeaders holder = GrpcResponseHeaders.create();
    holder.add(AsciiString.of(":status"), AsciiString.of("200"));
    holder.add(AsciiString.of("content-type"), AsciiString.of("application/grpc"));
    holder.add(AsciiString.of("x-token"), AsciiString.of("first"));
    holder.add(AsciiString.of("x-trace-bin"), AsciiString.of("!not base64!"));
    Metadata first = holder.toMetadata();

    holder.reset();
    holder.add(AsciiString.of("grpc-status"), AsciiString.of("5"));
    Metadata second = holder.toMetadata();

    assertThat(holder.status()).isNull();
    assertThat(holder.contentType()).isNull();
    assertThat(holder.grpcMessage()).isNull();
    assertThat(holder.grpcStatus().toString()).isEqualTo("5");
    assertThat(holder.invalidBinaryHeader()).isNull();
    assertThat(second.headerCount()).isZero();
    assertThat(first.get(TOKEN)).isEqualTo("first");
  }

  @Test
  void theDecodersArraysGoIntoTheMetadataNeitherCopiedNorWrapped() {
    GrpcResponseHeaders headers = GrpcResponseHeaders.create();
    byte[] name = "server".getBytes(US_ASCII);
    byte[] value = "nghttpd nghttp2/1.52.0".getBytes(US_ASCII);
    headers.add(":status".getBytes(US_ASCII), "200".getBytes(US_ASCII));
    headers.add(name, value);

    byte[][] serialized = headers.toMetadata().toSerialized();

    assertThat(serialized.length).isEqualTo(2);
    assertThat(serialized[0]).isSameAs(name);
    assertThat(serialized[1]).isSameAs(value);
  }

  @Test
  void aReservedValueTheDecoderHandsOutAgainIsTheSameTextInTheNextBlock() {
    GrpcResponseHeaders holder = GrpcResponseHeaders.create();
    byte[] status = ":status".getBytes(US_ASCII);
    byte[] ok = "200".getBytes(US_ASCII);
    holder.add(status, ok);
    CharSequence first = holder.status();

    holder.reset();
    holder.add(status, ok);

    assertThat(first.toString()).isEqualTo("200");
    assertThat(holder.status()).isSameAs(first);
  }

  @Test
  void anUpperCaseNameIsRefusedNamingTheFieldAndTheIndex() {
    GrpcResponseHeaders headers = GrpcResponseHeaders.create();

    assertThatThrownBy(() -> headers.add("x-Token".getBytes(US_ASCII), "v".getBytes(US_ASCII)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("header name 'x-Token' has an invalid character at index 2");
  }

  @Test
  void aValueWithALineBreakIsRefusedNamingTheField() {
    GrpcResponseHeaders headers = GrpcResponseHeaders.create();

    assertThatThrownBy(() -> headers.add("x-token".getBytes(US_ASCII), "a\r\nb".getBytes(US_ASCII)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("value of header 'x-token' has a NUL, CR or LF at index 1");
    assertThat(headers.toMetadata().headerCount()).isZero();
  }
}
