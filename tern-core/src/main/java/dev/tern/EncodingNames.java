package dev.tern;

import java.util.Objects;

/**
 * Checks message encoding names. Kept apart from the registries, which {@link CodecProviders} fills
 * while their classes initialise: checking a provider's name must not initialise them again.
 * Stateless; thread-safe.
 */
final class EncodingNames {
  private EncodingNames() {}

  /**
   * Checks that {@code encoding} can appear in a comma-separated {@code grpc-accept-encoding}
   * header: a non-empty HTTP token (RFC 9110 {@code tchar}s only).
   */
  static String check(String encoding) {
    Objects.requireNonNull(encoding, "getMessageEncoding()");
    if (encoding.isEmpty()) {
      throw new IllegalArgumentException("message encoding name is empty");
    }
    for (int i = 0; i < encoding.length(); i++) {
      if (!isTokenChar(encoding.charAt(i))) {
        throw new IllegalArgumentException(
            "message encoding name '" + encoding + "' has an invalid character at index " + i);
      }
    }
    return encoding;
  }

  private static boolean isTokenChar(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
  }
}
