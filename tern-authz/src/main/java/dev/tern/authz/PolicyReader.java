package dev.tern.authz;

import dev.tern.internal.config.JsonParser;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads a gRFC A43 authorization policy (JSON) into a {@link CompiledPolicy}, refusing anything the
 * policy language does not define: an unknown field is an error, not ignored, because a rule that
 * silently loses a condition would allow more than its author meant. Each error is an {@link
 * IllegalArgumentException} whose message starts with the path of the offending field, such as
 * {@code allow_rules[1].request.paths[0]: ...}.
 *
 * <p>Stateless; thread-safe.
 */
final class PolicyReader {
  private static final Set<String> POLICY_FIELDS = Set.of("name", "deny_rules", "allow_rules");
  private static final Set<String> RULE_FIELDS = Set.of("name", "source", "request");
  private static final Set<String> SOURCE_FIELDS = Set.of("principals");
  private static final Set<String> REQUEST_FIELDS = Set.of("paths", "headers");
  private static final Set<String> HEADER_FIELDS = Set.of("key", "values");

  /**
   * Headers a policy may not match (gRFC A43): {@code host}, and the hop-by-hop headers (RFC 2616
   * section 13.5.1, and the connection-specific ones of RFC 9113 section 8.2.2), which describe a
   * connection, not the call. HTTP/2 pseudo-headers and {@code grpc-} headers are refused by
   * prefix.
   */
  private static final Set<String> FORBIDDEN_HEADERS =
      Set.of(
          "host",
          "connection",
          "keep-alive",
          "proxy-authenticate",
          "proxy-authorization",
          "proxy-connection",
          "te",
          "trailer",
          "transfer-encoding",
          "upgrade");

  private PolicyReader() {}

  /**
   * Reads and compiles {@code json}.
   *
   * @throws IllegalArgumentException naming the field, if the policy is not valid
   */
  static CompiledPolicy read(String json) {
    Map<String, ?> root;
    try {
      root = JsonParser.parseObject(json);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("authorization policy: " + e.getMessage(), e);
    }
    checkFields(root, "", POLICY_FIELDS);
    String name = string(root.get("name"), "name");
    List<Rule> denyRules = rules(root, "deny_rules", false, true);
    List<Rule> allowRules = rules(root, "allow_rules", true, false);
    return new CompiledPolicy(name, denyRules, allowRules);
  }

  private static List<Rule> rules(
      Map<String, ?> root, String field, boolean required, boolean deny) {
    List<?> items = list(root, field, field, required);
    List<Rule> rules = new ArrayList<>(items.size());
    for (int i = 0; i < items.size(); i++) {
      String path = field + "[" + i + "]";
      Map<String, ?> rule = object(items.get(i), path);
      checkFields(rule, path, RULE_FIELDS);
      String name = string(rule.get("name"), path + ".name");
      List<ValueMatcher> principals = List.of();
      if (rule.containsKey("source")) {
        String sourcePath = path + ".source";
        Map<String, ?> source = object(rule.get("source"), sourcePath);
        checkFields(source, sourcePath, SOURCE_FIELDS);
        principals = patterns(source, sourcePath + ".principals", false, false);
      }
      List<ValueMatcher> paths = List.of();
      List<HeaderMatcher> headers = List.of();
      if (rule.containsKey("request")) {
        String requestPath = path + ".request";
        Map<String, ?> request = object(rule.get("request"), requestPath);
        checkFields(request, requestPath, REQUEST_FIELDS);
        paths = patterns(request, requestPath + ".paths", true, false);
        headers = headers(request, requestPath + ".headers");
      }
      rules.add(new Rule(name, deny, principals, paths, headers));
    }
    return rules;
  }

  private static List<HeaderMatcher> headers(Map<String, ?> request, String path) {
    List<?> items = list(request, "headers", path, false);
    List<HeaderMatcher> headers = new ArrayList<>(items.size());
    for (int i = 0; i < items.size(); i++) {
      String headerPath = path + "[" + i + "]";
      Map<String, ?> header = object(items.get(i), headerPath);
      checkFields(header, headerPath, HEADER_FIELDS);
      String key = headerKey(string(header.get("key"), headerPath + ".key"), headerPath);
      String valuesPath = headerPath + ".values";
      List<ValueMatcher> values = patterns(header, valuesPath, false, true);
      if (values.isEmpty()) {
        throw invalid(valuesPath, "must list at least one value (an empty list never matches)");
      }
      try {
        headers.add(new HeaderMatcher(key, values));
      } catch (IllegalArgumentException e) {
        throw invalid(headerPath + ".key", "'" + key + "': " + e.getMessage());
      }
    }
    return headers;
  }

