package dev.tern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** The proxied address: required parts, credentials, and what its string shows. */
class HttpConnectProxiedSocketAddressTest {
  private static final InetSocketAddress PROXY = new InetSocketAddress("10.0.0.5", 3128);
  private static final InetSocketAddress TARGET =
      InetSocketAddress.createUnresolved("api.example.com", 443);

  @Test
  void holdsItsPartsAndHidesThePassword() {
    HttpConnectProxiedSocketAddress address =
        HttpConnectProxiedSocketAddress.newBuilder()
            .setProxyAddress(PROXY)
            .setTargetAddress(TARGET)
            .setUsername("alice")
            .setPassword("s3cret")
            .build();

    assertThat(address.getProxyAddress()).isEqualTo(PROXY);
    assertThat(address.getTargetAddress()).isEqualTo(TARGET);
    assertThat(address.getUsername()).isEqualTo("alice");
    assertThat(address.getPassword()).isEqualTo("s3cret");
    assertThat(address).hasToString("api.example.com:443 via proxy /10.0.0.5:3128 (as alice)");
    assertThat(address)
        .isEqualTo(
            HttpConnectProxiedSocketAddress.newBuilder()
                .setProxyAddress(PROXY)
                .setTargetAddress(TARGET)
                .setUsername("alice")
                .setPassword("s3cret")
                .build());
  }

  @Test
  void badPartsAreRefusedNamingThem() {
    assertThatThrownBy(
            () -> HttpConnectProxiedSocketAddress.newBuilder().setTargetAddress(TARGET).build())
        .isInstanceOf(NullPointerException.class)
        .hasMessage("proxyAddress");
    assertThatThrownBy(
            () -> HttpConnectProxiedSocketAddress.newBuilder().setProxyAddress(PROXY).build())
        .isInstanceOf(NullPointerException.class)
        .hasMessage("targetAddress");
    assertThatThrownBy(
            () ->
                HttpConnectProxiedSocketAddress.newBuilder()
                    .setProxyAddress(PROXY)
                    .setTargetAddress(TARGET)
                    .setPassword("pw")
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("password is set but username is not");
    assertThatThrownBy(
            () ->
                HttpConnectProxiedSocketAddress.newBuilder()
                    .setProxyAddress(PROXY)
                    .setTargetAddress(TARGET)
                    .setUsername("a:b")
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("username must not contain ':'");
  }

  @Test
  void noneNeverProxies() throws Exception {
    assertThat(ProxyDetector.none().proxyFor(TARGET)).isNull();
  }

  @Test
  void theBuilderOptionRefusesNull() {
    assertThatThrownBy(() -> ManagedChannelBuilder.forTarget("inprocess:x").proxyDetector(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("proxyDetector");
  }
}
