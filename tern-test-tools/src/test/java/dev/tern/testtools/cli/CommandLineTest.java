package dev.tern.testtools.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class CommandLineTest {
  private static final CommandLine TOOL =
      CommandLine.builder("tool", "does one thing well")
          .flag("port", "N", "8080", "the port to listen on")
          .flag("target", "HOST:PORT", null, "where to connect;\nsee the docs")
          .bool("verbose", "say more")
          .note("Exit status 1 when anything failed.")
          .example("bin/tool --port=0 --verbose");

  private static CommandLine.Exit exitOf(String... args) {
    try {
      TOOL.parse(args);
    } catch (CommandLine.Exit exit) {
      return exit;
    }
    throw new AssertionError("no Exit for " + String.join(" ", args));
  }

  @Test
  void helpListsEveryFlagWithItsDefaultTheNotesAndTheExample() {
    String help = TOOL.help();

    assertThat(help)
        .startsWith("tool: does one thing well\n")
        .contains("Usage: bin/tool [FLAGS]")
        .contains("  --port=N                the port to listen on (default: 8080)\n")
        .contains("  --target=HOST:PORT      where to connect;\n")
        .contains("                          see the docs (default: none)\n")
        .contains("  --verbose[=true|false]  say more (default: false)\n")
        .contains("  -h, --help              print this and exit\n")
        .contains("Exit status 1 when anything failed.")
        .endsWith("Example:\n  bin/tool --port=0 --verbose\n");
  }

  @Test
  void helpAndHAnywhereAskForTheHelpWithStatusZeroOnStandardOutput() {
    for (String[] args :
        new String[][] {{"--help"}, {"-h"}, {"--port=1", "--help"}, {"--nonsense", "-h"}}) {
      CommandLine.Exit exit = exitOf(args);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();

      assertThat(exit.report(print(out), print(err))).isZero();
      assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(TOOL.help());
      assertThat(err.size()).isZero();
    }
  }

  @Test
  void badArgumentsAreOneLineNamingTheFlagWithStatusTwoOnStandardError() {
    assertError(exitOf("--prot=1"), "tool: unknown flag --prot; see --help\n");
    assertError(exitOf("port=1"), "tool: unexpected argument 'port=1' (flags are --name=value)");
    assertError(exitOf("--"), "tool: unexpected argument '--'");
    assertError(exitOf("--port"), "tool: --port needs a value: --port=N; see --help\n");
    assertError(exitOf("--verbose=yes"), "tool: --verbose is true or false, got 'yes'");
    assertError(exitOf("--port=1", "--port=2"), "tool: --port given twice; see --help\n");
  }

  private static void assertError(CommandLine.Exit exit, String expected) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();

    assertThat(exit.report(print(out), print(err))).isEqualTo(2);
    assertThat(out.size()).isZero();
    String text = err.toString(StandardCharsets.UTF_8);
    assertThat(text).contains(expected).endsWith("; see --help\n");
    assertThat(text.strip()).doesNotContain("\n");
    assertThat(exit.getStackTrace()).isEmpty();
  }

  @Test
  void valuesAreTheGivenOnesElseTheDefaults() {
    CommandLine.Values given = TOOL.parse("--port=9", "--target=h:1", "--verbose");
    CommandLine.Values defaults = TOOL.parse();

    assertThat(given.integer("port", 0)).isEqualTo(9);
    assertThat(given.string("target")).isEqualTo("h:1");
    assertThat(given.bool("verbose")).isTrue();
    assertThat(given.has("port")).isTrue();
    assertThat(TOOL.parse("--verbose=false").bool("verbose")).isFalse();
    assertThat(defaults.integer("port", 0)).isEqualTo(8080);
    assertThat(defaults.string("target")).isNull();
    assertThat(defaults.bool("verbose")).isFalse();
    assertThat(defaults.has("port")).isFalse();
  }

  @Test
  void wrongNumbersNameTheFlag() {
    assertThatThrownBy(() -> TOOL.parse("--port=x").integer("port", 0))
        .isInstanceOf(CommandLine.Exit.class)
        .hasMessage("tool: --port needs a whole number, got 'x'; see --help");
    assertThatThrownBy(() -> TOOL.parse("--port=-1").integer("port", 0))
        .hasMessage("tool: --port must be at least 0, got -1; see --help");
    assertThat(TOOL.usageError("--a and --b exclude each other").getMessage())
        .isEqualTo("tool: --a and --b exclude each other; see --help");
  }

  @Test
  void aFailedCallIsOneLineThatSaysWhetherTheServerWasReached() {
    assertThat(TOOL.callFailure("h:1", "UNAVAILABLE", "Connection refused"))
        .isEqualTo("tool: could not connect to h:1: UNAVAILABLE: Connection refused");
    assertThat(TOOL.callFailure("h:1", "INTERNAL", "two\nlines"))
        .isEqualTo("tool: a call to h:1 failed: INTERNAL: two lines");
  }

  @Test
  void askingForAnUndeclaredFlagIsAProgrammingError() {
    CommandLine.Values values = TOOL.parse();

    assertThatThrownBy(() -> values.string("prot"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("declares no flag --prot");
    assertThatThrownBy(() -> values.bool("port"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--port is not a boolean flag");
  }

  @Test
  void badDeclarationsNameTheArgument() {
    CommandLine.Builder builder = CommandLine.builder("p", "s").flag("a", "N", "1", "a");

    assertThatThrownBy(() -> builder.flag("a", "N", "1", "again"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("name: --a is declared already");
    assertThatThrownBy(() -> builder.bool("help", "no"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("name: 'help'");
    assertThatThrownBy(() -> builder.bool("Bad Name", "no"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("name: 'Bad Name'");
    assertThatThrownBy(() -> CommandLine.builder("p", "two\nlines"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("summary");
    assertThatThrownBy(() -> builder.flag("b", null, "1", "b"))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("valueName");
  }

  @Test
  void aProgramOutsideBinSaysHowItIsStarted() {
    CommandLine other = CommandLine.builder("p", "s").usage("java -cp CP p.Main").example("x");

    assertThat(other.help()).contains("Usage: java -cp CP p.Main\n");
    assertThat(CommandLine.builder("p", "s").example("x").help()).contains("Usage: bin/p\n");
  }

  private static PrintStream print(ByteArrayOutputStream bytes) {
    return new PrintStream(bytes, true, StandardCharsets.UTF_8);
  }
}
