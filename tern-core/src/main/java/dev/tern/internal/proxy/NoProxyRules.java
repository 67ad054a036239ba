package dev.tern.internal.proxy;

import dev.tern.internal.AddressLiterals;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The hosts a {@code NO_PROXY} (or {@code no_proxy}) list exempts from the proxy, read as grpc-go
 * and curl read it: entries separated by commas (spaces around them ignored); {@code *} exempts
 * every host; an entry may end in {@code :port} and then exempts that port only; {@code
 * example.com} exempts the domain and every name below it, {@code .example.com} (or {@code
 * *.example.com}) only the names below it; an IP address exempts that address and a CIDR block
 * ({@code 10.0.0.0/8}, {@code fd00::/8}) every address in it, both only for targets named by an
 * address literal (the target's name is not looked up). Names compare without case.
 *
 * <p>Immutable; thread-safe.
 */
final class NoProxyRules {
  /** No exceptions: every target goes through the proxy. */
  static final NoProxyRules NONE = new NoProxyRules(false, List.of());

  private final boolean all;
  private final List<Rule> rules;

  private NoProxyRules(boolean all, List<Rule> rules) {
    this.all = all;
    this.rules = rules;
  }

  /** The rules of {@code list}, the variable's value; null or blank means none. */
  static NoProxyRules parse(String list) {
    if (list == null || list.isBlank()) {
      return NONE;
    }
    List<Rule> rules = new ArrayList<>();
    for (String raw : list.split(",")) {
      String entry = raw.trim().toLowerCase(Locale.ROOT);
      if (entry.isEmpty()) {
        continue;
      }
      if (entry.equals("*")) {
        return new NoProxyRules(true, List.of());
      }
      rules.add(Rule.parse(entry));
    }
    return new NoProxyRules(false, List.copyOf(rules));
  }

  /**
   * Whether a connection to {@code host} (a name or an address literal) and {@code port} is exempt.
   */
  boolean exempts(String host, int port) {
    if (all) {
      return true;
    }
    String name = unbracket(host).toLowerCase(Locale.ROOT);
    byte[] literal = addressLiteral(name);
    for (Rule rule : rules) {
      if (rule.matches(name, literal, port)) {
        return true;
      }
    }
    return false;
  }

  /** One entry: a domain, or an address block (an address is a block of its full length). */
  private record Rule(String domain, byte[] block, int prefixBits, int port) {
    static Rule parse(String entry) {
      int port = -1;
      String host = entry;
      int slash = entry.indexOf('/');
      if (slash < 0) {
        // host:port, [v6]:port; a bare IPv6 address has several colons and no port.
        int colon = entry.lastIndexOf(':');
        boolean bracketed = entry.startsWith("[");
        if (colon > 0
            && (bracketed ? entry.lastIndexOf(']') < colon : entry.indexOf(':') == colon)) {
          try {
            port = Integer.parseInt(entry.substring(colon + 1));
            host = entry.substring(0, colon);
          } catch (NumberFormatException e) {
            port = -1; // not a port: keep the entry whole (it then matches nothing)
          }
        }
        host = unbracket(host);
        byte[] address = addressLiteral(host);
        if (address != null) {
          return new Rule(null, address, address.length * 8, port);
        }
        if (host.startsWith("*.")) {
          host = host.substring(1);
        }
        return new Rule(host, null, 0, port);
      }
      byte[] address = addressLiteral(entry.substring(0, slash));
      int bits;
      try {
        bits = Integer.parseInt(entry.substring(slash + 1));
      } catch (NumberFormatException e) {
        bits = -1;
      }
      if (address == null || bits < 0 || bits > address.length * 8) {
        return new Rule(entry, null, 0, -1); // malformed: a "domain" nothing is called
      }
      return new Rule(null, address, bits, -1);
    }

    boolean matches(String name, byte[] literal, int targetPort) {
      if (port >= 0 && port != targetPort) {
        return false;
      }
      if (domain != null) {
        if (domain.startsWith(".")) {
          return name.endsWith(domain);
        }
        return name.equals(domain) || name.endsWith("." + domain);
      }
      return literal != null && literal.length == block.length && inBlock(literal);
    }

    private boolean inBlock(byte[] address) {
      int full = prefixBits / 8;
      for (int i = 0; i < full; i++) {
        if (address[i] != block[i]) {
          return false;
        }
      }
      int rest = prefixBits % 8;
      if (rest == 0) {
        return true;
      }
      int mask = (0xff << (8 - rest)) & 0xff;
      return (address[full] & mask) == (block[full] & mask);
    }
  }

  static String unbracket(String host) {
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
  }

  /** The bytes of {@code host} when it is an IPv4 or IPv6 address ({@link AddressLiterals}). */
  static byte[] addressLiteral(String host) {
    InetAddress address = AddressLiterals.parse(host);
    return address == null ? null : address.getAddress();
  }
}
