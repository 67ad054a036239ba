package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The {@code h3} target scheme: which DNS target each form names, that other targets are left
 * alone, and that an {@code h3} target's channel is an HTTP/3 one (without tern-http3, as here,
 * {@code build()} says to add it; over a real server: tern-http3's {@code Http3ClientTest}).
 */
class Http3TargetTest {
  @Test
  void h3TargetsNameTheirDnsTarget() {
    assertThat(Http3Target.toDnsTarget("h3://example.com:443")).isEqualTo("dns:///example.com:443");
    assertThat(Http3Target.toDnsTarget("H3://example.com:443")).isEqualTo("dns:///example.com:443");
    assertThat(Http3Target.toDnsTarget("h3:///example.com:443"))
        .isEqualTo("dns:///example.com:443");
    assertThat(Http3Target.toDnsTarget("h3://[::1]:50051")).isEqualTo("dns:///[::1]:50051");
    assertThat(Http3Target.toDnsTarget("h3://10.0.0.53:53/example.com:443"))
        .isEqualTo("dns://10.0.0.53:53/example.com:443");
    assertThat(Http3Target.toDnsTarget("h3:example.com:443")).isEqualTo("dns:example.com:443");
  }

  @Test
  void otherTargetsAreNotH3Ones() {
    assertThat(Http3Target.toDnsTarget("dns:///example.com:443")).isNull();
    assertThat(Http3Target.toDnsTarget("example.com:443")).isNull();
    assertThat(Http3Target.toDnsTarget("h3x://example.com:443")).isNull();
    assertThat(Http3Target.toDnsTarget("h:3")).isNull();
    assertThat(Http3Target.toDnsTarget("")).isNull();
  }

  @Test
  void anH3TargetsChannelIsAnHttp3One() {
    assertThatThrownBy(() -> NettyChannelBuilder.forTarget("h3://localhost:1").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("needs the tern-http3 module");
    assertThatThrownBy(
            () -> NettyChannelBuilder.forTarget("h3://localhost:1").usePlaintext().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("needs TLS");
  }
}
