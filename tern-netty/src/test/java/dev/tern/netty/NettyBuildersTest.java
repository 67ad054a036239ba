package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Option validation and target parsing of the public builders and providers. */
class NettyBuildersTest {
  @Test
  void targetsParseHostPortWithOptionalDnsSchemeAndIpv6Brackets() {
    assertThat(NettyChannelBuilder.parseTarget("example.com:443"))
        .isEqualTo(InetSocketAddress.createUnresolved("example.com", 443));
    assertThat(NettyChannelBuilder.parseTarget("dns:///localhost:50051"))
        .isEqualTo(InetSocketAddress.createUnresolved("localhost", 50051));
    assertThat(NettyChannelBuilder.parseTarget("[::1]:8080"))
        .isEqualTo(InetSocketAddress.createUnresolved("::1", 8080));
    assertThat(NettyChannelBuilder.parseTarget("no-port")).isNull();
    assertThat(NettyChannelBuilder.parseTarget("host:notaport")).isNull();
    assertThat(NettyChannelBuilder.parseTarget("::1:80")).isNull();
    assertThat(NettyChannelBuilder.parseTarget("host:70000")).isNull();
  }

  @Test
  void forTargetRejectsWhatItCannotParseNamingTheTarget() {
    assertThatThrownBy(() -> NettyChannelBuilder.forTarget("inprocess:name"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("inprocess:name");
  }

  @Test
  void providerLeavesOtherSchemesToOtherTransports() {
    NettyChannelProvider provider = new NettyChannelProvider();
    assertThat(provider.builderForTarget("inprocess:name")).isNull();
    assertThat(provider.builderForTarget("localhost:50051"))
        .isInstanceOf(NettyChannelBuilder.class);
    assertThat(provider.priority()).isGreaterThan(5);
    assertThat(new NettyServerProvider().builderForPort(0)).isInstanceOf(NettyServerBuilder.class);
  }

  /** A channel class Netty cannot make: no public no-argument constructor. */
  private static final class UnmakeableChannel extends NioSocketChannel {
    UnmakeableChannel(int unused) {}
  }

  /** A server channel class Netty cannot make. */
  private static final class UnmakeableServerChannel extends NioServerSocketChannel {
    UnmakeableServerChannel(int unused) {}
  }

  @Test
  void aChannelTypeWithoutAPublicNoArgumentConstructorIsRejectedAtOnce() {
    assertThatThrownBy(
            () ->
                NettyChannelBuilder.forAddress("localhost", 1).channelType(UnmakeableChannel.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("UnmakeableChannel");
    assertThatThrownBy(
            () -> NettyServerBuilder.forPort(0).channelType(UnmakeableServerChannel.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("UnmakeableServerChannel");
  }

  @Test
  void invalidOptionsAreRejectedNamingTheOption() {
    NettyChannelBuilder channel = NettyChannelBuilder.forAddress("localhost", 1);
    assertThatThrownBy(() -> channel.flowControlWindow(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("flowControlWindow");
    assertThatThrownBy(() -> channel.keepAliveTime(0, TimeUnit.SECONDS))
        .hasMessageContaining("keepAliveTime");
    assertThatThrownBy(() -> channel.connectTimeout(-1, TimeUnit.SECONDS))
        .hasMessageContaining("connectTimeout");
    assertThatThrownBy(() -> NettyChannelBuilder.forAddress("localhost", 65536))
        .hasMessageContaining("port");

    NettyServerBuilder server = NettyServerBuilder.forPort(0);
    assertThatThrownBy(() -> server.maxConcurrentCallsPerConnection(0))
        .hasMessageContaining("maxConcurrentCallsPerConnection");
    assertThatThrownBy(() -> server.maxRstFramesPerWindow(-1, 1, TimeUnit.SECONDS))
        .hasMessageContaining("maxRstFramesPerWindow");
    assertThatThrownBy(() -> NettyServerBuilder.forPort(-1)).hasMessageContaining("port");
  }
}