  /** The lower-cased key, if a policy may match it. */
  private static String headerKey(String key, String headerPath) {
    String path = headerPath + ".key";
    if (key.isEmpty()) {
      throw invalid(path, "must not be empty");
    }
    if (key.startsWith(":")) {
      throw invalid(path, "'" + key + "': HTTP/2 pseudo-headers cannot be matched");
    }
    // ASCII only, checked before lower-casing: Unicode case mapping turns some other characters
    // into ASCII letters (the Kelvin sign into 'k').
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (!((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '_'
          || c == '.')) {
        throw invalid(
            path, "'" + key + "': a header name has only letters, digits, '-', '_' and '.'");
      }
    }
    String lower = key.toLowerCase(Locale.ROOT);
    if (lower.startsWith("grpc-")) {
      throw invalid(path, "'" + key + "': headers starting with 'grpc-' cannot be matched");
    }
    if (FORBIDDEN_HEADERS.contains(lower)) {
      throw invalid(
          path, "'" + key + "': the host header and hop-by-hop headers cannot be matched");
    }
    return lower;
  }

  private static List<ValueMatcher> patterns(
      Map<String, ?> parent, String path, boolean isPath, boolean required) {
    String field = path.substring(path.lastIndexOf('.') + 1);
    List<?> items = list(parent, field, path, required);
    List<ValueMatcher> matchers = new ArrayList<>(items.size());
    for (int i = 0; i < items.size(); i++) {
      String itemPath = path + "[" + i + "]";
      String pattern = string(items.get(i), itemPath);
      ValueMatcher matcher;
      try {
        matcher = ValueMatcher.compile(pattern);
      } catch (IllegalArgumentException e) {
        throw invalid(itemPath, e.getMessage());
      }
      if (isPath && matcher.fixesStart() && !matcher.text().startsWith("/")) {
        throw invalid(
            itemPath,
            "'"
                + pattern
                + "' can never match: a path is '/' followed by the full method name, as in"
                + " /package.Service/Method");
      }
      matchers.add(matcher);
    }
    return matchers;
  }

  private static void checkFields(Map<String, ?> object, String path, Set<String> known) {
    for (String field : object.keySet()) {
      if (!known.contains(field)) {
        throw invalid(
            path.isEmpty() ? field : path + "." + field,
            "unknown field (a policy using fields this version does not know is refused rather"
                + " than partly applied; known here: "
                + String.join(", ", known.stream().sorted().toList())
                + ")");
      }
    }
  }

  private static List<?> list(Map<String, ?> parent, String field, String path, boolean required) {
    if (!parent.containsKey(field)) {
      if (required) {
        throw invalid(path, "required");
      }
      return List.of();
    }
    Object value = parent.get(field);
    if (!(value instanceof List)) {
      throw invalid(path, "expected an array, got " + typeName(value));
    }
    return (List<?>) value;
  }

  @SuppressWarnings("unchecked") // JsonParser builds only Map<String, Object>
  private static Map<String, ?> object(Object value, String path) {
    if (!(value instanceof Map)) {
      throw invalid(path, "expected an object, got " + typeName(value));
    }
    return (Map<String, ?>) value;
  }

  private static String string(Object value, String path) {
    if (value == null) {
      throw invalid(path, "required (a string)");
    }
    if (!(value instanceof String)) {
      throw invalid(path, "expected a string, got " + typeName(value));
    }
    return (String) value;
  }

  private static String typeName(Object value) {
    if (value == null) {
      return "null";
    } else if (value instanceof Map) {
      return "object";
    } else if (value instanceof List) {
      return "array";
    } else if (value instanceof String) {
      return "string";
    } else if (value instanceof Boolean) {
      return "boolean";
    }
    return "number";
  }

  private static IllegalArgumentException invalid(String path, String problem) {
    return new IllegalArgumentException("authorization policy: " + path + ": " + problem);
  }
}
