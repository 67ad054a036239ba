package dev.tern.xds.internal.rbac;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * A compiled {@code Permission} or {@code Principal} of an RBAC policy: whether a call matches it.
 * Implementations are immutable and thread-safe, and parse nothing per call.
 */
interface RbacMatcher {
  boolean matches(RbacRequest request);

  /** {@code any}, and the stand-in for fields A41 hard-codes (see {@link #NEVER}). */
  RbacMatcher ALWAYS = request -> true;

  /** {@code metadata} (never present in gRPC, A41), a {@code requested_server_name} not "". */
  RbacMatcher NEVER = request -> false;

  /** {@code and_rules} / {@code and_ids}. */
  record And(List<RbacMatcher> all) implements RbacMatcher {
    @Override
    public boolean matches(RbacRequest request) {
      for (int i = 0; i < all.size(); i++) {
        if (!all.get(i).matches(request)) {
          return false;
        }
      }
      return true;
    }
  }

  /** {@code or_rules} / {@code or_ids}, and a policy's permissions or principals. */
  record Or(List<RbacMatcher> any) implements RbacMatcher {
    @Override
    public boolean matches(RbacRequest request) {
      for (int i = 0; i < any.size(); i++) {
        if (any.get(i).matches(request)) {
          return true;
        }
      }
      return false;
    }
  }

  /** {@code not_rule} / {@code not_id}. */
  record Not(RbacMatcher negated) implements RbacMatcher {
    @Override
    public boolean matches(RbacRequest request) {
      return !negated.matches(request);
    }
  }

  /** {@code url_path}: the call's {@code /service/method}. */
  record Path(StringMatch path) implements RbacMatcher {
    @Override
    public boolean matches(RbacRequest request) {
      return path.matches(request.path());
    }
  }

  /**
   * An IP range of {@code destination_ip} (the connection's local address) or {@code source_ip},
   * {@code direct_remote_ip} and {@code remote_ip} (its peer: A41 without proxy protocol or XFF).
   */
  record Cidr(InetAddress prefix, int length, boolean local) implements RbacMatcher {
    @Override
    public boolean matches(RbacRequest request) {
      InetSocketAddress address = local ? request.local() : request.remote();
      if (address == null) {
        return false;
      }
      byte[] ip = address.getAddress().getAddress();
      byte[] range = prefix.getAddress();
      if (ip.length != range.length) {
        return false;
      }
      int full = length / 8;
      for (int i = 0; i < full; i++) {
        if (ip[i] != range[i]) {
          return false;
        }
      }
      int rest = length % 8;
      if (rest == 0) {
        return true;
      }
      int mask = (0xff << (8 - rest)) & 0xff;
      return (ip[full] & mask) == (range[full] & mask);
    }
  }

  /** {@code destination_port} ({@code start == end - 1}) and {@code destination_port_range}. */
  record Port(int start, int end) implements RbacMatcher {
    @Override
    public boolean matches(RbacRequest request) {
      return request.local() != null
          && request.local().getPort() >= start
          && request.local().getPort() < end;
    }
  }

  /**
   * {@code authenticated}: over TLS, with {@code principalName} null any peer; else the peer
   * certificate's names in A41's order (see {@link PeerNames}).
   */
  record Authenticated(StringMatch principalName) implements RbacMatcher {
    @Override
    public boolean matches(RbacRequest request) {
      if (request.tls() == null) {
        return false;
      }
      return principalName == null || PeerNames.of(request.tls()).matches(principalName);
    }
  }
}
