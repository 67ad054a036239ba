package dev.tern.xds.internal.rbac;

import io.envoyproxy.envoy.config.core.v3.CidrRange;
import io.envoyproxy.envoy.config.rbac.v3.Permission;
import io.envoyproxy.envoy.config.rbac.v3.Policy;
import io.envoyproxy.envoy.config.rbac.v3.Principal;
import io.envoyproxy.envoy.config.rbac.v3.RBAC;
import io.envoyproxy.envoy.config.route.v3.HeaderMatcher;
import io.envoyproxy.envoy.type.matcher.v3.PathMatcher;
import io.envoyproxy.envoy.type.matcher.v3.StringMatcher;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Compiles an {@code envoy.config.rbac.v3.RBAC} (A41). What A41 leaves out is an error naming the
 * field: CEL conditions, header matchers on {@code grpc-} headers or {@code :scheme}, and the
 * matchers added to Envoy after A41 ({@code matcher}, {@code uri_template}, {@code
 * sourced_metadata}, {@code filter_state}, {@code custom}). {@code metadata} never matches and
 * {@code requested_server_name} is matched against "" (A41). Stateless.
 */
public final class RbacParser {
  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

  private RbacParser() {}

  /**
   * The engine of {@code rbac}, or null when it enforces nothing (action LOG, which A41 ignores).
   *
   * @param field the field of {@code rbac} in error messages, such as {@code "rules"}
   */
  public static RbacEngine parse(RBAC rbac, String field) throws RbacException {
    switch (rbac.getAction()) {
      case ALLOW, DENY -> {}
      case LOG -> {
        return null;
      }
      default -> throw new RbacException(field + ".action: unknown value " + rbac.getActionValue());
    }
    List<Map.Entry<String, RbacMatcher>> policies = new ArrayList<>();
    for (Map.Entry<String, Policy> e : new TreeMap<>(rbac.getPoliciesMap()).entrySet()) {
      String at = field + ".policies[\"" + e.getKey() + "\"]";
      policies.add(new AbstractMap.SimpleImmutableEntry<>(e.getKey(), policy(e.getValue(), at)));
    }
    return new RbacEngine(rbac.getAction() == RBAC.Action.ALLOW, policies);
  }

  private static RbacMatcher policy(Policy policy, String field) throws RbacException {
    if (policy.hasCondition()) {
      throw new RbacException(field + ".condition: CEL conditions are not supported");
    }
    if (policy.hasCheckedCondition()) {
      throw new RbacException(field + ".checked_condition: CEL conditions are not supported");
    }
    if (policy.getPermissionsCount() == 0) {
      throw new RbacException(field + ".permissions: empty");
    }
    if (policy.getPrincipalsCount() == 0) {
      throw new RbacException(field + ".principals: empty");
    }
    List<RbacMatcher> permissions = new ArrayList<>();
    for (int i = 0; i < policy.getPermissionsCount(); i++) {
      permissions.add(permission(policy.getPermissions(i), field + ".permissions[" + i + "]"));
    }
    List<RbacMatcher> principals = new ArrayList<>();
    for (int i = 0; i < policy.getPrincipalsCount(); i++) {
      principals.add(principal(policy.getPrincipals(i), field + ".principals[" + i + "]"));
    }
    return new RbacMatcher.And(
        List.of(new RbacMatcher.Or(permissions), new RbacMatcher.Or(principals)));
  }

