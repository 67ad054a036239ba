package dev.tern.authz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Invalid policies are refused with an IllegalArgumentException naming the field. */
class PolicyValidationTest {
  /** A policy with one allow rule whose body (after its name) is {@code ruleBody}. */
  private static String rule(String ruleBody) {
    return "{\"name\": \"p\", \"allow_rules\": [{\"name\": \"ok\"}, {\"name\": \"r\""
        + ruleBody
        + "}]}";
  }

  private static String header(String headerJson) {
    return rule(", \"request\": {\"headers\": [" + headerJson + "]}");
  }

  static Stream<Arguments> invalidPolicies() {
    return Stream.of(
        Arguments.of("{", "authorization policy: JSON: "),
        Arguments.of("[]", "authorization policy: JSON: expected an object at top level"),
        Arguments.of("{\"allow_rules\": []}", "authorization policy: name: required"),
        Arguments.of("{\"name\": 7, \"allow_rules\": []}", "name: expected a string, got number"),
        Arguments.of("{\"name\": \"p\"}", "authorization policy: allow_rules: required"),
        Arguments.of(
            "{\"name\": \"p\", \"allow_rules\": {}}", "allow_rules: expected an array, got object"),
        Arguments.of(
            "{\"name\": \"p\", \"allow_rules\": [], \"deny_rules\": null}",
            "deny_rules: expected an array, got null"),
        Arguments.of(
            "{\"name\": \"p\", \"allow_rules\": [], \"audit_logging_options\": {}}",
            "authorization policy: audit_logging_options: unknown field"),
        Arguments.of(
            "{\"name\": \"p\", \"allow_rules\": [\"r\"]}",
            "allow_rules[0]: expected an object, got string"),
        Arguments.of(
            "{\"name\": \"p\", \"allow_rules\": [], \"deny_rules\": [{}]}",
            "deny_rules[0].name: required"),
        Arguments.of(rule(", \"action\": \"ALLOW\""), "allow_rules[1].action: unknown field"),
        Arguments.of(rule(", \"source\": []"), "allow_rules[1].source: expected an object"),
        Arguments.of(
            rule(", \"source\": {\"namespaces\": [\"a\"]}"),
            "allow_rules[1].source.namespaces: unknown field"),
        Arguments.of(
            rule(", \"source\": {\"principals\": \"spiffe://a\"}"),
            "allow_rules[1].source.principals: expected an array, got string"),
        Arguments.of(
            rule(", \"source\": {\"principals\": [\"a*b\"]}"),
            "allow_rules[1].source.principals[0]: 'a*b': '*' may only stand alone"),
        Arguments.of(
            rule(", \"request\": {\"methods\": [\"POST\"]}"),
            "allow_rules[1].request.methods: unknown field"),
        Arguments.of(
            rule(", \"request\": {\"paths\": [\"/a.B/c\", 5]}"),
            "allow_rules[1].request.paths[1]: expected a string, got number"),
        Arguments.of(
            rule(", \"request\": {\"paths\": [\"**\"]}"),
            "allow_rules[1].request.paths[0]: '**': '*' may only stand alone"),
        Arguments.of(
            rule(", \"request\": {\"paths\": [\"*a*\"]}"),
            "allow_rules[1].request.paths[0]: '*a*': '*' may only stand alone"),
        Arguments.of(
            rule(", \"request\": {\"paths\": [\"pkg.Service/Method\"]}"),
            "allow_rules[1].request.paths[0]: 'pkg.Service/Method' can never match"),
        Arguments.of(
            rule(", \"request\": {\"paths\": [\"pkg.*\"]}"),
            "allow_rules[1].request.paths[0]: 'pkg.*' can never match"),
        Arguments.of(
            rule(", \"request\": {\"paths\": [\"\"]}"),
            "allow_rules[1].request.paths[0]: '' can never match"),
        Arguments.of(
            header("{\"key\": \":path\", \"values\": [\"/a\"]}"),
            "allow_rules[1].request.headers[0].key: ':path': HTTP/2 pseudo-headers cannot be"),
        Arguments.of(
            header("{\"key\": \":authority\", \"values\": [\"a\"]}"),
            "request.headers[0].key: ':authority': HTTP/2 pseudo-headers"),
        Arguments.of(
            header("{\"key\": \"grpc-timeout\", \"values\": [\"1S\"]}"),
            "request.headers[0].key: 'grpc-timeout': headers starting with 'grpc-' cannot be"),
        Arguments.of(
            header("{\"key\": \"GRPC-Encoding\", \"values\": [\"gzip\"]}"),
            "request.headers[0].key: 'GRPC-Encoding': headers starting with 'grpc-'"),
        Arguments.of(
            header("{\"key\": \"Host\", \"values\": [\"a\"]}"),
            "request.headers[0].key: 'Host': the host header and hop-by-hop headers cannot"),
        Arguments.of(
            header("{\"key\": \"te\", \"values\": [\"trailers\"]}"),
            "request.headers[0].key: 'te': the host header and hop-by-hop headers"),
        Arguments.of(
            header("{\"key\": \"connection\", \"values\": [\"close\"]}"),
            "request.headers[0].key: 'connection': the host header and hop-by-hop headers"),
        Arguments.of(
            header("{\"key\": \"x role\", \"values\": [\"a\"]}"),
            "request.headers[0].key: 'x role': a header name has only letters, digits"),
        Arguments.of(
            header("{\"key\": \"\u212Aeep-alive\", \"values\": [\"a\"]}"),
            "request.headers[0].key: '\u212Aeep-alive': a header name has only letters"),
        Arguments.of(
            header("{\"key\": \"\", \"values\": [\"a\"]}"),
            "allow_rules[1].request.headers[0].key: must not be empty"),
        Arguments.of(
            header("{\"values\": [\"a\"]}"), "allow_rules[1].request.headers[0].key: required"),
        Arguments.of(
            header("{\"key\": \"x-a\"}"), "allow_rules[1].request.headers[0].values: required"),
        Arguments.of(
            header("{\"key\": \"x-a\", \"values\": []}"),
            "allow_rules[1].request.headers[0].values: must list at least one value"),
        Arguments.of(
            header("{\"key\": \"x-a\", \"values\": [\"a\"], \"invert\": true}"),
            "allow_rules[1].request.headers[0].invert: unknown field"),
        Arguments.of(
            header("{\"key\": \"x-a\", \"values\": [\"a\"]}, {\"key\": \"x-b\", \"values\": [1]}"),
            "allow_rules[1].request.headers[1].values[0]: expected a string, got number"));
  }

