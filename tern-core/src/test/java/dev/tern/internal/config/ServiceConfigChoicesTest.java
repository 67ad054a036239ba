package dev.tern.internal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.LoadBalancerRegistry;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

class ServiceConfigChoicesTest {
  private static final String HOST = "client-1.example.com";

  @Test
  void firstApplicableChoiceWins() {
    String json =
        "[{'clientLanguage': ['go', 'c++'], 'serviceConfig': {'n': 1}},"
            + " {'clientLanguage': ['JAVA'], 'serviceConfig': {'n': 2}},"
            + " {'serviceConfig': {'n': 3}}]";

    assertThat(select(json, 0)).isEqualTo(Map.of("n", 2.0));
  }

  @Test
  void percentageAppliesBelowTheDrawnPercentile() {
    String json = "[{'percentage': 30, 'serviceConfig': {'n': 1}}, {'serviceConfig': {'n': 2}}]";

    assertThat(select(json, 29)).isEqualTo(Map.of("n", 1.0));
    assertThat(select(json, 30)).isEqualTo(Map.of("n", 2.0));
    assertThat(select("[{'percentage': 0, 'serviceConfig': {}}]", 0)).isNull();
    assertThat(select("[{'percentage': 100, 'serviceConfig': {}}]", 99)).isEqualTo(Map.of());
  }

  @Test
  void percentileIsDrawnOncePerSelect() {
    AtomicInteger draws = new AtomicInteger();
    IntSupplier percentile =
        () -> {
          draws.incrementAndGet();
          return 50;
        };
    String json =
        quotes(
            "[{'percentage': 10, 'serviceConfig': {'n': 1}},"
                + " {'percentage': 40, 'serviceConfig': {'n': 2}},"
                + " {'percentage': 60, 'serviceConfig': {'n': 3}}]");

    assertThat(ServiceConfigChoices.select(json, HOST, percentile)).isEqualTo(Map.of("n", 3.0));
    assertThat(draws).hasValue(1);
  }

  @Test
  void clientHostnameMustMatch() {
    String json =
        "[{'clientHostname': ['other.example.com'], 'serviceConfig': {'n': 1}},"
            + " {'clientHostname': ['x', '"
            + HOST
            + "'], 'serviceConfig': {'n': 2}}]";

    assertThat(select(json, 0)).isEqualTo(Map.of("n", 2.0));
  }

  @Test
  void allConditionsMustHold() {
    String json =
        "[{'clientLanguage': ['java'], 'percentage': 50, 'clientHostname': ['other'],"
            + " 'serviceConfig': {'n': 1}}]";

    assertThat(select(json, 0)).isNull();
  }

  @Test
  void emptyListsRestrictNothing() {
    String json = "[{'clientLanguage': [], 'clientHostname': [], 'serviceConfig': {'n': 1}}]";

    assertThat(select(json, 0)).isEqualTo(Map.of("n", 1.0));
  }

  @Test
  void noChoicesSelectsNothing() {
    assertThat(select("[]", 0)).isNull();
  }

  @Test
  void selectedConfigParsesAsAServiceConfig() {
    String json =
        "[{'serviceConfig': {'loadBalancingConfig': [{'round_robin': {}}], 'methodConfig':"
            + " [{'name': [{}], 'waitForReady': true}]}}]";

    ServiceConfig config =
        ServiceConfigParser.parse(select(json, 0), LoadBalancerRegistry.getDefaultRegistry());

    assertThat(config.loadBalancingPolicyName()).isEqualTo("round_robin");
    assertThat(config.methodConfig("a.B/C").waitForReady()).isTrue();
  }

  @Test
  void unknownFieldInAChoiceIsAnError() {
    assertError(
        "[{'serviceConfig': {}}, {'clientLanguage': ['java'], 'clientHost': ['h'],"
            + " 'serviceConfig': {}}]",
        "grpc_config TXT record: choice[1] has unknown field \"clientHost\"");
  }

  @Test
  void wrongTypesAreErrors() {
    assertError(
        "[{'clientLanguage': 'java', 'serviceConfig': {}}]",
        "grpc_config TXT record: choice[0].clientLanguage must be a list, was \"java\"");
    assertError(
        "[{'clientLanguage': ['java', 1], 'serviceConfig': {}}]",
        "grpc_config TXT record: choice[0].clientLanguage[1] must be a string, was 1.0");
    assertError(
        "[{'clientHostname': [true], 'serviceConfig': {}}]",
        "grpc_config TXT record: choice[0].clientHostname[0] must be a string, was true");
    assertError(
        "[{'percentage': 101, 'serviceConfig': {}}]",
        "grpc_config TXT record: choice[0].percentage must be an integer from 0 to 100,"
            + " was 101.0");
    assertError(
        "[{'percentage': 12.5, 'serviceConfig': {}}]",
        "grpc_config TXT record: choice[0].percentage must be an integer from 0 to 100,"
            + " was 12.5");
    assertError(
        "[{'percentage': 10}]", "grpc_config TXT record: choice[0].serviceConfig is required");
    assertError(
        "[{'serviceConfig': []}]",
        "grpc_config TXT record: choice[0].serviceConfig must be an object, was []");
    assertError("[42]", "grpc_config TXT record: choice[0] must be an object, was 42.0");
  }

  @Test
  void laterBrokenChoicesFailEvenWhenAnEarlierOneApplies() {
    assertError(
        "[{'serviceConfig': {}}, {'percentage': -1, 'serviceConfig': {}}]",
        "grpc_config TXT record: choice[1].percentage must be an integer from 0 to 100,"
            + " was -1.0");
  }

  @Test
  void malformedJsonOrNotAnArray() {
    assertError(
        "[{'serviceConfig': {}}",
        "grpc_config TXT record: JSON: unexpected end of input at offset 22, expected ',' or"
            + " ']'");
    assertError(
        "{'serviceConfig': {}}",
        "grpc_config TXT record: expected a JSON array of choices, got object");
  }

  private static Map<String, ?> select(String singleQuotedJson, int percentile) {
    return ServiceConfigChoices.select(quotes(singleQuotedJson), HOST, () -> percentile);
  }

  private static void assertError(String singleQuotedJson, String message) {
    assertThatThrownBy(() -> select(singleQuotedJson, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  private static String quotes(String singleQuotedJson) {
    return singleQuotedJson.replace('\'', '"');
  }
}
