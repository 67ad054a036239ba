package dev.tern.conformance;

import dev.tern.Metadata;
import dev.tern.conformance.v1.Header;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Converts between Tern's {@link Metadata} and the runner's {@link Header} lists. Values of binary
 * ({@code -bin}) keys are base64 in a Header, as Connect writes them on the wire: unpadded when
 * written, padded or not when read.
 *
 * <p>Stateless.
 */
final class HeaderLists {
  private HeaderLists() {}

  /** Every entry of {@code metadata}, one Header per key with its values in order. */
  static List<Header> fromMetadata(Metadata metadata) {
    List<Header> headers = new ArrayList<>();
    if (metadata == null) {
      return headers;
    }
    for (String name : metadata.keys()) {
      Header.Builder header = Header.newBuilder().setName(name);
      if (name.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
        for (byte[] value : metadata.getAll(binaryKey(name))) {
          header.addValue(Base64.getEncoder().withoutPadding().encodeToString(value));
        }
      } else {
        for (String value : metadata.getAll(asciiKey(name))) {
          header.addValue(value);
        }
      }
      headers.add(header.build());
    }
    return headers;
  }

  /**
   * Adds {@code headers} to {@code metadata}.
   *
   * @throws IllegalArgumentException if a name is not a valid metadata key or a {@code -bin} value
   *     is not base64
   */
  static void addTo(Metadata metadata, List<Header> headers) {
    for (Header header : headers) {
      String name = header.getName();
      if (name.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
        Metadata.Key<byte[]> key = binaryKey(name);
        for (String value : header.getValueList()) {
          metadata.put(key, Base64.getDecoder().decode(value));
        }
      } else {
        Metadata.Key<String> key = asciiKey(name);
        for (String value : header.getValueList()) {
          metadata.put(key, value);
        }
      }
    }
  }

  /** {@code headers} as new metadata; see {@link #addTo}. */
  static Metadata toMetadata(List<Header> headers) {
    Metadata metadata = new Metadata();
    addTo(metadata, headers);
    return metadata;
  }

  private static Metadata.Key<String> asciiKey(String name) {
    return Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER);
  }

  private static Metadata.Key<byte[]> binaryKey(String name) {
    return Metadata.Key.of(name, Metadata.BINARY_BYTE_MARSHALLER);
  }
}
