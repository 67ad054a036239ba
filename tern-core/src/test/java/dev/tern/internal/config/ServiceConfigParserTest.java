package dev.tern.internal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.LoadBalancerRegistry;
import dev.tern.Status.Code;
import dev.tern.internal.lb.RoundRobinLoadBalancerProvider;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ServiceConfigParserTest {
  private static final LoadBalancerRegistry REGISTRY = LoadBalancerRegistry.getDefaultRegistry();

  @Test
  void retryPolicyExampleOfGrfcA6() {
    ServiceConfig config =
        parse(
            "{'methodConfig': [{'name': [{'service': 'example.Greeter', 'method': 'SayHello'}],"
                + " 'retryPolicy': {'maxAttempts': 4, 'initialBackoff': '.1s', 'maxBackoff': '1s',"
                + " 'backoffMultiplier': 2, 'retryableStatusCodes': ['UNAVAILABLE']}}]}");

    MethodConfig method = config.methodConfig("example.Greeter/SayHello");
    assertThat(method.retryPolicy())
        .isEqualTo(
            new RetryPolicy(
                4,
                TimeUnit.MILLISECONDS.toNanos(100),
                TimeUnit.SECONDS.toNanos(1),
                2.0,
                Set.of(Code.UNAVAILABLE)));
    assertThat(method.hedgingPolicy()).isNull();
    assertThat(method.timeoutNanos()).isNull();
    assertThat(method.waitForReady()).isNull();
    assertThat(config.methodConfig("example.Greeter/SayGoodbye")).isNull();
    assertThat(config.hasMethodConfigs()).isTrue();
  }

  @Test
  void hedgingPolicyExampleOfGrfcA6() {
    ServiceConfig config =
        parse(
            "{'methodConfig': [{'name': [{'service': 'example.Greeter'}], 'hedgingPolicy':"
                + " {'maxAttempts': 4, 'hedgingDelay': '0.5s', 'nonFatalStatusCodes':"
                + " ['UNAVAILABLE', 'INTERNAL', 'ABORTED']}}]}");

    assertThat(config.methodConfig("example.Greeter/SayHello").hedgingPolicy())
        .isEqualTo(
            new HedgingPolicy(
                4,
                TimeUnit.MILLISECONDS.toNanos(500),
                Set.of(Code.UNAVAILABLE, Code.INTERNAL, Code.ABORTED)));
  }

  @Test
  void hedgingDelayAndNonFatalCodesDefaultToNone() {
    ServiceConfig config =
        parse("{'methodConfig': [{'name': [{}], 'hedgingPolicy': {'maxAttempts': 3}}]}");

    assertThat(config.methodConfig("any.Service/Method").hedgingPolicy())
        .isEqualTo(new HedgingPolicy(3, 0, Set.of()));
  }

  @Test
  void retryThrottlingExampleOfGrfcA6() {
    ServiceConfig config = parse("{'retryThrottling': {'maxTokens': 10, 'tokenRatio': 0.1}}");

    assertThat(config.retryThrottling()).isEqualTo(new RetryThrottlingPolicy(10, 0.1));
    assertThat(config.hasMethodConfigs()).isFalse();
  }

  @Test
  void tokenRatioKeepsThreeDecimalsAndMaxTokensIsCappedAt1000() {
    assertThat(
            parse("{'retryThrottling': {'maxTokens': 5000, 'tokenRatio': 0.29}}").retryThrottling())
        .isEqualTo(new RetryThrottlingPolicy(1000, 0.29));
    assertThat(
            parse("{'retryThrottling': {'maxTokens': 1, 'tokenRatio': 1.2349}}").retryThrottling())
        .isEqualTo(new RetryThrottlingPolicy(1, 1.234));
  }

  @Test
  void methodEntryBeatsServiceEntryWhichBeatsTheDefault() {
    ServiceConfig config =
        parse(
            "{'methodConfig': ["
                + "{'name': [{'service': ''}], 'timeout': '3s'},"
                + "{'name': [{'service': 'pkg.Svc'}], 'timeout': '2s'},"
                + "{'name': [{'service': 'pkg.Svc', 'method': 'Get'}], 'timeout': '1s'}]}");

    assertThat(config.methodConfig("pkg.Svc/Get").timeoutNanos()).isEqualTo(seconds(1));
    assertThat(config.methodConfig("pkg.Svc/Put").timeoutNanos()).isEqualTo(seconds(2));
    assertThat(config.methodConfig("pkg.Other/Get").timeoutNanos()).isEqualTo(seconds(3));
  }

  @Test
  void emptyNameObjectIsTheDefaultAndAnEntryMayNameSeveralMethods() {
    ServiceConfig config =
        parse(
            "{'methodConfig': [{'name': [{}], 'waitForReady': false},"
                + " {'name': [{'service': 'a.A', 'method': 'X'}, {'service': 'b.B', 'method': ''}],"
                + " 'waitForReady': true}]}");

    assertThat(config.methodConfig("a.A/X").waitForReady()).isTrue();
    assertThat(config.methodConfig("b.B/Y").waitForReady()).isTrue();
    assertThat(config.methodConfig("a.A/Y").waitForReady()).isFalse();
  }

  @Test
  void anEntryWithNothingButANameStillShadowsBroaderOnes() {
    ServiceConfig config =
        parse(
            "{'methodConfig': [{'name': [{}], 'timeout': '1s'},"
                + " {'name': [{'service': 'pkg.Svc'}]}]}");

    assertThat(config.methodConfig("pkg.Svc/Get"))
        .isEqualTo(new MethodConfig(null, null, null, null, null, null));
  }

  @Test
  void timeoutAndMessageLimits() {
    MethodConfig method =
        parse(
                "{'methodConfig': [{'name': [{}], 'timeout': '1.000000001s',"
                    + " 'maxRequestMessageBytes': 1024, 'maxResponseMessageBytes': '4194304'}]}")
            .methodConfig("x.Y/Z");

    assertThat(method.timeoutNanos()).isEqualTo(1_000_000_001L);
    assertThat(method.maxRequestMessageBytes()).isEqualTo(1024);
    assertThat(method.maxResponseMessageBytes()).isEqualTo(4_194_304);
  }

  @Test
  void messageLimitsAboveIntegerMaxAreClamped() {
    MethodConfig method =
        parse(
                "{'methodConfig': [{'name': [{}], 'maxRequestMessageBytes': 4294967295,"
                    + " 'maxResponseMessageBytes': '99999999999999999999999'}]}")
            .methodConfig("x.Y/Z");

    assertThat(method.maxRequestMessageBytes()).isEqualTo(Integer.MAX_VALUE);
    assertThat(method.maxResponseMessageBytes()).isEqualTo(Integer.MAX_VALUE);
  }

  @Test
  void longestDurationSaturatesNanos() {
    assertThat(timeout("'315576000000s'")).isEqualTo(Long.MAX_VALUE);
    assertThat(timeout("'0s'")).isZero();
    assertThat(timeout("'-0s'")).isZero();
    assertThat(timeout("'.5s'")).isEqualTo(500_000_000L);
  }

  @Test
  void statusCodesMayBeNumbers() {
    RetryPolicy retry =
        parse(retryPolicy("'maxAttempts': 2, 'retryableStatusCodes': [14, 'ABORTED', 4.0]"))
            .methodConfig("x.Y/Z")
            .retryPolicy();

    assertThat(retry.retryableStatusCodes())
        .containsExactlyInAnyOrder(Code.UNAVAILABLE, Code.ABORTED, Code.DEADLINE_EXCEEDED);
  }

  @Test
  void acceptsMapsBuiltByHandWithAnyNumberType() {
    Map<String, Object> retry = new HashMap<>();
    retry.put("maxAttempts", 5L);
    retry.put("initialBackoff", "1s");
    retry.put("maxBackoff", "10s");
    retry.put("backoffMultiplier", 1);
    retry.put("retryableStatusCodes", List.of("UNAVAILABLE"));
    Map<String, Object> raw = new HashMap<>();
    raw.put(
        "methodConfig",
        List.of(Map.of("name", List.of(Map.of("service", "s.S")), "retryPolicy", retry)));
    raw.put("retryThrottling", Map.of("maxTokens", 7, "tokenRatio", 1));

    ServiceConfig config = ServiceConfigParser.parse(raw, REGISTRY);

    assertThat(config.methodConfig("s.S/M").retryPolicy().maxAttempts()).isEqualTo(5);
    assertThat(config.methodConfig("s.S/M").retryPolicy().backoffMultiplier()).isEqualTo(1.0);
    assertThat(config.retryThrottling()).isEqualTo(new RetryThrottlingPolicy(7, 1.0));
  }

  @Test
  void theConfigIsACopyUnaffectedByLaterChangesToTheMap() {
    List<Object> statusCodes = new ArrayList<>(List.of("UNAVAILABLE"));
    Map<String, Object> raw = new HashMap<>();
    raw.put("loadBalancingPolicy", "round_robin");
    raw.put("healthCheckConfig", new HashMap<>(Map.of("serviceName", "x", "codes", statusCodes)));

    ServiceConfig config = ServiceConfigParser.parse(raw, REGISTRY);
    ServiceConfig same = ServiceConfigParser.parse(raw, REGISTRY);
    statusCodes.add("ABORTED");
    raw.remove("loadBalancingPolicy");

    assertThat(config.raw())
        .isEqualTo(
            Map.of(
                "loadBalancingPolicy",
                "round_robin",
                "healthCheckConfig",
                Map.of("serviceName", "x", "codes", List.of("UNAVAILABLE"))));
    assertThat(config).isEqualTo(same).hasSameHashCodeAs(same);
    assertThat(config).isNotEqualTo(ServiceConfigParser.parse(raw, REGISTRY));
    assertThatThrownBy(() -> config.raw().clear())
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void configsFromTheSameJsonAreEqual() {
    String json = "{'loadBalancingConfig': [{'round_robin': {}}], 'unknownField': [1, 2]}";
    assertThat(parse(json)).isEqualTo(parse(json)).hasSameHashCodeAs(parse(json));
    assertThat(parse(json)).isNotEqualTo(ServiceConfig.EMPTY);
    assertThat(parse(json).toString()).contains("round_robin");
  }

  @Test
  void emptyConfigHasNothing() {
    for (ServiceConfig config : List.of(ServiceConfig.EMPTY, parse("{}"))) {
      assertThat(config.hasMethodConfigs()).isFalse();
      assertThat(config.methodConfig("a.B/C")).isNull();
      assertThat(config.retryThrottling()).isNull();
      assertThat(config.loadBalancingPolicyName()).isNull();
      assertThat(config.loadBalancingPolicyConfig()).isNull();
      assertThat(config.healthCheckServiceName()).isNull();
      assertThat(config.raw()).isEmpty();
    }
    assertThat(parse("{}")).isEqualTo(ServiceConfig.EMPTY);
  }

  @Test
  void unknownFieldsAreIgnoredEverywhere() {
    ServiceConfig config =
        parse(
            "{'future': {'x': 1}, 'methodConfig': [{'name': [{'service': 's.S', 'extra': 1}],"
                + " 'newKnob': true, 'hedgingPolicy': {'maxAttempts': 2, 'more': []}}],"
                + " 'retryThrottling': {'maxTokens': 1, 'tokenRatio': 1, 'burst': 3},"
                + " 'healthCheckConfig': {'serviceName': 'h', 'interval': '1s'}}");

    assertThat(config.methodConfig("s.S/M").hedgingPolicy().maxAttempts()).isEqualTo(2);
    assertThat(config.healthCheckServiceName()).isEqualTo("h");
  }

  @Test
  void nullValuesCountAsAbsent() {
    ServiceConfig config =
        parse("{'methodConfig': [{'name': [{}], 'timeout': null}], 'retryThrottling': null}");

    assertThat(config.methodConfig("a.B/C").timeoutNanos()).isNull();
    assertThat(config.retryThrottling()).isNull();
  }

  @Test
  void firstRegisteredLoadBalancingConfigWinsAndIsParsedByItsProvider() {
    ServiceConfig config =
        parse(
            "{'loadBalancingConfig': [{'grpclb': {'childPolicy': []}},"
                + " {'least_request': {'choiceCount': 3}}, {'round_robin': {}}],"
                + " 'loadBalancingPolicy': 'PICK_FIRST'}");

    assertThat(config.loadBalancingPolicyName()).isEqualTo("least_request");
    assertThat(config.loadBalancingPolicyConfig()).hasToString("LeastRequestConfig[choiceCount=3]");
  }

  @Test
  void legacyLoadBalancingPolicyIsLowercased() {
    ServiceConfig config = parse("{'loadBalancingPolicy': 'ROUND_ROBIN'}");

    assertThat(config.loadBalancingPolicyName()).isEqualTo("round_robin");
    assertThat(config.loadBalancingPolicyConfig()).isNotNull();
  }

  @Test
  void policiesComeFromTheGivenRegistry() {
    LoadBalancerRegistry registry = new LoadBalancerRegistry();
    registry.register(new RoundRobinLoadBalancerProvider());
    String json = "{'loadBalancingConfig': [{'pick_first': {}}, {'round_robin': {}}]}";

    assertThat(ServiceConfigParser.parseJson(quotes(json), registry).loadBalancingPolicyName())
        .isEqualTo("round_robin");
    assertThatThrownBy(
            () -> ServiceConfigParser.parseJson(quotes(json), new LoadBalancerRegistry()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "service config: loadBalancingConfig names no registered policy: asked for"
                + " [pick_first, round_robin], registered are []");
  }

  // Errors: each names the path of the field and the value.

  @Test
  void maxAttemptsBelowTwo() {
    assertError(
        retryPolicy("'maxAttempts': 1, 'retryableStatusCodes': ['UNAVAILABLE']"),
        "service config: methodConfig[0].retryPolicy.maxAttempts must be an integer >= 2,"
            + " was 1.0");
    assertError(
        retryPolicy("'maxAttempts': 2.5, 'retryableStatusCodes': ['UNAVAILABLE']"),
        "service config: methodConfig[0].retryPolicy.maxAttempts must be an integer >= 2,"
            + " was 2.5");
    assertError(
        "{'methodConfig': [{'name': [{}], 'hedgingPolicy': {'maxAttempts': '3'}}]}",
        "service config: methodConfig[0].hedgingPolicy.maxAttempts must be an integer >= 2,"
            + " was \"3\"");
  }

  @Test
  void okIsNeverARetryableOrNonFatalCode() {
    assertError(
        retryPolicy("'maxAttempts': 2, 'retryableStatusCodes': ['UNAVAILABLE', 'OK']"),
        "service config: methodConfig[0].retryPolicy.retryableStatusCodes[1] must not be OK (a"
            + " success is never retried), was \"OK\"");
    assertError(
        "{'methodConfig': [{'name': [{}], 'hedgingPolicy': {'maxAttempts': 2,"
            + " 'nonFatalStatusCodes': [0]}}]}",
        "service config: methodConfig[0].hedgingPolicy.nonFatalStatusCodes[0] must not be OK (a"
            + " success is never retried), was 0.0");
  }

  @Test
  void unknownStatusCode() {
    assertError(
        "{'methodConfig': [{'name': [{}]}, {'name': [{'service': 's.S'}], 'retryPolicy':"
            + " {'maxAttempts': 2, 'initialBackoff': '1s', 'maxBackoff': '1s',"
            + " 'backoffMultiplier': 2, 'retryableStatusCodes': ['UNAVAILABEL']}}]}",
        "service config: methodConfig[1].retryPolicy.retryableStatusCodes[0]: unknown status"
            + " code \"UNAVAILABEL\"");
    assertError(
        retryPolicy("'maxAttempts': 2, 'retryableStatusCodes': ['ABORTED', 17]"),
        "service config: methodConfig[0].retryPolicy.retryableStatusCodes[1]: unknown status"
            + " code 17.0");
    assertError(
        retryPolicy("'maxAttempts': 2, 'retryableStatusCodes': ['unavailable']"),
        "service config: methodConfig[0].retryPolicy.retryableStatusCodes[0]: unknown status"
            + " code \"unavailable\"");
    assertError(
        "{'methodConfig': [{'name': [{}], 'hedgingPolicy': {'maxAttempts': 2,"
            + " 'nonFatalStatusCodes': [true]}}]}",
        "service config: methodConfig[0].hedgingPolicy.nonFatalStatusCodes[0] must be a status"
            + " code name like \"UNAVAILABLE\" or 0..16, was true");
  }

  @Test
  void retryableStatusCodesRequiredAndNonEmpty() {
    assertError(
        retryPolicy("'maxAttempts': 2, 'retryableStatusCodes': []"),
        "service config: methodConfig[0].retryPolicy.retryableStatusCodes must not be empty");
    assertError(
        retryPolicy("'maxAttempts': 2"),
        "service config: methodConfig[0].retryPolicy.retryableStatusCodes is required");
    assertError(
        retryPolicy("'maxAttempts': 2, 'retryableStatusCodes': 'UNAVAILABLE'"),
        "service config: methodConfig[0].retryPolicy.retryableStatusCodes must be a list,"
            + " was \"UNAVAILABLE\"");
  }

  @Test
  void retryPolicyRequiredFieldsAndRanges() {
    String codes = "'retryableStatusCodes': [14]";
    assertError(
        "{'methodConfig': [{'name': [{}], 'retryPolicy': {" + codes + "}}]}",
        "service config: methodConfig[0].retryPolicy.maxAttempts is required");
    assertError(
        "{'methodConfig': [{'name': [{}], 'retryPolicy': {'maxAttempts': 2,"
            + " 'maxBackoff': '1s', 'backoffMultiplier': 2, "
            + codes
            + "}}]}",
        "service config: methodConfig[0].retryPolicy.initialBackoff is required");
    assertError(
        "{'methodConfig': [{'name': [{}], 'retryPolicy': {'maxAttempts': 2,"
            + " 'initialBackoff': '0s', 'maxBackoff': '1s', 'backoffMultiplier': 2, "
            + codes
            + "}}]}",
        "service config: methodConfig[0].retryPolicy.initialBackoff must be > 0, was \"0s\"");
    assertError(
        "{'methodConfig': [{'name': [{}], 'retryPolicy': {'maxAttempts': 2,"
            + " 'initialBackoff': '1s', 'maxBackoff': '-1s', 'backoffMultiplier': 2, "
            + codes
            + "}}]}",
        "service config: methodConfig[0].retryPolicy.maxBackoff must be > 0, was \"-1s\"");
    assertError(
        "{'methodConfig': [{'name': [{}], 'retryPolicy': {'maxAttempts': 2,"
            + " 'initialBackoff': '1s', 'maxBackoff': '1s', 'backoffMultiplier': 0, "
            + codes
            + "}}]}",
        "service config: methodConfig[0].retryPolicy.backoffMultiplier must be a number > 0,"
            + " was 0.0");
    assertError(
        "{'methodConfig': [{'name': [{}], 'retryPolicy': {'maxAttempts': 2,"
            + " 'initialBackoff': '1s', 'maxBackoff': '1s', 'backoffMultiplier': '2', "
            + codes
            + "}}]}",
        "service config: methodConfig[0].retryPolicy.backoffMultiplier must be a number > 0,"
            + " was \"2\"");
    assertError(
        "{'methodConfig': [{'name': [{}], 'retryPolicy': 3}]}",
        "service config: methodConfig[0].retryPolicy must be an object, was 3.0");
  }

  @Test
  void malformedDurations() {
    assertTimeoutError(
        "'5m'", "methodConfig[0].timeout: malformed duration \"5m\" (expected e.g. \"1.5s\")");
    assertTimeoutError(
        "'1.s'", "methodConfig[0].timeout: malformed duration \"1.s\" (expected e.g. \"1.5s\")");
    assertTimeoutError(
        "'s'", "methodConfig[0].timeout: malformed duration \"s\" (expected e.g. \"1.5s\")");
    assertTimeoutError(
        "' 1s'", "methodConfig[0].timeout: malformed duration \" 1s\" (expected e.g. \"1.5s\")");
    assertTimeoutError(
        "'1.0000000001s'",
        "methodConfig[0].timeout: duration \"1.0000000001s\" has more than 9 fractional digits");
    assertTimeoutError(
        "'315576000000.000000001s'",
        "methodConfig[0].timeout: duration \"315576000000.000000001s\" is out of range (at most"
            + " 315576000000s)");
    assertTimeoutError(
        "'-99999999999999999999s'",
        "methodConfig[0].timeout: duration \"-99999999999999999999s\" is out of range (at most"
            + " 315576000000s)");
    assertTimeoutError("'-1s'", "methodConfig[0].timeout must be >= 0, was \"-1s\"");
    assertTimeoutError(
        "5", "methodConfig[0].timeout must be a duration string like \"1.5s\", was 5.0");
    assertError(
        "{'methodConfig': [{'name': [{}], 'hedgingPolicy': {'maxAttempts': 2,"
            + " 'hedgingDelay': '-0.1s'}}]}",
        "service config: methodConfig[0].hedgingPolicy.hedgingDelay must be >= 0, was \"-0.1s\"");
  }

  @Test
  void retryAndHedgingTogether() {
    assertError(
        "{'methodConfig': [{'name': [{}], 'hedgingPolicy': {'maxAttempts': 2}, 'retryPolicy':"
            + " {'maxAttempts': 2}}]}",
        "service config: methodConfig[0] sets both retryPolicy and hedgingPolicy; at most one"
            + " is allowed");
  }

  @Test
  void badNames() {
    assertError(
        "{'methodConfig': [{'timeout': '1s'}]}",
        "service config: methodConfig[0].name is required");
    assertError(
        "{'methodConfig': [{'name': []}]}",
        "service config: methodConfig[0].name must not be empty");
    assertError(
        "{'methodConfig': [{'name': [{'method': 'Get'}]}]}",
        "service config: methodConfig[0].name[0]: method \"Get\" needs a service");
    assertError(
        "{'methodConfig': [{'name': [{'service': '', 'method': 'Get'}]}]}",
        "service config: methodConfig[0].name[0]: method \"Get\" needs a service");
    assertError(
        "{'methodConfig': [{'name': [{'service': 3}]}]}",
        "service config: methodConfig[0].name[0].service must be a string, was 3.0");
    assertError(
        "{'methodConfig': [{'name': ['pkg.Svc/Get']}]}",
        "service config: methodConfig[0].name[0] must be an object, was \"pkg.Svc/Get\"");
    assertError(
        "{'methodConfig': {'name': []}}",
        "service config: methodConfig must be a list, was {name=[]}");
  }

  @Test
  void nameListedTwice() {
    assertError(
        "{'methodConfig': [{'name': [{'service': 'p.S', 'method': 'Get'}]},"
            + " {'name': [{'service': 'p.S'}, {'service': 'p.S', 'method': 'Get'}]}]}",
        "service config: methodConfig[1].name[1]: method \"p.S/Get\" is already named at"
            + " methodConfig[0].name[0]");
    assertError(
        "{'methodConfig': [{'name': [{'service': 'p.S'}, {'service': 'p.S', 'method': ''}]}]}",
        "service config: methodConfig[0].name[1]: service \"p.S\" is already named at"
            + " methodConfig[0].name[0]");
    assertError(
        "{'methodConfig': [{'name': [{}]}, {'name': [{'service': ''}]}]}",
        "service config: methodConfig[1].name[0]: the default name (no service) is already named"
            + " at methodConfig[0].name[0]");
  }

  @Test
  void badMethodSettings() {
    assertError(
        "{'methodConfig': [{'name': [{}], 'waitForReady': 'yes'}]}",
        "service config: methodConfig[0].waitForReady must be true or false, was \"yes\"");
    assertError(
        "{'methodConfig': [{'name': [{}], 'maxRequestMessageBytes': -1}]}",
        "service config: methodConfig[0].maxRequestMessageBytes must be an integer >= 0,"
            + " was -1.0");
    assertError(
        "{'methodConfig': [{'name': [{}], 'maxResponseMessageBytes': 'lots'}]}",
        "service config: methodConfig[0].maxResponseMessageBytes must be an integer >= 0,"
            + " was \"lots\"");
    assertError(
        "{'methodConfig': [{'name': [{}], 'maxResponseMessageBytes': 1.5}]}",
        "service config: methodConfig[0].maxResponseMessageBytes must be an integer >= 0,"
            + " was 1.5");
    assertError(
        "{'methodConfig': [{'name': [{}], 'maxResponseMessageBytes': '-5'}]}",
        "service config: methodConfig[0].maxResponseMessageBytes must be an integer >= 0,"
            + " was \"-5\"");
  }

  @Test
  void badRetryThrottling() {
    assertError(
        "{'retryThrottling': {'maxTokens': 0, 'tokenRatio': 0.1}}",
        "service config: retryThrottling.maxTokens must be an integer >= 1, was 0.0");
    assertError(
        "{'retryThrottling': {'maxTokens': 1.5, 'tokenRatio': 0.1}}",
        "service config: retryThrottling.maxTokens must be an integer >= 1, was 1.5");
    assertError(
        "{'retryThrottling': {'tokenRatio': 0.1}}",
        "service config: retryThrottling.maxTokens is required");
    assertError(
        "{'retryThrottling': {'maxTokens': 10}}",
        "service config: retryThrottling.tokenRatio is required");
    assertError(
        "{'retryThrottling': {'maxTokens': 10, 'tokenRatio': -1}}",
        "service config: retryThrottling.tokenRatio must be a number > 0, was -1.0");
    assertError(
        "{'retryThrottling': {'maxTokens': 10, 'tokenRatio': 0.0009}}",
        "service config: retryThrottling.tokenRatio must be at least 0.001, was 9.0E-4");
    assertError(
        "{'retryThrottling': true}", "service config: retryThrottling must be an object, was true");
  }

  @Test
  void badLoadBalancingConfig() {
    assertError(
        "{'loadBalancingConfig': [{'no_such': {}}, {'nor_this': {}}]}",
        "service config: loadBalancingConfig names no registered policy: asked for [no_such,"
            + " nor_this], registered are [least_request, pick_first, round_robin]");
    assertError(
        "{'loadBalancingConfig': [{'least_request': {'choiceCount': 1}}]}",
        "service config: loadBalancingConfig[0].least_request: policy \"least_request\" refused"
            + " its config: least_request choiceCount must be an integer >= 2, was 1.0");
    assertError(
        "{'loadBalancingConfig': [{'round_robin': {}, 'pick_first': {}}]}",
        "service config: loadBalancingConfig[0] must be an object with exactly one field, the"
            + " policy name, was {round_robin={}, pick_first={}}");
    assertError(
        "{'loadBalancingConfig': [{'round_robin': []}]}",
        "service config: loadBalancingConfig[0].round_robin must be an object, was []");
    assertError(
        "{'loadBalancingConfig': 'round_robin'}",
        "service config: loadBalancingConfig must be a list, was \"round_robin\"");
  }

  @Test
  void badLegacyLoadBalancingPolicy() {
    assertError(
        "{'loadBalancingPolicy': 'GRPCLB'}",
        "service config: loadBalancingPolicy: no policy named \"grpclb\" is registered,"
            + " registered are [least_request, pick_first, round_robin]");
    assertError(
        "{'loadBalancingPolicy': 1}",
        "service config: loadBalancingPolicy must be a string, was 1.0");
  }

  @Test
  void badHealthCheckConfig() {
    assertError(
        "{'healthCheckConfig': {'serviceName': 5}}",
        "service config: healthCheckConfig.serviceName must be a string, was 5.0");
    assertError(
        "{'healthCheckConfig': 'svc'}",
        "service config: healthCheckConfig must be an object, was \"svc\"");
  }

  @Test
  void malformedJsonNamesTheOffset() {
    assertError(
        "{'methodConfig': [}",
        "service config: JSON: unexpected character '}' at offset 18," + " expected a value");
    assertThatThrownBy(() -> ServiceConfigParser.parseJson("[]", REGISTRY))
        .hasMessage("service config: JSON: expected an object at top level, got array");
  }

  private static ServiceConfig parse(String singleQuotedJson) {
    return ServiceConfigParser.parseJson(quotes(singleQuotedJson), REGISTRY);
  }

  private static long timeout(String json) {
    return parse("{'methodConfig': [{'name': [{}], 'timeout': " + json + "}]}")
        .methodConfig("a.B/C")
        .timeoutNanos();
  }

  private static String retryPolicy(String fields) {
    return "{'methodConfig': [{'name': [{}], 'retryPolicy': {'initialBackoff': '1s',"
        + " 'maxBackoff': '1s', 'backoffMultiplier': 2, "
        + fields
        + "}}]}";
  }

  private static void assertTimeoutError(String json, String message) {
    assertError(
        "{'methodConfig': [{'name': [{}], 'timeout': " + json + "}]}",
        "service config: " + message);
  }

  private static void assertError(String singleQuotedJson, String message) {
    assertThatThrownBy(() -> parse(singleQuotedJson))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  /** JSON with single quotes, so tests read without backslashes. */
  private static String quotes(String singleQuotedJson) {
    return singleQuotedJson.replace('\'', '"');
  }

  private static long seconds(long seconds) {
    return TimeUnit.SECONDS.toNanos(seconds);
  }
}
