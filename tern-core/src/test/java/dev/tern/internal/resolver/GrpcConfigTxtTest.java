package dev.tern.internal.resolver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.NameResolver.ConfigOrError;
import dev.tern.NameResolver.ServiceConfigParser;
import dev.tern.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class GrpcConfigTxtTest {
  private static final String HOST = "client-1.example.com";

  private final List<Map<String, ?>> parsed = new ArrayList<>();
  private int hostnameLookups;

  /** Accepts every config as itself, except one with a "bad" field. */
  private final ServiceConfigParser parser =
      new ServiceConfigParser() {
        @Override
        public ConfigOrError parseServiceConfig(Map<String, ?> raw) {
          parsed.add(raw);
          if (raw.containsKey("bad")) {
            return ConfigOrError.fromError(
                Status.UNAVAILABLE.withDescription("service config: unknown field \"bad\""));
          }
          return ConfigOrError.fromConfig(raw);
        }
      };

  private final Supplier<String> hostname =
      () -> {
        hostnameLookups++;
        return HOST;
      };

  private ConfigOrError select(String... texts) {
    return GrpcConfigTxt.select(List.of(texts), hostname, () -> 50, parser);
  }

  @Test
  void theGrpcConfigRecordsChosenConfigIsParsed() {
    ConfigOrError config =
        select(
            "v=spf1 -all",
            "grpc_config=[{\"clientHostname\": [\"other\"], \"serviceConfig\": {\"n\": 1}},"
                + " {\"clientHostname\": [\""
                + HOST
                + "\"], \"serviceConfig\": {\"n\": 2}}]");

    assertThat(config.getError()).isNull();
    assertThat(config.getConfig()).isEqualTo(Map.of("n", 2.0));
    assertThat(hostnameLookups).isEqualTo(1);
  }

  @Test
  void withoutAGrpcConfigRecordThereIsNoConfigAndNoHostnameLookup() {
    assertThat(select()).isNull();
    assertThat(select("v=spf1 -all", "grpc_config", "GRPC_CONFIG=[]")).isNull();
    assertThat(hostnameLookups).isZero();
    assertThat(parsed).isEmpty();
  }

  @Test
  void noApplicableChoiceIsNoConfig() {
    assertThat(select("grpc_config=[{\"percentage\": 10, \"serviceConfig\": {}}]")).isNull();
    assertThat(select("grpc_config=[]")).isNull();
    assertThat(parsed).isEmpty();
  }

  @Test
  void twoGrpcConfigRecordsAreAnError() {
    ConfigOrError config =
        select("grpc_config=[{\"serviceConfig\": {}}]", "grpc_config=[{\"serviceConfig\": {}}]");

    assertThat(config.getError().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(config.getError().getDescription())
        .isEqualTo("more than one grpc_config TXT record");
  }

  @Test
  void aMalformedRecordIsAnErrorNamingTheProblem() {
    ConfigOrError notJson = select("grpc_config={not json");
    ConfigOrError unknownField = select("grpc_config=[{\"serviceConfig\": {}, \"weight\": 1}]");

    assertThat(notJson.getError().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(notJson.getError().getDescription()).startsWith("grpc_config TXT record: ");
    assertThat(unknownField.getError().getDescription()).contains("choice[0]").contains("weight");
    assertThat(parsed).isEmpty();
  }

  @Test
  void aChosenConfigTheParserRefusesIsAnErrorWithItsMessage() {
    ConfigOrError config = select("grpc_config=[{\"serviceConfig\": {\"bad\": true}}]");

    assertThat(config.getError().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(config.getError().getDescription())
        .contains("grpc_config TXT record")
        .contains("unknown field \"bad\"");
  }
}
