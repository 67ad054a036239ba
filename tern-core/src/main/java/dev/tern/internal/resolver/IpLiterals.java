package dev.tern.internal.resolver;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Recognises a host that is written as an IP address, which needs no lookup: four dotted decimal
 * numbers of 0 to 255 without leading zeros (IPv4), or anything with a colon (IPv6: a host name has
 * none). Other spellings the JDK would also take as numbers ({@code 127.1}, {@code 010.0.0.1}) are
 * left to the lookup, which treats them as the JDK does.
 *
 * <p>Thread-safe: stateless.
 */
final class IpLiterals {
  private IpLiterals() {}

  /** The address {@code host} spells, or null if it is not written as one (or is malformed). */
  static InetAddress parse(String host) {
    if (host.indexOf(':') < 0 && !isDottedQuad(host)) {
      return null;
    }
    try {
      // For a literal the JDK checks the format only: no name service is asked.
      return InetAddress.getByName(host);
    } catch (UnknownHostException | SecurityException e) {
      return null; // malformed: the lookup reports it as for any other name
    }
  }

  private static boolean isDottedQuad(String host) {
    int parts = 0;
    int i = 0;
    int n = host.length();
    while (i <= n) {
      int start = i;
      int value = 0;
      while (i < n && host.charAt(i) >= '0' && host.charAt(i) <= '9') {
        value = value * 10 + (host.charAt(i) - '0');
        i++;
        if (i - start > 3) {
          return false;
        }
      }
      int digits = i - start;
      if (digits == 0 || value > 255 || (digits > 1 && host.charAt(start) == '0')) {
        return false;
      }
      parts++;
      if (i == n) {
        return parts == 4;
      }
      if (host.charAt(i) != '.' || parts == 4) {
        return false;
      }
      i++;
    }
    return false;
  }
}
