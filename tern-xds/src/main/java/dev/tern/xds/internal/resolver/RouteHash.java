package dev.tern.xds.internal.resolver;

import dev.tern.Metadata;
import dev.tern.xds.XdsRouteConfig.HashPolicy;
import dev.tern.xds.internal.XxHash64;
import java.util.List;

/**
 * A route's hash policies (gRFC A42), ready to hash calls for ring_hash: each policy in turn gives
 * a hash or nothing (a header the call does not have); a new hash is combined with the one so far
 * as {@code rotateLeft(hash, 1) ^ new}; a {@code terminal} policy ends the walk once a hash exists.
 * A header's value (repeated values joined with {@code ,}) after its regex rewrite is hashed with
 * xxHash64, as is the channel's id. Immutable; thread-safe.
 */
final class RouteHash {
  private final HashPolicy[] policies;
  private final long channelIdHash;

  private RouteHash(List<HashPolicy> policies, long channelId) {
    this.policies = policies.toArray(new HashPolicy[0]);
    this.channelIdHash = XxHash64.hash(channelId);
  }

  /** The hasher of {@code policies}, or null when there are none (calls then carry no hash). */
  static RouteHash of(List<HashPolicy> policies, long channelId) {
    return policies.isEmpty() ? null : new RouteHash(policies, channelId);
  }

  /** The call's hash, or null when no policy produced one (ring_hash then picks at random). */
  Long hash(Metadata headers) {
    boolean found = false;
    long hash = 0;
    for (HashPolicy policy : policies) {
      long next;
      if (policy.kind() == HashPolicy.Kind.CHANNEL_ID) {
        next = channelIdHash;
      } else {
        String value = RouteMatcher.headerValue(headers, policy.headerName());
        if (value == null) {
          if (policy.terminal() && found) {
            break;
          }
          continue;
        }
        if (policy.regex() != null) {
          value = policy.regex().matcher(value).replaceAll(policy.substitution());
        }
        next = XxHash64.hash(value);
      }
      hash = found ? Long.rotateLeft(hash, 1) ^ next : next;
      found = true;
      if (policy.terminal()) {
        break;
      }
    }
    return found ? hash : null;
  }
}
