package dev.tern.xds.internal.rbac;

import java.util.List;
import java.util.Map;

/**
 * The policies of one RBAC config and its action (A41): a policy matches a call when one of its
 * permissions and one of its principals do. With ALLOW, a call goes ahead only when some policy
 * matches (no policies: every call is refused); with DENY, a call is refused when some policy
 * matches. Immutable; thread-safe.
 */
public final class RbacEngine {
  private final boolean allow;
  private final List<Map.Entry<String, RbacMatcher>> policies;

  RbacEngine(boolean allow, List<Map.Entry<String, RbacMatcher>> policies) {
    this.allow = allow;
    this.policies = List.copyOf(policies);
  }

  /** Whether the call of {@code request} may go ahead. */
  public boolean allows(RbacRequest request) {
    return (matchingPolicy(request) != null) == allow;
  }

  /** The name of the first policy (in name order) that matches the call, or null. */
  public String matchingPolicy(RbacRequest request) {
    for (int i = 0; i < policies.size(); i++) {
      if (policies.get(i).getValue().matches(request)) {
        return policies.get(i).getKey();
      }
    }
    return null;
  }

  /** Whether the action is ALLOW (else DENY). */
  public boolean isAllow() {
    return allow;
  }

  /** Equal by action and policies (an unchanged policy re-sent leaves its filter chain alone). */
  @Override
  public boolean equals(Object o) {
    return o instanceof RbacEngine e && e.allow == allow && e.policies.equals(policies);
  }

  @Override
  public int hashCode() {
    return Boolean.hashCode(allow) * 31 + policies.hashCode();
  }

  @Override
  public String toString() {
    return "RbacEngine{" + (allow ? "ALLOW" : "DENY") + " " + policies.size() + " policies}";
  }
}
