package dev.tern.internal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonParserTest {

  @Test
  void parsesEveryKindOfValue() {
    Object value =
        JsonParser.parse(
            " {\"s\": \"x\", \"n\": -1.5e2, \"i\": 0, \"t\": true, \"f\": false, \"z\": null,"
                + " \"a\": [1, \"two\", null, {}], \"o\": {\"k\": []}}\r\n\t");

    Map<String, Object> expected = new HashMap<>();
    expected.put("s", "x");
    expected.put("n", -150.0);
    expected.put("i", 0.0);
    expected.put("t", true);
    expected.put("f", false);
    expected.put("z", null);
    expected.put("a", Arrays.asList(1.0, "two", null, Map.of()));
    expected.put("o", Map.of("k", List.of()));
    assertThat(value).isEqualTo(expected);
  }

  @Test
  void objectsKeepDocumentOrderAndCannotBeModified() {
    Map<String, ?> map = JsonParser.parseObject("{\"c\": 1, \"a\": 2, \"b\": 3}");

    assertThat(map.keySet()).containsExactly("c", "a", "b");
    assertThatThrownBy(() -> map.clear()).isInstanceOf(UnsupportedOperationException.class);
    List<?> list = (List<?>) JsonParser.parse("[1]");
    assertThatThrownBy(() -> list.remove(0)).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void numbersAreDoubles() {
    assertThat(JsonParser.parse("4")).isEqualTo(4.0);
    assertThat(JsonParser.parse("-0")).isEqualTo(-0.0);
    assertThat(JsonParser.parse("0.25")).isEqualTo(0.25);
    assertThat(JsonParser.parse("1E3")).isEqualTo(1000.0);
    assertThat(JsonParser.parse("1e+2")).isEqualTo(100.0);
    assertThat(JsonParser.parse("25e-2")).isEqualTo(0.25);
  }

  @Test
  void decodesEveryEscape() {
    assertThat(JsonParser.parse("\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9\\u20AC\""))
        .isEqualTo("\" \\ / \b \f \n \r \t é€");
  }

  @Test
  void surrogatePairsBecomeOneCodePointAndLoneSurrogatesPassThrough() {
    String emoji = (String) JsonParser.parse("\"\\ud83d\\ude00\"");
    assertThat(emoji.codePointAt(0)).isEqualTo(0x1F600);
    assertThat(JsonParser.parse("\"\\ud83d!\"")).isEqualTo("\ud83d!");
    assertThat(JsonParser.parse("\"\uD83D\uDE00\"")).isEqualTo("\uD83D\uDE00");
  }

  @Test
  void nestingUpToTheLimitIsAccepted() {
    String json = "[".repeat(JsonParser.MAX_DEPTH) + "]".repeat(JsonParser.MAX_DEPTH);
    assertThat(JsonParser.parse(json)).isInstanceOf(List.class);
  }

  @Test
  void nestingBeyondTheLimitIsRefused() {
    String json = "{\"a\":".repeat(JsonParser.MAX_DEPTH) + "[]" + "}".repeat(JsonParser.MAX_DEPTH);
    assertError(json, "JSON: nesting deeper than 100 levels at offset 500");
  }

  @Test
  void unexpectedCharacterNamesItAndItsOffset() {
    assertError(
        "{\"a\": 1, \"b\": x}", "JSON: unexpected character 'x' at offset 14, expected a value");
  }

  @Test
  void duplicateKeyNamesItAndItsOffset() {
    assertError(
        "{\"maxAttempts\": 2, \"maxAttempts\": 3}",
        "JSON: duplicate key \"maxAttempts\" at offset 19");
  }

  @Test
  void trailingDataIsRefused() {
    assertError("{} {}", "JSON: unexpected character '{' at offset 3 after the value");
    assertError("[1]]", "JSON: unexpected character ']' at offset 3 after the value");
  }

  @Test
  void truncatedDocumentsAreRefused() {
    assertError("", "JSON: unexpected end of input at offset 0, expected a value");
    assertError("  ", "JSON: unexpected end of input at offset 2, expected a value");
    assertError("[1,", "JSON: unexpected end of input at offset 3, expected a value");
    assertError("{\"a\":1", "JSON: unexpected end of input at offset 6, expected ',' or '}'");
    assertError("{\"a\" 1}", "JSON: unexpected character '1' at offset 5, expected ':'");
    assertError("\"abc", "JSON: unterminated string at offset 0");
    assertError("[\"abc\\", "JSON: unterminated string at offset 1");
  }

  @Test
  void structuralMistakesAreRefused() {
    assertError("[1 2]", "JSON: unexpected character '2' at offset 3, expected ',' or ']'");
    assertError("[1,]", "JSON: unexpected character ']' at offset 3, expected a value");
    assertError("{,}", "JSON: unexpected character ',' at offset 1, expected a string key");
    assertError("{\"a\":1,}", "JSON: unexpected character '}' at offset 7, expected a string key");
    assertError("{a:1}", "JSON: unexpected character 'a' at offset 1, expected a string key");
    assertError("['a']", "JSON: unexpected character ''' at offset 1, expected a value");
  }

  @Test
  void controlCharactersInStringsAreRefused() {
    assertError("\"a\nb\"", "JSON: unescaped control character U+000A in a string at offset 2");
    assertError("\"\u0000\"", "JSON: unescaped control character U+0000 in a string at offset 1");
  }

  @Test
  void badEscapesAreRefused() {
    assertError("\"\\x\"", "JSON: invalid escape '\\x' at offset 1");
    assertError("\"\\u12G4\"", "JSON: malformed \\u escape at offset 1, expected 4 hex digits");
    assertError("\"\\u12", "JSON: malformed \\u escape at offset 1, expected 4 hex digits");
  }

  @Test
  void numbersOutsideTheGrammarAreRefused() {
    assertError("01", "JSON: number with a leading zero at offset 0");
    assertError("[-007]", "JSON: number with a leading zero at offset 1");
    assertError("-", "JSON: malformed number at offset 0, expected a digit after '-'");
    assertError("1.", "JSON: malformed number at offset 0, expected a digit after '.'");
    assertError("1.e5", "JSON: malformed number at offset 0, expected a digit after '.'");
    assertError("1e", "JSON: malformed number at offset 0, expected a digit in the exponent");
    assertError(".5", "JSON: unexpected character '.' at offset 0, expected a value");
    assertError("+1", "JSON: unexpected character '+' at offset 0, expected a value");
    assertError("1e400", "JSON: number 1e400 out of range at offset 0");
  }

  @Test
  void nanInfinityAndOtherWordsAreRefused() {
    assertError("NaN", "JSON: unexpected word \"NaN\" at offset 0");
    assertError("[Infinity]", "JSON: unexpected word \"Infinity\" at offset 1");
    assertError("-Infinity", "JSON: malformed number at offset 0, expected a digit after '-'");
    assertError("True", "JSON: unexpected word \"True\" at offset 0");
    assertError("nul", "JSON: unexpected word \"nul\" at offset 0");
  }

  @Test
  void onlyRfcWhitespaceIsSkipped() {
    assertError("\u00a0{}", "JSON: unexpected character '\u00a0' at offset 0, expected a value");
    assertError("{}\f", "JSON: unexpected control character U+000C at offset 2 after the value");
  }

  @Test
  void parseObjectRequiresAnObject() {
    assertThatThrownBy(() -> JsonParser.parseObject("[{}]"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("JSON: expected an object at top level, got array");
    assertThatThrownBy(() -> JsonParser.parseObject("null"))
        .hasMessage("JSON: expected an object at top level, got null");
  }

  private static void assertError(String json, String message) {
    assertThatThrownBy(() -> JsonParser.parse(json))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }
}
