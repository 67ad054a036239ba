package dev.tern.services.binarylog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.services.binarylog.v1.Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PeerAddressesTest {
  @Test
  void ipv4() throws Exception {
    assertThat(PeerAddresses.toProto(new InetSocketAddress(InetAddress.getByName("10.1.2.3"), 80)))
        .isEqualTo(
            Address.newBuilder()
                .setType(Address.Type.TYPE_IPV4)
                .setAddress("10.1.2.3")
                .setIpPort(80)
                .build());
  }

  @ParameterizedTest
  @CsvSource({
    "::1, ::1",
    "0:0:0:0:0:0:0:0, ::",
    "2001:DB8:0:0:0:0:0:1, 2001:db8::1",
    "2001:db8:0:1:1:1:1:1, 2001:db8:0:1:1:1:1:1",
    "1:0:0:2:0:0:0:3, 1:0:0:2::3",
    "1:0:0:2:0:0:3:4, 1::2:0:0:3:4",
    "1:0:0:0:0:0:0:0, 1::",
    "fe80:0:0:0:0:0:0:1%1, fe80::1",
  })
  void ipv6InRfc5952FormWithoutScope(String input, String expected) throws Exception {
    Address address =
        PeerAddresses.toProto(new InetSocketAddress(InetAddress.getByName(input), 443));

    assertThat(address.getType()).isEqualTo(Address.Type.TYPE_IPV6);
    assertThat(address.getAddress()).isEqualTo(expected);
    assertThat(address.getIpPort()).isEqualTo(443);
  }

  @Test
  void unixDomainSockets() {
    assertThat(PeerAddresses.toProto(UnixDomainSocketAddress.of("/tmp/grpc.sock")))
        .isEqualTo(
            Address.newBuilder()
                .setType(Address.Type.TYPE_UNIX)
                .setAddress("/tmp/grpc.sock")
                .build());
  }

  @Test
  void nettysUnixDomainSocketsToo() {
    assertThat(
            PeerAddresses.toProto(new io.netty.channel.unix.DomainSocketAddress("/tmp/epoll.sock")))
        .isEqualTo(
            Address.newBuilder()
                .setType(Address.Type.TYPE_UNIX)
                .setAddress("/tmp/epoll.sock")
                .build());
  }

  @Test
  void otherAddressesAreUnknownWithTheirText() {
    SocketAddress inProcess =
        new SocketAddress() {
          @Override
          public String toString() {
            return "in-process:server";
          }
        };

    assertThat(PeerAddresses.toProto(inProcess))
        .isEqualTo(
            Address.newBuilder()
                .setType(Address.Type.TYPE_UNKNOWN)
                .setAddress("in-process:server")
                .build());
    assertThat(PeerAddresses.toProto(InetSocketAddress.createUnresolved("example.com", 443)))
        .extracting(Address::getType)
        .isEqualTo(Address.Type.TYPE_UNKNOWN);
  }
}
