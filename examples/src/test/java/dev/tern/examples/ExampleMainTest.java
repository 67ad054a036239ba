package dev.tern.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The flags of the examples' main programs. */
class ExampleMainTest {
  private static final String[] ARGS = {"--target=localhost:1", "--calls=7", "--disable-retry"};

  @Test
  void aFlagGivesItsValueOrTheDefault() {
    assertThat(ExampleMain.flag(ARGS, "target", "x")).isEqualTo("localhost:1");
    assertThat(ExampleMain.flag(ARGS, "name", "world")).isEqualTo("world");
    assertThat(ExampleMain.flag(new String[] {"--name=a", "--name=b"}, "name", "c")).isEqualTo("b");
    assertThat(ExampleMain.intFlag(ARGS, "calls", 20)).isEqualTo(7);
    assertThat(ExampleMain.intFlag(ARGS, "port", 50051)).isEqualTo(50051);
    assertThat(ExampleMain.hasFlag(ARGS, "disable-retry")).isTrue();
    assertThat(ExampleMain.hasFlag(ARGS, "calls")).isFalse();
  }

  @Test
  void aNumberFlagThatIsNotANumberIsRefusedByName() {
    assertThatThrownBy(() -> ExampleMain.intFlag(new String[] {"--port=http"}, "port", 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--port must be a number, was 'http'");
  }
}
