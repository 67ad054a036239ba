package dev.tern.internal;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Recognises a host written as an IP address, without ever asking the name service: four dotted
 * decimal numbers of 0 to 255 without leading zeros (IPv4), or hex digits, dots and colons with at
 * least one colon (IPv6, no zone). Only those are handed to {@link InetAddress#getByName}, which
 * then parses them (a malformed IPv6 address fails there without a lookup). Other spellings the JDK
 * would take as numbers ({@code 127.1}, {@code 010.0.0.1}) or would look up ({@code 256.0.0.1}) are
 * not addresses here: callers treat them as names. Used by the DNS resolvers (an address is not
 * looked up) and the proxy rules ({@code NO_PROXY} address blocks).
 *
 * <p>Thread-safe: stateless.
 */
public final class AddressLiterals {
  private AddressLiterals() {}

  /** The address {@code host} spells, or null if it is not written as one (or is malformed). */
  public static InetAddress parse(String host) {
    if (!isDottedQuad(host) && !isIpv6(host)) {
      return null;
    }
    try {
      // For a literal the JDK checks the format only: no name service is asked.
      return InetAddress.getByName(host);
    } catch (UnknownHostException | SecurityException e) {
      return null; // a malformed IPv6 address
    }
  }

  private static boolean isIpv6(String host) {
    if (host.indexOf(':') < 0) {
      return false;
    }
    for (int i = 0; i < host.length(); i++) {
      char c = host.charAt(i);
      if (Character.digit(c, 16) < 0 && c != ':' && c != '.') {
        return false;
      }
    }
    return true;
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
