package dev.tern.services.binarylog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.services.binarylog.BinaryLogFilter.Limits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BinaryLogFilterTest {
  private static final int ALL = Integer.MAX_VALUE;

  @Test
  void theEmptyFilterLogsNothing() {
    BinaryLogFilter filter = BinaryLogFilter.parse("");

    assertThat(filter.limitsFor("Foo/Bar")).isNull();
    assertThat(filter.logsNothing()).isTrue();
  }

  @Test
  void starLogsEveryMethodInFull() {
    BinaryLogFilter filter = BinaryLogFilter.parse("*");

    assertThat(filter.limitsFor("Foo/Bar")).isEqualTo(new Limits(ALL, ALL));
    assertThat(filter.limitsFor("pkg.Other/Call")).isEqualTo(Limits.ALL);
    assertThat(filter.logsNothing()).isFalse();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "*{h}          | 2147483647 | 0",
        "*{h:256}      | 256        | 0",
        "*{m}          | 0          | 2147483647",
        "*{m:256}      | 0          | 256",
        "*{h;m}        | 2147483647 | 2147483647",
        "*{h:10;m}     | 10         | 2147483647",
        "*{h;m:0}      | 2147483647 | 0",
        "*{h:1;m:2}    | 1          | 2",
        "*{h:0}        | 0          | 0",
      })
  void limitsSetWhatIsLoggedAndNamingOneLogsNothingOfTheOther(
      String filter, int headers, int messages) {
    assertThat(BinaryLogFilter.parse(filter).limitsFor("Foo/Bar"))
        .isEqualTo(new Limits(headers, messages));
  }

  @Test
  void theMostSpecificTermWins() {
    BinaryLogFilter filter =
        BinaryLogFilter.parse("*{h:1},Foo/*{m:2},Foo/Bar{h:3;m:4},-Foo/Secret,-Other/Secret");

    assertThat(filter.limitsFor("Foo/Bar")).isEqualTo(new Limits(3, 4));
    assertThat(filter.limitsFor("Foo/Baz")).isEqualTo(new Limits(0, 2));
    assertThat(filter.limitsFor("Foo/Secret")).isNull();
    assertThat(filter.limitsFor("Other/Secret")).isNull();
    assertThat(filter.limitsFor("Other/Call")).isEqualTo(new Limits(1, 0));
  }

  @Test
  void aServiceFilterLogsOnlyThatServiceMinusItsExclusions() {
    BinaryLogFilter filter = BinaryLogFilter.parse("pkg.Foo/*,-pkg.Foo/Bar");

    assertThat(filter.limitsFor("pkg.Foo/Baz")).isEqualTo(Limits.ALL);
    assertThat(filter.limitsFor("pkg.Foo/Bar")).isNull();
    assertThat(filter.limitsFor("pkg.Foo2/Baz")).isNull();
    assertThat(filter.limitsFor("pkg/Foo/Baz")).isNull();
  }

  @Test
  void onlyExclusionsLogNothing() {
    assertThat(BinaryLogFilter.parse("-Foo/Bar").logsNothing()).isTrue();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        // filter | offset of the faulty term | problem
        "Foo/Bar,,Foo/Baz | 8  | empty term",
        "Foo/Bar,         | 8  | empty term",
        "\",*\"           | 0  | empty term",
        "Foo              | 0  | expected '*', '<service>/*' or '<service>/<method>'",
        "*/Bar            | 0  | a method of every service ('*/<method>') is not supported",
        "/Bar             | 0  | empty service name at offset 0",
        "Foo/             | 0  | empty method name at offset 4",
        "Foo/Ba*r         | 0  | unexpected '*' in the method name at offset 6",
        "Foo/Bar/Baz      | 0  | unexpected '/' in the method name at offset 7",
        "*,-*             | 2  | the * wildcard is not allowed",
        "*,-Foo/*         | 2  | the * wildcard is not allowed",
        "-Foo/Bar{h}      | 0  | an exclusion takes no {h;m} limits",
        "*,*              | 2  | duplicate '*'",
        "Foo/*,*          | 6  | '*' must be the first term",
        "Foo/*,Foo/*{h}   | 6  | duplicate service Foo/*",
        "Foo/Bar,Foo/Bar  | 8  | duplicate method Foo/Bar",
        "-Foo/Bar,-Foo/Bar | 9 | duplicate exclusion of Foo/Bar",
        "Foo/Bar,-Foo/Bar | 8  | Foo/Bar is both logged and excluded",
        "-Foo/Bar,Foo/Bar | 9  | Foo/Bar is both logged and excluded",
        "*{}              | 0  | empty {} limits",
        "*{h:}            | 0  | expected 'h' or 'h:<bytes>' at offset 2",
        "*{h:1x}          | 0  | expected a number of bytes after 'h:' at offset 5",
        "*{h:-1}          | 0  | expected a number of bytes after 'h:' at offset 4",
        "*{x}             | 0  | expected 'h' or 'm' at offset 2",
        "*{m;h}           | 0  | expected 'h' at offset 2",
        "*{h;h}           | 0  | expected 'm' at offset 4 (h comes first, once)",
        "*{h:99999999999} | 0  | the h limit 99999999999 is too large",
        "*{h}x            | 0  | limits must be one {...} at the end of the term",
        "*{h}{m}          | 0  | limits must be one {...} at the end of the term",
        "*{h              | 0  | limits must be one {...} at the end of the term",
        "Foo/Bar}         | 0  | unexpected '}' in the method name at offset 7",
        "Foo /Bar         | 0  | unexpected ' ' in the service name at offset 3",
      })
  void malformedFiltersAreRefusedNamingTheTermItsOffsetAndTheProblem(
      String filter, int offset, String problem) {
    assertThatThrownBy(() -> BinaryLogFilter.parse(filter))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Invalid binary log filter \"" + filter + "\": term \"")
        .hasMessageContaining("\" at offset " + offset + ": ")
        .hasMessageContaining(problem);
  }

  @Test
  void theMessageQuotesTheFaultyTerm() {
    assertThatThrownBy(() -> BinaryLogFilter.parse("*,Foo/*{q}"))
        .hasMessage(
            "Invalid binary log filter \"*,Foo/*{q}\": term \"Foo/*{q}\" at offset 2: expected 'h'"
                + " or 'm' at offset 8; limits are {h}, {m} or {h;m}, each with an optional :N");
  }

  @Test
  void everyPrefixOfAValidFilterParsesOrFailsWithAnIllegalArgumentException() {
    String filter = "*{h:8;m:16},pkg.Foo/*{m},pkg.Foo/Bar{h},-pkg.Foo/Baz";
    assertThat(BinaryLogFilter.parse(filter).limitsFor("pkg.Foo/Bar"))
        .isEqualTo(new Limits(ALL, 0));
    for (int i = 0; i < filter.length(); i++) {
      String prefix = filter.substring(0, i);
      try {
        BinaryLogFilter.parse(prefix);
      } catch (IllegalArgumentException e) {
        assertThat(e).hasMessageStartingWith("Invalid binary log filter \"" + prefix + "\"");
      }
    }
  }
}
