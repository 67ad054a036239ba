package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JsonTest {
  @Test
  void values() {
    assertThat(
            Json.parse(
                " {\"a\": [1, -2.5e1, \"s\\u00e9\\n\\\"\", true, false, null], \"b\": {}, \"c\": []} "))
        .isEqualTo(
            Map.of(
                "a",
                List.of(1.0, -25.0, "s\u00e9\n\"", true, false, Json.NULL),
                "b",
                Map.of(),
                "c",
                List.of()));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "'' | offset 0: unexpected end of input",
        "{ | offset 1: expected a string key",
        "{\"a\" 1} | offset 5: expected ':'",
        "{\"a\": 1 | offset 7: expected ',' or '}'",
        "[1 2] | offset 3: expected ',' or ']'",
        "\"abc | unterminated string",
        "\"\\x\" | bad escape",
        "\"\\u12\" | \\u escape",
        "01 | offset 1: unexpected text after the value",
        "- | bad number",
        "1. | bad number",
        "tru | unexpected character 't'",
        "{} x | unexpected text after the value",
      })
  void errors(String json, String message) {
    assertThatThrownBy(() -> Json.parse(json))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }

  @Test
  void depthIsBounded() {
    assertThatThrownBy(() -> Json.parse("[".repeat(200)))
        .hasMessageContaining("nested deeper than 100");
  }
}
