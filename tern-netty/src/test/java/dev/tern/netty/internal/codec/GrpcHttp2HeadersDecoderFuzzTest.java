package dev.tern.netty.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tern.Metadata;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Fuzzes {@link GrpcHttp2HeadersDecoder} with arbitrary HPACK header blocks, several in a row on
 * one decoder (so the dynamic table carries over), as a hostile peer would send them. Each block
 * either decodes into Tern's holder, whose metadata has only valid header names, no ASCII value
 * with NUL, CR or LF (RFC 9113 calls such a message malformed) and no more bytes than the
 * header-list limit allows, or fails with an {@link Http2Exception} (a stream error, or a
 * connection error after which the connection, and so this decoder, is gone); never any other
 * exception. See docs/fuzzing.md for long runs.
 */
class GrpcHttp2HeadersDecoderFuzzTest {

  @FuzzTest
  void decodesIntoMetadataOrFailsWithAnHttp2Exception(FuzzedDataProvider data) {
    boolean server = data.consumeBoolean();
    int maxHeaderListSize = data.consumeInt(1, 16 * 1024);
    int blocks = data.consumeInt(1, 4);
    int[] sizes = new int[blocks - 1];
    for (int i = 0; i < sizes.length; i++) {
      sizes[i] = data.consumeInt(0, 256);
    }
    byte[] input = data.consumeRemainingAsBytes();

    GrpcHttp2HeadersDecoder decoder = new GrpcHttp2HeadersDecoder(server, maxHeaderListSize);
    int offset = 0;
    for (int i = 0; i < blocks; i++) {
      int size =
          i < sizes.length ? Math.min(sizes[i], input.length - offset) : input.length - offset;
      ByteBuf block = Unpooled.wrappedBuffer(Arrays.copyOfRange(input, offset, offset + size));
      offset += size;
      Http2Headers headers;
      try {
        headers = decoder.decodeHeaders(2 * i + 1, block);
      } catch (Http2Exception e) {
        assertThat(e.getMessage()).as("Http2Exception message").isNotBlank();
        if (!(e instanceof Http2Exception.StreamException)) {
          return; // a connection error: the peer is cut off, nothing more is decoded
        }
        continue;
      } finally {
        block.release();
      }
      checkHeaders(server, maxHeaderListSize, headers);
    }
  }

  private static void checkHeaders(boolean server, int maxHeaderListSize, Http2Headers headers) {
    assertThat(headers).isInstanceOf(server ? GrpcRequestHeaders.class : GrpcResponseHeaders.class);
    GrpcInboundHeaders inbound = (GrpcInboundHeaders) headers;
    int entries = inbound.metadataCount();
    assertThat(entries).as("metadata entries").isLessThanOrEqualTo(Math.max(maxHeaderListSize, 0));
    Metadata metadata = inbound.toMetadata();
    byte[][] namesAndValues = metadata.toSerialized();
    assertThat(namesAndValues.length).isEqualTo(2 * entries);
    // Bytes held: every value, and every distinct name array (a comma-separated -bin value shares
    // its name between its elements).
    long held = 0;
    Map<byte[], Boolean> names = new IdentityHashMap<>();
    for (int i = 0; i < entries; i++) {
      byte[] name = namesAndValues[2 * i];
      assertThat(name.length).as("name length").isPositive();
      for (byte b : name) {
        int c = b & 0xFF;
        assertThat(c > 0x20 && c < 0x7F && c != ':' && (c < 'A' || c > 'Z'))
            .as("name %s has only lower-case token characters", Arrays.toString(name))
            .isTrue();
      }
      if (names.put(name, Boolean.TRUE) == null) {
        held += name.length;
      }
      byte[] value = namesAndValues[2 * i + 1];
      held += value.length;
      if (!endsWithBin(name)) {
        for (byte b : value) {
          assertThat(b == 0 || b == '\r' || b == '\n')
              .as(
                  "value %s of %s has a NUL, CR or LF",
                  Arrays.toString(value), Arrays.toString(name))
              .isFalse();
        }
      }
    }
    assertThat(held).as("bytes held by the metadata").isLessThanOrEqualTo(maxHeaderListSize);
  }

  private static boolean endsWithBin(byte[] name) {
    return new String(name, StandardCharsets.ISO_8859_1).endsWith(Metadata.BINARY_HEADER_SUFFIX);
  }
}
