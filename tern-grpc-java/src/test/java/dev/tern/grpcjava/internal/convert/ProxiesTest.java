package dev.tern.grpcjava.internal.convert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/** grpc-java's proxy detectors and proxied addresses as Tern's, and back. */
class ProxiesTest {
  private static final InetSocketAddress PROXY = new InetSocketAddress("10.0.0.5", 3128);
  private static final InetSocketAddress TARGET =
      InetSocketAddress.createUnresolved("api.example.com", 443);
  private static final io.grpc.HttpConnectProxiedSocketAddress GRPC =
      io.grpc.HttpConnectProxiedSocketAddress.newBuilder()
          .setProxyAddress(PROXY)
          .setTargetAddress(TARGET)
          .setUsername("alice")
          .setPassword("s3cret")
          .build();

  @Test
  void aGrpcJavaDetectorsAnswerBecomesTernsWithItsCredentials() throws Exception {
    dev.tern.HttpConnectProxiedSocketAddress tern = Proxies.toTern(target -> GRPC).proxyFor(TARGET);

    assertThat(tern.getProxyAddress()).isEqualTo(PROXY);
    assertThat(tern.getTargetAddress()).isEqualTo(TARGET);
    assertThat(tern.getUsername()).isEqualTo("alice");
    assertThat(tern.getPassword()).isEqualTo("s3cret");
    assertThat(Proxies.toTern(target -> null).proxyFor(TARGET)).isNull();
  }

  @Test
  void andBackAgain() throws Exception {
    io.grpc.ProxiedSocketAddress back =
        Proxies.toGrpc(Proxies.toTern(target -> GRPC)).proxyFor(TARGET);

    assertThat(back).isEqualTo(GRPC);
  }

  @Test
  void anAnswerOfAnotherKindFailsNamingIt() {
    io.grpc.ProxiedSocketAddress other = new io.grpc.ProxiedSocketAddress() {};

    assertThatThrownBy(() -> Proxies.toTern(target -> other).proxyFor(TARGET))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("Tern speaks HTTP CONNECT only");
  }

  @Test
  void proxiedAddressesInAResolutionAreConvertedAndOthersKept() {
    List<SocketAddress> tern = Proxies.addressesToTern(List.of(GRPC, PROXY));

    assertThat(tern.get(0)).isInstanceOf(dev.tern.HttpConnectProxiedSocketAddress.class);
    assertThat(tern.get(1)).isSameAs(PROXY);
    assertThat(Proxies.addressesToGrpc(tern)).containsExactly(GRPC, PROXY);
  }
}
