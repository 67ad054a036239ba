package dev.tern.internal.resolver;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class IpLiteralsTest {
  @Test
  void dottedQuadsAndIpv6AddressesAreLiterals() throws Exception {
    assertThat(IpLiterals.parse("127.0.0.1")).isEqualTo(InetAddress.getByName("127.0.0.1"));
    assertThat(IpLiterals.parse("0.0.0.0")).isEqualTo(InetAddress.getByName("0.0.0.0"));
    assertThat(IpLiterals.parse("255.255.255.255"))
        .isEqualTo(InetAddress.getByName("255.255.255.255"));
    assertThat(IpLiterals.parse("::1")).isEqualTo(InetAddress.getByName("::1"));
    assertThat(IpLiterals.parse("2001:db8::7")).isEqualTo(InetAddress.getByName("2001:db8::7"));
  }

  @Test
  void namesAndOtherSpellingsAreLeftToTheLookup() {
    assertThat(IpLiterals.parse("localhost")).isNull();
    assertThat(IpLiterals.parse("db.example")).isNull();
    assertThat(IpLiterals.parse("1.2.3.4.example")).isNull();
    assertThat(IpLiterals.parse("127.1")).isNull();
    assertThat(IpLiterals.parse("010.0.0.1")).isNull();
    assertThat(IpLiterals.parse("256.0.0.1")).isNull();
    assertThat(IpLiterals.parse("1.2.3.")).isNull();
    assertThat(IpLiterals.parse(".1.2.3")).isNull();
    assertThat(IpLiterals.parse("1..2.3")).isNull();
    assertThat(IpLiterals.parse("1234.0.0.1")).isNull();
    assertThat(IpLiterals.parse("")).isNull();
  }

  @Test
  void aMalformedIpv6AddressIsLeftToTheLookup() {
    assertThat(IpLiterals.parse("2001:db8:::7:")).isNull();
  }
}
