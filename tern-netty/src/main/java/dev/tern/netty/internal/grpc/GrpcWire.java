package dev.tern.netty.internal.grpc;

import dev.tern.Metadata;
import dev.tern.internal.wire.Base64Codec;
import dev.tern.netty.internal.http2.Http2FrameException;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What client and server read off HTTP/2 the same way: whether a {@code content-type} is gRPC's,
 * and the name of an HTTP/2 error code for a status description.
 *
 * <p>Stateless; thread-safe.
 */
public final class GrpcWire {
  private static final byte[] BIN_SUFFIX =
      Metadata.BINARY_HEADER_SUFFIX.getBytes(StandardCharsets.US_ASCII);
  private static final AsciiString GRPC_CONTENT_TYPE = AsciiString.cached("application/grpc");

  private GrpcWire() {}

  /** The length of {@code application/grpc}, where a {@code +codec} or parameters begin. */
  public static int grpcContentTypeLength() {
    return GRPC_CONTENT_TYPE.length();
  }

  /**
   * Whether {@code contentType} is {@code application/grpc}, optionally {@code +suffix} or params.
   */
  public static boolean isGrpcContentType(CharSequence contentType) {
    if (contentType == null || contentType.length() < GRPC_CONTENT_TYPE.length()) {
      return false;
    }
    AsciiString ct = AsciiString.of(contentType).toLowerCase();
    if (!ct.startsWith(GRPC_CONTENT_TYPE)) {
      return false;
    }
    if (ct.length() == GRPC_CONTENT_TYPE.length()) {
      return true;
    }
    char next = ct.charAt(GRPC_CONTENT_TYPE.length());
    return next == '+' || next == ';';
  }

  /**
   * Whether {@code contentType} is one the server's gRPC path speaks: {@code application/grpc} or
   * {@code application/grpc+proto}, with or without parameters. Another codec ({@code +json},
   * {@code +foo}) would be misread as protobuf: such a request is offered to the protocols served
   * beside gRPC, or answered 415, as the gRPC protocol asks of a server that does not speak it.
   */
  public static boolean isServedGrpcContentType(CharSequence contentType) {
    if (!isGrpcContentType(contentType)) {
      return false;
    }
    int plus = GRPC_CONTENT_TYPE.length();
    if (contentType.length() == plus || contentType.charAt(plus) == ';') {
      return true;
    }
    int end = plus + 1;
    while (end < contentType.length() && contentType.charAt(end) != ';') {
      end++;
    }
    return AsciiString.contentEqualsIgnoreCase(
        contentType.subSequence(plus + 1, end).toString().trim(), "proto");
  }

  /** The name of an HTTP/2 error code, or its hex value if unknown. */
  public static String errorName(long errorCode) {
    return Http2FrameException.errorName(errorCode);
  }

  /**
   * The bytes of {@code s}: the backing array itself when an {@link AsciiString} spans all of it,
   * otherwise a copy of exactly its range (never the rest of a shared array).
   */
  public static byte[] bytes(CharSequence s) {
    if (s instanceof AsciiString) {
      AsciiString a = (AsciiString) s;
      return a.isEntireArrayUsed() ? a.array() : a.toByteArray();
    }
    return s.toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  /**
   * The first {@code entries} names and values of a metadata array ({@link
   * Metadata#fromSerialized}'s layout, binary values decoded) as text, for a protocol that is not
   * gRPC.
   */
  public static List<Map.Entry<String, String>> textEntries(byte[][] namesAndValues, int entries) {
    List<Map.Entry<String, String>> out = new ArrayList<>(entries);
    for (int i = 0; i < entries; i++) {
      byte[] name = namesAndValues[2 * i];
      byte[] value = namesAndValues[2 * i + 1];
      String text =
          isBinaryName(name)
              ? new String(Base64Codec.encodeBase64NoPadding(value), StandardCharsets.US_ASCII)
              : new String(value, StandardCharsets.ISO_8859_1); // as HTTP/1.1's decoder reads them
      out.add(Map.entry(new String(name, StandardCharsets.US_ASCII), text));
    }
    return out;
  }

  /** Whether {@code name} ends in {@code -bin}: its values are binary, base64 on the wire. */
  public static boolean isBinaryName(byte[] name) {
    int n = name.length - BIN_SUFFIX.length;
    if (n < 0) {
      return false;
    }
    for (int i = 0; i < BIN_SUFFIX.length; i++) {
      if (name[n + i] != BIN_SUFFIX[i]) {
        return false;
      }
    }
    return true;
  }
}
