package dev.tern.authz;

import dev.tern.Metadata;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;

/**
 * One {@code request.headers} entry of a rule, compiled: matches when the call carries the header
 * and its value matches one of the patterns. A header sent several times is matched as one value,
 * its values joined by {@code ","} (no space), as HTTP allows; a binary ({@code -bin}) header's
 * values are matched in their standard, padded base64 form.
 *
 * <p>Immutable; thread-safe.
 */
final class HeaderMatcher {
  private final Metadata.Key<String> asciiKey;
  private final Metadata.Key<byte[]> binaryKey;
  private final List<ValueMatcher> values;

  /**
   * @param key a valid, lower-case metadata key name that policies may use
   */
  HeaderMatcher(String key, List<ValueMatcher> values) {
    if (key.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
      this.asciiKey = null;
      this.binaryKey = Metadata.Key.of(key, Metadata.BINARY_BYTE_MARSHALLER);
    } else {
      this.asciiKey = Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER);
      this.binaryKey = null;
    }
    this.values = List.copyOf(values);
  }

  /** Whether {@code headers} carry this header with a matching value. */
  boolean matches(Metadata headers) {
    String value = asciiKey != null ? asciiValue(headers) : binaryValue(headers);
    if (value == null) {
      return false;
    }
    for (int i = 0; i < values.size(); i++) {
      if (values.get(i).matches(value)) {
        return true;
      }
    }
    return false;
  }

  private String asciiValue(Metadata headers) {
    Iterable<String> all = headers.getAll(asciiKey);
    if (all == null) {
      return null;
    }
    Iterator<String> it = all.iterator();
    String first = it.next();
    if (!it.hasNext()) {
      return first;
    }
    StringBuilder joined = new StringBuilder(first);
    while (it.hasNext()) {
      joined.append(',').append(it.next());
    }
    return joined.toString();
  }

  private String binaryValue(Metadata headers) {
    Iterable<byte[]> all = headers.getAll(binaryKey);
    if (all == null) {
      return null;
    }
    Base64.Encoder base64 = Base64.getEncoder();
    StringBuilder joined = new StringBuilder();
    boolean first = true;
    for (byte[] value : all) {
      if (!first) {
        joined.append(',');
      }
      first = false;
      joined.append(base64.encodeToString(value));
    }
    return joined.toString();
  }

  @Override
  public String toString() {
    return (asciiKey != null ? asciiKey.name() : binaryKey.name()) + "=" + values;
  }
}