  @SuppressWarnings("deprecation") // metadata, which A41 covers
  private static RbacMatcher permission(Permission p, String field) throws RbacException {
    return switch (p.getRuleCase()) {
      case AND_RULES ->
          new RbacMatcher.And(permissions(p.getAndRules().getRulesList(), field + ".and_rules"));
      case OR_RULES ->
          new RbacMatcher.Or(permissions(p.getOrRules().getRulesList(), field + ".or_rules"));
      case NOT_RULE -> new RbacMatcher.Not(permission(p.getNotRule(), field + ".not_rule"));
      case ANY -> RbacMatcher.ALWAYS;
      case HEADER -> header(p.getHeader(), field + ".header");
      case URL_PATH -> path(p.getUrlPath(), field + ".url_path");
      case DESTINATION_IP -> cidr(p.getDestinationIp(), true, field + ".destination_ip");
      case DESTINATION_PORT -> {
        int port = p.getDestinationPort();
        if (port < 0 || port > 65535) {
          throw new RbacException(
              field + ".destination_port: " + Integer.toUnsignedString(port) + " is not a port");
        }
        yield new RbacMatcher.Port(port, port + 1);
      }
      case DESTINATION_PORT_RANGE -> {
        int start = p.getDestinationPortRange().getStart();
        int end = p.getDestinationPortRange().getEnd();
        if (start > end) {
          throw new RbacException(
              field + ".destination_port_range: start " + start + " > end " + end);
        }
        yield new RbacMatcher.Port(start, end);
      }
      case METADATA -> RbacMatcher.NEVER;
      case REQUESTED_SERVER_NAME ->
          string(p.getRequestedServerName(), field + ".requested_server_name").matches("")
              ? RbacMatcher.ALWAYS
              : RbacMatcher.NEVER;
      case RULE_NOT_SET -> throw new RbacException(field + ": no rule is set");
      default ->
          throw new RbacException(
              field + "." + p.getRuleCase().name().toLowerCase(Locale.ROOT) + ": not supported");
    };
  }

  @SuppressWarnings("deprecation") // source_ip and metadata, which A41 covers
  private static RbacMatcher principal(Principal p, String field) throws RbacException {
    return switch (p.getIdentifierCase()) {
      case AND_IDS ->
          new RbacMatcher.And(principals(p.getAndIds().getIdsList(), field + ".and_ids"));
      case OR_IDS -> new RbacMatcher.Or(principals(p.getOrIds().getIdsList(), field + ".or_ids"));
      case NOT_ID -> new RbacMatcher.Not(principal(p.getNotId(), field + ".not_id"));
      case ANY -> RbacMatcher.ALWAYS;
      case AUTHENTICATED ->
          new RbacMatcher.Authenticated(
              p.getAuthenticated().hasPrincipalName()
                  ? string(
                      p.getAuthenticated().getPrincipalName(),
                      field + ".authenticated.principal_name")
                  : null);
      case SOURCE_IP -> cidr(p.getSourceIp(), false, field + ".source_ip");
      case DIRECT_REMOTE_IP -> cidr(p.getDirectRemoteIp(), false, field + ".direct_remote_ip");
      case REMOTE_IP -> cidr(p.getRemoteIp(), false, field + ".remote_ip");
      case HEADER -> header(p.getHeader(), field + ".header");
      case URL_PATH -> path(p.getUrlPath(), field + ".url_path");
      case METADATA -> RbacMatcher.NEVER;
      case IDENTIFIER_NOT_SET -> throw new RbacException(field + ": no identifier is set");
      default ->
          throw new RbacException(
              field
                  + "."
                  + p.getIdentifierCase().name().toLowerCase(Locale.ROOT)
                  + ": not supported");
    };
  }

