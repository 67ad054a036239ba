package dev.tern.internal.resolver;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The text of a DNS TXT record. Its data (RFC 1035, section 3.3.14) is one or more
 * character-strings, each a length byte and up to 255 bytes, because no one string may be longer; a
 * longer text is split over several strings, so the record's text is their concatenation. gRPC
 * reads that text as UTF-8.
 *
 * <p>Stateless; thread-safe.
 */
public final class TxtRecords {
  private TxtRecords() {}

  /**
   * The character-strings of a TXT record's data, in order.
   *
   * @throws IllegalArgumentException if a string's length byte says more than the data holds
   */
  public static List<byte[]> characterStrings(byte[] rdata) {
    Objects.requireNonNull(rdata, "rdata");
    List<byte[]> strings = new ArrayList<>();
    int position = 0;
    while (position < rdata.length) {
      int length = rdata[position] & 0xff;
      int start = position + 1;
      if (length > rdata.length - start) {
        throw new IllegalArgumentException(
            "malformed TXT record: a character-string of "
                + length
                + " bytes at offset "
                + position
                + " runs past the end of the "
                + rdata.length
                + "-byte record");
      }
      byte[] string = new byte[length];
      System.arraycopy(rdata, start, string, 0, length);
      strings.add(string);
      position = start + length;
    }
    return strings;
  }

  /**
   * The text of a TXT record's data: its character-strings concatenated, as UTF-8.
   *
   * @throws IllegalArgumentException if the data is malformed (see {@link #characterStrings})
   */
  public static String text(byte[] rdata) {
    ByteArrayOutputStream text = new ByteArrayOutputStream(rdata.length);
    for (byte[] string : characterStrings(rdata)) {
      text.writeBytes(string);
    }
    return text.toString(UTF_8);
  }

  /**
   * The text of a TXT record as the JDK's JNDI DNS provider presents it: each character-string one
   * char per byte, separated by a space; a string that is empty or holds a space, a quote or a
   * backslash is put in quotes, with each quote and backslash in it preceded by a backslash.
   * Returns the strings concatenated, as UTF-8.
   */
  static String fromJndi(String presented) {
    Objects.requireNonNull(presented, "presented");
    ByteArrayOutputStream text = new ByteArrayOutputStream(presented.length());
    int i = 0;
    int end = presented.length();
    while (i < end) {
      char c = presented.charAt(i);
      if (c == ' ') {
        i++; // between two strings
      } else if (c == '"') {
        for (i++; i < end && presented.charAt(i) != '"'; i++) {
          if (presented.charAt(i) == '\\' && i + 1 < end) {
            i++;
          }
          text.write(presented.charAt(i));
        }
        i++; // the closing quote
      } else {
        for (; i < end && presented.charAt(i) != ' '; i++) {
          text.write(presented.charAt(i));
        }
      }
    }
    return text.toString(UTF_8);
  }
}
