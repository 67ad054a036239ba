package dev.tern.netty.internal.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.netty.internal.client.AltSvcHeader.Alternative;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** RFC 7838 section 3's grammar: what a server may send, and what a client must not trust. */
class AltSvcHeaderTest {
  @Test
  void aSameHostAlternativeWithTheDefaultMaxAge() {
    assertThat(AltSvcHeader.parse("h3=\":443\"").alternatives())
        .containsExactly(new Alternative("h3", "", 443, 86_400));
  }

  @Test
  void severalAlternativesWithParametersInOrder() {
    AltSvcHeader.Value value =
        AltSvcHeader.parse(
            "h3-29=\":8443\"; ma=60, h3=\"example.com:443\";ma=3600;persist=1 ,"
                + " h2=\"[::1]:81\"; foo=\"a;b\"");
    assertThat(value.clear()).isFalse();
    assertThat(value.alternatives())
        .containsExactly(
            new Alternative("h3-29", "", 8443, 60),
            new Alternative("h3", "example.com", 443, 3600),
            new Alternative("h2", "::1", 81, 86_400));
  }

  @Test
  void clearAndEmptyListElements() {
    assertThat(AltSvcHeader.parse(" clear ").clear()).isTrue();
    assertThat(AltSvcHeader.parse(",, h3=\":1\" ,").alternatives()).hasSize(1);
  }

  @Test
  void aHugeMaxAgeIsTakenAsTheLargestHeld() {
    assertThat(AltSvcHeader.parse("h3=\":1\"; ma=99999999999999999999").alternatives())
        .singleElement()
        .satisfies(a -> assertThat(a.maxAgeSeconds()).isPositive());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "Clear",
        "h3",
        "h3=:443",
        "h3=\":443",
        "h3=\"443\"",
        "h3=\":0\"",
        "h3=\":65536\"",
        "h3=\":44x\"",
        "h3=\"[::1]\"",
        "h3=\":443\"; ma=-1",
        "h3=\":443\"; ma",
        "h3=\":443\" h2=\":444\"",
        "h3=\":4\u0001\"",
        "\u00e9=\":443\""
      })
  void malformedValuesAreRejectedWithTheReason(String value) {
    assertThatThrownBy(() -> AltSvcHeader.parse(value))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("malformed alt-svc");
  }
}
