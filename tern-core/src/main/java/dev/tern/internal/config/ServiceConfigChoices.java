package dev.tern.internal.config;

import static dev.tern.internal.config.ConfigValues.integer;
import static dev.tern.internal.config.ConfigValues.list;
import static dev.tern.internal.config.ConfigValues.object;
import static dev.tern.internal.config.ConfigValues.show;
import static dev.tern.internal.config.ConfigValues.string;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * Picks the service config for this client from a DNS {@code _grpc_config} TXT record (gRFC A2).
 * The record holds {@code grpc_config=} and a JSON array of choices; each choice may restrict
 * itself to client languages ({@code clientLanguage}), a share of clients ({@code percentage}) and
 * client host names ({@code clientHostname}), and carries a {@code serviceConfig}. The first choice
 * that applies wins.
 *
 * <p>Every choice is checked, not only those before the winner, so a broken record fails the same
 * way whatever the random draw. An empty {@code clientLanguage} or {@code clientHostname} list
 * restricts nothing, as proto3 cannot tell it from an absent one.
 *
 * <p>Stateless; thread-safe.
 */
public final class ServiceConfigChoices {
  private static final String PREFIX = "grpc_config TXT record: ";
  private static final Set<String> FIELDS =
      Set.of("clientLanguage", "percentage", "clientHostname", "serviceConfig");

  private ServiceConfigChoices() {}

  /**
   * The service config of the first choice that applies to this client, or null if none does.
   *
   * @param choicesJson the record's text after {@code grpc_config=}
   * @param clientHostname this client's host name, matched exactly against {@code clientHostname}
   * @param percentile draws this client's percentile, 0..99, once per call, against {@code
   *     percentage}
   * @throws IllegalArgumentException if the text is not a JSON array of valid choices
   */
  public static Map<String, ?> select(
      String choicesJson, String clientHostname, IntSupplier percentile) {
    Objects.requireNonNull(percentile, "percentile");
    Object parsed;
    try {
      parsed = JsonParser.parse(Objects.requireNonNull(choicesJson, "choicesJson"));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(PREFIX + e.getMessage(), e);
    }
    if (!(parsed instanceof List<?> choices)) {
      throw new IllegalArgumentException(
          PREFIX + "expected a JSON array of choices, got " + JsonParser.typeName(parsed));
    }
    int drawn = percentile.getAsInt();
    Map<String, ?> selected = null;
    for (int i = 0; i < choices.size(); i++) {
      String path = PREFIX + "choice[" + i + "]";
      Map<String, ?> choice = object(choices.get(i), path);
      for (String field : choice.keySet()) {
        if (!FIELDS.contains(field)) {
          throw new IllegalArgumentException(path + " has unknown field " + show(field));
        }
      }
      List<?> languages = optionalStrings(choice.get("clientLanguage"), path + ".clientLanguage");
      List<?> hostnames = optionalStrings(choice.get("clientHostname"), path + ".clientHostname");
      Object percentage = choice.get("percentage");
      long percent = percentage == null ? 100 : integer(percentage, path + ".percentage", 0, 100);
      Object serviceConfig = choice.get("serviceConfig");
      if (serviceConfig == null) {
        throw new IllegalArgumentException(path + ".serviceConfig is required");
      }
      Map<String, ?> config = object(serviceConfig, path + ".serviceConfig");
      boolean applies =
          (languages.isEmpty() || containsJava(languages))
              && drawn < percent
              && (hostnames.isEmpty() || hostnames.contains(clientHostname));
      if (applies && selected == null) {
        selected = config;
      }
    }
    return selected;
  }

  private static List<?> optionalStrings(Object value, String path) {
    if (value == null) {
      return List.of();
    }
    List<?> strings = list(value, path);
    for (int i = 0; i < strings.size(); i++) {
      string(strings.get(i), path + "[" + i + "]");
    }
    return strings;
  }

  private static boolean containsJava(List<?> languages) {
    for (Object language : languages) {
      if (((String) language).equalsIgnoreCase("java")) {
        return true;
      }
    }
    return false;
  }
}
