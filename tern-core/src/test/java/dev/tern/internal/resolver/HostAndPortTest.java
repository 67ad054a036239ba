package dev.tern.internal.resolver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HostAndPortTest {
  private static HostAndPort parse(String text) {
    return HostAndPort.parse(text, 443, "the-target");
  }

  @Test
  void hostAndPort() {
    assertThat(parse("example.com:8080"))
        .isEqualTo(new HostAndPort("example.com", 8080, "example.com:8080"));
    assertThat(parse("my_host-1.internal:0").port()).isZero();
    assertThat(parse("10.0.0.1:65535").port()).isEqualTo(65535);
  }

  @Test
  void missingPortMeansTheDefault() {
    assertThat(parse("example.com")).isEqualTo(new HostAndPort("example.com", 443, "example.com"));
  }

  @Test
  void bracketedIpv6WithAndWithoutPort() {
    assertThat(parse("[::1]:50051")).isEqualTo(new HostAndPort("::1", 50051, "[::1]:50051"));
    assertThat(parse("[2001:db8::7]"))
        .isEqualTo(new HostAndPort("2001:db8::7", 443, "[2001:db8::7]"));
  }

  @Test
  void unbracketedIpv6IsRejectedSuggestingTheBrackets() {
    assertThatThrownBy(() -> parse("::1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'the-target'")
        .hasMessageContaining("write [::1]");
  }

  @Test
  void malformedBracketsAreRejected() {
    assertThatThrownBy(() -> parse("[::1:443")).hasMessageContaining("closing ']'");
    assertThatThrownBy(() -> parse("[::1]443"))
        .hasMessageContaining("'443' after the IPv6 address");
    assertThatThrownBy(() -> parse("[10.0.0.1]:443")).hasMessageContaining("not an IPv6 address");
    assertThatThrownBy(() -> parse("[]:443")).hasMessageContaining("not an IPv6 address");
  }

  @Test
  void badPortsAreRejected() {
    for (String text : new String[] {"host:", "host:http", "host:-1", "host:123456", "[::1]:"}) {
      assertThatThrownBy(() -> parse(text))
          .as(text)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'the-target'")
          .hasMessageContaining("port");
    }
    assertThatThrownBy(() -> parse("host:65536")).hasMessageContaining("beyond 65535");
  }

  @Test
  void badHostsAreRejected() {
    assertThatThrownBy(() -> parse("")).hasMessageContaining("names no host");
    assertThatThrownBy(() -> parse(":443")).hasMessageContaining("names no host");
    assertThatThrownBy(() -> parse("user@host:443")).hasMessageContaining("'@'");
    assertThatThrownBy(() -> parse("ho st")).hasMessageContaining("' '");
  }
}
