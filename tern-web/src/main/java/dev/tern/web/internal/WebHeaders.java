package dev.tern.web.internal;

import dev.tern.Metadata;
import dev.tern.internal.wire.Base64Codec;
import dev.tern.netty.http.HttpRequestHead;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * Between HTTP header fields and {@link Metadata}: the request's headers become the call's metadata
 * (minus the protocol's own headers), and response metadata becomes header fields ({@code -bin}
 * values base64 without padding). Stateless; thread-safe.
 */
final class WebHeaders {
  /** Request headers that are HTTP's or the transport's, never the application's metadata. */
  private static final Set<String> HTTP_ONLY =
      Set.of("content-type", "content-length", "te", "accept", "accept-encoding", "expect");

  private WebHeaders() {}

  /**
   * The call's metadata from {@code request}'s headers, without those in {@code protocolHeaders} or
   * {@link #HTTP_ONLY}, and without any {@code grpc-} header (the protocol adds the reserved ones
   * it translated, with {@link Metadata#put}).
   *
   * @throws IllegalArgumentException if a {@code -bin} header is not valid base64
   */
  static Metadata requestMetadata(HttpRequestHead request, Set<String> protocolHeaders) {
    List<byte[]> entries = new ArrayList<>();
    for (Map.Entry<String, String> header : request.allHeaders()) {
      String name = header.getKey();
      if (name.startsWith(":")
          || name.startsWith("grpc-")
          || HTTP_ONLY.contains(name)
          || protocolHeaders.contains(name)) {
        continue;
      }
      byte[] asciiName = name.getBytes(StandardCharsets.US_ASCII);
      if (name.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
        // Several values may share one field, comma-separated, each base64 padded or not.
        for (String element : header.getValue().split(",", -1)) {
          byte[] raw = element.trim().getBytes(StandardCharsets.US_ASCII);
          entries.add(asciiName);
          entries.add(Base64Codec.decodeBase64(raw, 0, raw.length));
        }
      } else {
        entries.add(asciiName);
        entries.add(header.getValue().getBytes(StandardCharsets.ISO_8859_1));
      }
    }
    byte[][] namesAndValues = entries.toArray(new byte[0][]);
    return Metadata.fromSerialized(namesAndValues, namesAndValues.length / 2);
  }

  /**
   * Calls {@code sink} with each entry of {@code metadata} as a header name and value ({@code -bin}
   * values base64-encoded), skipping names in {@code skip}.
   */
  static void forEach(Metadata metadata, Set<String> skip, BiConsumer<String, String> sink) {
    byte[][] md = metadata.toSerialized();
    int count = metadata.headerCount();
    for (int i = 0; i < count; i++) {
      String name = new String(md[2 * i], StandardCharsets.US_ASCII);
      if (name.startsWith(":") || skip.contains(name)) {
        continue;
      }
      byte[] value = md[2 * i + 1];
      String text =
          name.endsWith(Metadata.BINARY_HEADER_SUFFIX)
              ? new String(Base64Codec.encodeBase64NoPadding(value), StandardCharsets.US_ASCII)
              : new String(value, StandardCharsets.ISO_8859_1);
      sink.accept(name, text);
    }
  }

  /** The names of {@code metadata}'s entries not in {@code skip}, each once, in order. */
  static List<String> names(Metadata metadata, Set<String> skip) {
    List<String> names = new ArrayList<>();
    forEach(
        metadata,
        skip,
        (name, value) -> {
          if (!names.contains(name)) {
            names.add(name);
          }
        });
    return names;
  }

  /** The media type of a {@code content-type} value: lower-case, without parameters; "" if null. */
  static String mediaType(String contentType) {
    if (contentType == null) {
      return "";
    }
    int semicolon = contentType.indexOf(';');
    String type = semicolon < 0 ? contentType : contentType.substring(0, semicolon);
    return type.trim().toLowerCase(java.util.Locale.ROOT);
  }
}