  private static List<RbacMatcher> permissions(List<Permission> list, String field)
      throws RbacException {
    if (list.isEmpty()) {
      throw new RbacException(field + ".rules: empty");
    }
    List<RbacMatcher> out = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      out.add(permission(list.get(i), field + ".rules[" + i + "]"));
    }
    return out;
  }

  private static List<RbacMatcher> principals(List<Principal> list, String field)
      throws RbacException {
    if (list.isEmpty()) {
      throw new RbacException(field + ".ids: empty");
    }
    List<RbacMatcher> out = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      out.add(principal(list.get(i), field + ".ids[" + i + "]"));
    }
    return out;
  }

  private static RbacMatcher path(PathMatcher matcher, String field) throws RbacException {
    if (!matcher.hasPath()) {
      throw new RbacException(field + ".path: missing");
    }
    return new RbacMatcher.Path(string(matcher.getPath(), field + ".path"));
  }

  @SuppressWarnings("deprecation") // the *_match fields, still in use
  private static RbacMatcher header(HeaderMatcher h, String field) throws RbacException {
    String name = h.getName().toLowerCase(Locale.ROOT);
    if (name.isEmpty()) {
      throw new RbacException(field + ".name: empty");
    }
    if (name.startsWith("grpc-") || name.equals(":scheme")) {
      throw new RbacException(field + ".name: \"" + name + "\" cannot be matched (A41)");
    }
    StringMatch value = null;
    Boolean present = null;
    long start = 0;
    long end = 0;
    switch (h.getHeaderMatchSpecifierCase()) {
      case EXACT_MATCH ->
          value = new StringMatch(StringMatch.Kind.EXACT, h.getExactMatch(), null, false);
      case PREFIX_MATCH ->
          value = new StringMatch(StringMatch.Kind.PREFIX, h.getPrefixMatch(), null, false);
      case SUFFIX_MATCH ->
          value = new StringMatch(StringMatch.Kind.SUFFIX, h.getSuffixMatch(), null, false);
      case CONTAINS_MATCH ->
          value = new StringMatch(StringMatch.Kind.CONTAINS, h.getContainsMatch(), null, false);
      case SAFE_REGEX_MATCH ->
          value = regex(h.getSafeRegexMatch().getRegex(), false, field + ".safe_regex_match.regex");
      case STRING_MATCH -> value = string(h.getStringMatch(), field + ".string_match");
      case PRESENT_MATCH -> present = h.getPresentMatch();
      case RANGE_MATCH -> {
        start = h.getRangeMatch().getStart();
        end = h.getRangeMatch().getEnd();
        if (start > end) {
          throw new RbacException(field + ".range_match: start " + start + " > end " + end);
        }
      }
      default -> throw new RbacException(field + ": no header match specifier is set");
    }
    return new HeaderMatch(
        name, value, present, start, end, h.getInvertMatch(), h.getTreatMissingHeaderAsEmpty());
  }

  private static StringMatch string(StringMatcher s, String field) throws RbacException {
    boolean ignoreCase = s.getIgnoreCase();
    return switch (s.getMatchPatternCase()) {
      case EXACT -> new StringMatch(StringMatch.Kind.EXACT, s.getExact(), null, ignoreCase);
      case PREFIX -> new StringMatch(StringMatch.Kind.PREFIX, s.getPrefix(), null, ignoreCase);
      case SUFFIX -> new StringMatch(StringMatch.Kind.SUFFIX, s.getSuffix(), null, ignoreCase);
      case CONTAINS ->
          new StringMatch(StringMatch.Kind.CONTAINS, s.getContains(), null, ignoreCase);
      case SAFE_REGEX ->
          regex(s.getSafeRegex().getRegex(), ignoreCase, field + ".safe_regex.regex");
      case MATCHPATTERN_NOT_SET -> throw new RbacException(field + ": no match pattern is set");
      default ->
          throw new RbacException(
              field
                  + "."
                  + s.getMatchPatternCase().name().toLowerCase(Locale.ROOT)
                  + ": not supported");
    };
  }

  private static StringMatch regex(String regex, boolean ignoreCase, String field)
      throws RbacException {
    try {
      return new StringMatch(
          StringMatch.Kind.REGEX,
          regex,
          Pattern.compile(regex, ignoreCase ? Pattern.CASE_INSENSITIVE : 0),
          ignoreCase);
    } catch (PatternSyntaxException e) {
      throw new RbacException(field + ": invalid regex \"" + regex + "\": " + e.getDescription());
    }
  }

  private static RbacMatcher cidr(CidrRange range, boolean local, String field)
      throws RbacException {
    String literal = range.getAddressPrefix();
    InetAddress ip = null;
    if (IPV4.matcher(literal).matches() || literal.contains(":")) {
      try {
        ip = InetAddress.getByName(literal); // an IP literal: no lookup
      } catch (UnknownHostException | IllegalArgumentException e) {
        ip = null;
      }
    }
    if (ip == null) {
      throw new RbacException(field + ".address_prefix: \"" + literal + "\" is not an IP address");
    }
    int bits = ip.getAddress().length * 8;
    int length = range.getPrefixLen().getValue(); // unset: 0, as in Envoy
    if (length < 0 || length > bits) {
      throw new RbacException(
          field + ".prefix_len: " + Integer.toUnsignedString(length) + " is more than " + bits);
    }
    return new RbacMatcher.Cidr(ip, length, local);
  }
}