  @ParameterizedTest
  @MethodSource("invalidPolicies")
  void invalidPolicyIsRefusedNamingTheField(String policy, String message) {
    assertThatThrownBy(() -> AuthorizationPolicyInterceptor.create(policy))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }

  @Test
  void theSpecsExampleIsValid() {
    String example =
        "{\"name\": \"example-policy\","
            + " \"allow_rules\": ["
            + "  {\"name\": \"admin-access\","
            + "   \"source\": {\"principals\": [\"spiffe://foo.com/sa/admin1\","
            + "                               \"spiffe://foo.com/sa/admin2\"]},"
            + "   \"request\": {\"paths\": [\"/pkg.service/*\"]}},"
            + "  {\"name\": \"dev-access\","
            + "   \"source\": {\"principals\": [\"*\", \"\"]},"
            + "   \"request\": {\"paths\": [\"/pkg.service/foo\", \"/pkg.service/bar\"],"
            + "                 \"headers\": [{\"key\": \"dev-path\", \"values\": [\"/dev/path/*\"]}]}}],"
            + " \"deny_rules\": ["
            + "  {\"name\": \"deny-access\", \"request\": {\"paths\": [\"*/secret\"]}}]}";
    assertThat(AuthorizationPolicyInterceptor.create(example).policyName())
        .isEqualTo("example-policy");
  }

  @Test
  void emptySourceRequestAndListsAreValid() {
    String policy =
        "{\"name\": \"p\", \"deny_rules\": [],"
            + " \"allow_rules\": [{\"name\": \"r\", \"source\": {\"principals\": []},"
            + "   \"request\": {\"paths\": [], \"headers\": []}}]}";
    assertThat(AuthorizationPolicyInterceptor.create(policy).policyName()).isEqualTo("p");
  }

  @Test
  void nullPolicyIsRefusedNamingTheArgument() {
    assertThatThrownBy(() -> AuthorizationPolicyInterceptor.create(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("policyJson");
  }
}
