package dev.tern.netty.internal.http2;

/**
 * Receives the header fields {@link HpackDecoder} decodes, one at a time and in block order, so the
 * transport can put them straight into gRPC's metadata and recognise pseudo-headers without making
 * Strings.
 *
 * <p>The arrays may be shared with the decoder's tables (a name from the static table, a name or
 * value from the dynamic table): the sink may keep them but must never modify them. Ordering rules
 * (pseudo-headers before regular ones, no unknown pseudo-header, lower-case names) are the
 * caller's: {@link #isPseudoHeader} tells a pseudo-header apart.
 */
@FunctionalInterface
public interface HeaderSink {
  /**
   * One header field.
   *
   * @param sensitive it came as "never indexed" (RFC 7541 section 6.2.3): whoever forwards it must
   *     keep it out of compression tables too
   * @throws HpackException to stop decoding, for example a stream error the sink found
   */
  void header(byte[] name, byte[] value, boolean sensitive) throws HpackException;

  /** Whether {@code name} is a pseudo-header field's (it starts with a colon). */
  static boolean isPseudoHeader(byte[] name) {
    return name.length > 0 && name[0] == ':';
  }
}
