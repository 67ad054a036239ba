package dev.tern.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class AddressLiteralsTest {
  @Test
  void dottedQuadsAndIpv6AddressesAreLiterals() throws Exception {
    assertThat(AddressLiterals.parse("127.0.0.1")).isEqualTo(InetAddress.getByName("127.0.0.1"));
    assertThat(AddressLiterals.parse("0.0.0.0")).isEqualTo(InetAddress.getByName("0.0.0.0"));
    assertThat(AddressLiterals.parse("255.255.255.255"))
        .isEqualTo(InetAddress.getByName("255.255.255.255"));
    assertThat(AddressLiterals.parse("::1")).isEqualTo(InetAddress.getByName("::1"));
    assertThat(AddressLiterals.parse("2001:db8::7"))
        .isEqualTo(InetAddress.getByName("2001:db8::7"));
  }

  @Test
  void namesAndOtherSpellingsAreLeftToTheLookup() {
    assertThat(AddressLiterals.parse("localhost")).isNull();
    assertThat(AddressLiterals.parse("db.example")).isNull();
    assertThat(AddressLiterals.parse("1.2.3.4.example")).isNull();
    assertThat(AddressLiterals.parse("127.1")).isNull();
    assertThat(AddressLiterals.parse("010.0.0.1")).isNull();
    assertThat(AddressLiterals.parse("256.0.0.1")).isNull();
    assertThat(AddressLiterals.parse("1.2.3.")).isNull();
    assertThat(AddressLiterals.parse(".1.2.3")).isNull();
    assertThat(AddressLiterals.parse("1..2.3")).isNull();
    assertThat(AddressLiterals.parse("1234.0.0.1")).isNull();
    assertThat(AddressLiterals.parse("")).isNull();
  }

  @Test
  void aMalformedIpv6AddressIsLeftToTheLookup() {
    assertThat(AddressLiterals.parse("2001:db8:::7:")).isNull();
  }
}
