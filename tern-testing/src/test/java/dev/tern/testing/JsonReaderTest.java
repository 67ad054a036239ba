package dev.tern.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonReaderTest {
  @Test
  void readsEveryKindOfValue() {
    Object value =
        JsonReader.read(
            " {\"s\":\"a\\\"b\\\\c\\/\\n\\u00e9\",\"n\":-12.5e1,\"z\":0,\"t\":true,\"f\":false,"
                + "\"null\":null,\"a\":[1,[],{}]} ");

    assertThat(value).isInstanceOf(Map.class);
    @SuppressWarnings("unchecked")
    Map<String, Object> object = (Map<String, Object>) value;
    assertThat(object.keySet()).containsExactly("s", "n", "z", "t", "f", "null", "a");
    assertThat(object.get("s")).isEqualTo("a\"b\\c/\n\u00e9");
    assertThat(object.get("n")).isEqualTo(-125.0);
    assertThat(object.get("z")).isEqualTo(0.0);
    assertThat(object.get("t")).isEqualTo(true);
    assertThat(object.get("f")).isEqualTo(false);
    assertThat(object.get("null")).isNull();
    assertThat(object.get("a")).isEqualTo(List.of(1.0, List.of(), Map.of()));
    assertThat(JsonReader.read("[null]")).isEqualTo(Arrays.asList((Object) null));
  }

  @Test
  void rejectsWhatIsNotJson() {
    for (String bad :
        List.of("", "{", "[1,]", "{\"a\" 1}", "01", "1.", "\"\\x\"", "tru", "1 2", "\"a\nb\"")) {
      assertThatThrownBy(() -> JsonReader.read(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("not JSON: ");
    }
  }
}
