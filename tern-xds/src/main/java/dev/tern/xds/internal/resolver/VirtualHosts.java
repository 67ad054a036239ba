package dev.tern.xds.internal.resolver;

import dev.tern.xds.XdsRouteConfig.VirtualHost;
import java.util.List;
import java.util.Locale;

/**
 * Chooses the virtual host of a RouteConfiguration for the channel's authority (gRFC A27, Envoy's
 * rules): an exact domain wins; else the longest suffix wildcard ({@code *.foo.com}); else the
 * longest prefix wildcard ({@code foo.*}); else {@code *}. Matching ignores case; a domain with a
 * {@code *} anywhere but its first or last character never matches. Stateless.
 */
public final class VirtualHosts {
  private VirtualHosts() {}

  /** The virtual host for {@code authority}, or null if none of their domains matches it. */
  public static VirtualHost select(List<VirtualHost> hosts, String authority) {
    String host = authority.toLowerCase(Locale.ROOT);
    VirtualHost suffix = null;
    int suffixLength = -1;
    VirtualHost prefix = null;
    int prefixLength = -1;
    VirtualHost universal = null;
    for (VirtualHost vh : hosts) {
      for (String d : vh.domains()) {
        String domain = d.toLowerCase(Locale.ROOT);
        if (!matches(domain, host)) {
          continue;
        }
        if (domain.indexOf('*') < 0) {
          return vh;
        }
        if (domain.equals("*")) {
          if (universal == null) {
            universal = vh;
          }
        } else if (domain.startsWith("*")) {
          if (domain.length() > suffixLength) {
            suffix = vh;
            suffixLength = domain.length();
          }
        } else if (domain.length() > prefixLength) {
          prefix = vh;
          prefixLength = domain.length();
        }
      }
    }
    return suffix != null ? suffix : prefix != null ? prefix : universal;
  }

  /** Whether the lower-cased {@code domain} pattern matches the lower-cased {@code host}. */
  static boolean matches(String domain, String host) {
    if (domain.isEmpty()) {
      return false;
    }
    if (domain.equals("*")) {
      return true;
    }
    int star = domain.indexOf('*');
    if (star < 0) {
      return domain.equals(host);
    }
    if (star != domain.lastIndexOf('*')) {
      return false;
    }
    if (star == 0) {
      return host.endsWith(domain.substring(1));
    }
    if (star == domain.length() - 1) {
      return host.startsWith(domain.substring(0, star));
    }
    return false;
  }
}
