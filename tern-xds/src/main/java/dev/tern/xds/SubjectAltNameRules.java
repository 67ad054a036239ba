package dev.tern.xds;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;

/**
 * How a certificate's subject alternative names compare with xDS matchers beyond plain string
 * comparison: the DNS wildcard rule of RFC 6125 (section 6.4.3) that A29's exact matching follows,
 * and the canonical text of IP addresses (RFC 5952 for IPv6). Stateless.
 */
final class SubjectAltNameRules {
  private SubjectAltNameRules() {}

  /**
   * Whether the certificate's DNS name {@code certificateName} matches {@code expected} exactly:
   * equal (a trailing dot of either ignored), or {@code certificateName} is a wildcard {@code
   * *.rest}, {@code rest} has at least two labels, and {@code expected} is one non-empty label
   * followed by {@code .rest}.
   */
  static boolean dnsMatches(String certificateName, String expected, boolean ignoreCase) {
    String name = withoutTrailingDot(certificateName);
    String host = withoutTrailingDot(expected);
    if (name.isEmpty() || host.isEmpty()) {
      return false;
    }
    if (ignoreCase) {
      name = name.toLowerCase(Locale.ROOT);
      host = host.toLowerCase(Locale.ROOT);
    }
    if (name.equals(host)) {
      return true;
    }
    if (!name.startsWith("*.")) {
      return false;
    }
    String rest = name.substring(1); // ".example.com"
    if (rest.indexOf('.', 1) < 0 || rest.indexOf('*') >= 0 || !host.endsWith(rest)) {
      return false; // "*.com" names a whole top-level domain; a second '*' is no wildcard
    }
    String label = host.substring(0, host.length() - rest.length());
    return !label.isEmpty() && label.indexOf('.') < 0 && label.indexOf('*') < 0;
  }

  private static String withoutTrailingDot(String name) {
    return name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
  }

  /**
   * The canonical text of an IP address as a certificate gives it: IPv4 unchanged, IPv6 in RFC
   * 5952's short form ({@code 2001:db8::1}); text that is no IP literal is returned unchanged.
   */
  static String canonicalIp(String address) {
    if (address.indexOf(':') < 0) {
      return address;
    }
    InetAddress parsed;
    try {
      // A literal with ':' is parsed, never looked up.
      parsed = InetAddress.getByName(address);
    } catch (UnknownHostException | SecurityException e) {
      return address;
    }
    if (!(parsed instanceof Inet6Address)) {
      return parsed.getHostAddress();
    }
    byte[] bytes = parsed.getAddress();
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = ((bytes[2 * i] & 0xff) << 8) | (bytes[2 * i + 1] & 0xff);
    }
    // The longest run of two or more zero groups (the first of equal runs) becomes "::".
    int bestStart = -1;
    int bestLength = 1;
    for (int i = 0; i < 8; ) {
      if (groups[i] != 0) {
        i++;
        continue;
      }
      int j = i;
      while (j < 8 && groups[j] == 0) {
        j++;
      }
      if (j - i > bestLength) {
        bestStart = i;
        bestLength = j - i;
      }
      i = j;
    }
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        text.append("::");
        i += bestLength - 1;
        continue;
      }
      if (text.length() > 0 && text.charAt(text.length() - 1) != ':') {
        text.append(':');
      }
      text.append(Integer.toHexString(groups[i]));
    }
    return text.toString();
  }
}
