package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.xds.XdsTlsContext.Kind;
import dev.tern.xds.XdsTlsContext.SanMatcher;
import dev.tern.xds.XdsTlsContext.SanType;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** SAN matching as A29 and RFC 6125 describe it: wildcards, case, trailing dots, types, IPs. */
class SubjectAltNameRulesTest {
  private static SanMatcher exact(String value) {
    return new SanMatcher(Kind.EXACT, value, null, false);
  }

  @Test
  void dnsWildcard_standsForExactlyOneLeftmostLabel() {
    SanMatcher matcher = exact("orders.mesh.example.com");
    assertThat(matcher.matches(SanType.DNS, "*.mesh.example.com")).isTrue();
    assertThat(matcher.matches(SanType.DNS, "orders.mesh.example.com")).isTrue();
    assertThat(matcher.matches(SanType.DNS, "*.example.com")).isFalse(); // two labels
    assertThat(exact("mesh.example.com").matches(SanType.DNS, "*.mesh.example.com")).isFalse();
    assertThat(exact("a.com").matches(SanType.DNS, "*.com")).isFalse(); // a whole TLD
    assertThat(exact("a.b.example.com").matches(SanType.DNS, "*.*.example.com")).isFalse();
    assertThat(matcher.matches(SanType.DNS, "o*.mesh.example.com")).isFalse();
  }

  @Test
  void dnsExact_ignoresTrailingDotsAndCaseOnlyWhenAsked() {
    assertThat(exact("orders.example.com.").matches(SanType.DNS, "orders.example.com")).isTrue();
    assertThat(exact("orders.example.com").matches(SanType.DNS, "*.example.com.")).isTrue();
    assertThat(exact("Orders.Example.com").matches(SanType.DNS, "*.example.com")).isFalse();
    assertThat(
            new SanMatcher(Kind.EXACT, "Orders.Example.com", null, true)
                .matches(SanType.DNS, "*.example.com"))
        .isTrue();
    assertThat(exact("").matches(SanType.DNS, "")).isFalse();
  }

  @Test
  void wildcards_areOnlyForExactMatchersOnDnsNames() {
    assertThat(exact("spiffe://td/a").matches(SanType.URI, "spiffe://td/a")).isTrue();
    assertThat(exact("x.example.com").matches(SanType.URI, "*.example.com")).isFalse();
    SanMatcher prefix = new SanMatcher(Kind.PREFIX, "orders.", null, false);
    assertThat(prefix.matches(SanType.DNS, "*.example.com")).isFalse();
    assertThat(prefix.matches(SanType.DNS, "orders.example.com")).isTrue();
  }

  @Test
  void everyKind_comparesAsStringMatcherSays() {
    SanMatcher suffix = new SanMatcher(Kind.SUFFIX, ".EXAMPLE.com", null, true);
    assertThat(suffix.matches(SanType.DNS, "a.example.COM")).isTrue();
    assertThat(new SanMatcher(Kind.SUFFIX, ".EXAMPLE.com", null, false))
        .satisfies(m -> assertThat(m.matches(SanType.DNS, "a.example.com")).isFalse());
    SanMatcher contains = new SanMatcher(Kind.CONTAINS, "/ns/prod/", null, false);
    assertThat(contains.matches(SanType.URI, "spiffe://td/ns/prod/sa/orders")).isTrue();
    assertThat(contains.matches(SanType.URI, "spiffe://td/ns/dev/sa/orders")).isFalse();
    SanMatcher regex =
        new SanMatcher(
            Kind.SAFE_REGEX, "10\\.0\\.0\\.\\d+", Pattern.compile("10\\.0\\.0\\.\\d+"), false);
    assertThat(regex.matches(SanType.IP_ADDRESS, "10.0.0.7")).isTrue();
    assertThat(regex.matches(SanType.IP_ADDRESS, "10.0.1.7")).isFalse();
  }

  @Test
  void ipAddresses_compareInCanonicalText() {
    assertThat(exact("::1").matches(SanType.IP_ADDRESS, "0:0:0:0:0:0:0:1")).isTrue();
    assertThat(exact("2001:db8::1:0:0:1").matches(SanType.IP_ADDRESS, "2001:DB8:0:0:1:0:0:1"))
        .isTrue();
    assertThat(exact("127.0.0.1").matches(SanType.IP_ADDRESS, "127.0.0.1")).isTrue();
    assertThat(SubjectAltNameRules.canonicalIp("0:0:0:0:0:0:0:0")).isEqualTo("::");
    assertThat(SubjectAltNameRules.canonicalIp("1:0:2:0:3:0:4:0")).isEqualTo("1:0:2:0:3:0:4:0");
    assertThat(SubjectAltNameRules.canonicalIp("fe80:0:0:1:0:0:0:5")).isEqualTo("fe80:0:0:1::5");
  }

  @Test
  void types_limitWhichNamesAMatcherSees() {
    assertThat(exact("ops@example.com").matches(SanType.EMAIL, "ops@example.com")).isFalse();
    SanMatcher email = new SanMatcher(Kind.EXACT, "ops@example.com", null, false, SanType.EMAIL);
    assertThat(email.matches(SanType.EMAIL, "ops@example.com")).isTrue();
    SanMatcher uri = new SanMatcher(Kind.PREFIX, "spiffe://", null, false, SanType.URI);
    assertThat(uri.matches(SanType.URI, "spiffe://td/a")).isTrue();
    assertThat(uri.matches(SanType.DNS, "spiffe://td/a")).isFalse();
  }
}
