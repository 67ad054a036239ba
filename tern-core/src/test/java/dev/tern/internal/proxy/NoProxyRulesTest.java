package dev.tern.internal.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** NO_PROXY read as grpc-go and curl read it. */
class NoProxyRulesTest {
  @Test
  void emptyOrMissingExemptsNothing() {
    assertThat(NoProxyRules.parse(null).exempts("example.com", 443)).isFalse();
    assertThat(NoProxyRules.parse(" , ").exempts("example.com", 443)).isFalse();
  }

  @Test
  void starExemptsEverything() {
    assertThat(NoProxyRules.parse("foo.com, *").exempts("example.com", 443)).isTrue();
  }

  @Test
  void aDomainExemptsItselfAndItsSubdomainsWithoutCase() {
    NoProxyRules rules = NoProxyRules.parse("Example.COM");
    assertThat(rules.exempts("example.com", 443)).isTrue();
    assertThat(rules.exempts("api.EXAMPLE.com", 443)).isTrue();
    assertThat(rules.exempts("notexample.com", 443)).isFalse();
    assertThat(rules.exempts("example.com.evil", 443)).isFalse();
  }

  @Test
  void aLeadingDotOrStarDotExemptsSubdomainsOnly() {
    for (String list : new String[] {".example.com", "*.example.com"}) {
      NoProxyRules rules = NoProxyRules.parse(list);
      assertThat(rules.exempts("api.example.com", 443)).as(list).isTrue();
      assertThat(rules.exempts("example.com", 443)).as(list).isFalse();
    }
  }

  @Test
  void aPortLimitsTheEntryToThatPort() {
    NoProxyRules rules = NoProxyRules.parse("example.com:8443, [fd00::1]:50051");
    assertThat(rules.exempts("example.com", 8443)).isTrue();
    assertThat(rules.exempts("example.com", 443)).isFalse();
    assertThat(rules.exempts("[fd00::1]", 50051)).isTrue();
    assertThat(rules.exempts("fd00::1", 443)).isFalse();
  }

  @Test
  void addressesAndBlocksMatchAddressLiteralsOnly() {
    NoProxyRules rules = NoProxyRules.parse("10.0.0.0/8, 192.168.1.7, fd00::/8, 2001:db8::5");
    assertThat(rules.exempts("10.1.2.3", 443)).isTrue();
    assertThat(rules.exempts("11.1.2.3", 443)).isFalse();
    assertThat(rules.exempts("192.168.1.7", 80)).isTrue();
    assertThat(rules.exempts("192.168.1.8", 80)).isFalse();
    assertThat(rules.exempts("fd12::1", 443)).isTrue();
    assertThat(rules.exempts("[2001:db8::5]", 443)).isTrue();
    assertThat(rules.exempts("fe80::1", 443)).isFalse();
    assertThat(rules.exempts("ten.example", 443)).as("names are not looked up").isFalse();
  }

  @Test
  void aBlockWithAnOddPrefixComparesTheLeadingBits() {
    NoProxyRules rules = NoProxyRules.parse("172.16.0.0/12");
    assertThat(rules.exempts("172.31.255.255", 443)).isTrue();
    assertThat(rules.exempts("172.32.0.0", 443)).isFalse();
  }

  @Test
  void malformedEntriesMatchNothingAndBreakNothing() {
    NoProxyRules rules = NoProxyRules.parse("10.0.0.0/99, 999.1.1.1, host:port, ok.example");
    assertThat(rules.exempts("10.0.0.1", 443)).isFalse();
    assertThat(rules.exempts("ok.example", 443)).isTrue();
  }
}
