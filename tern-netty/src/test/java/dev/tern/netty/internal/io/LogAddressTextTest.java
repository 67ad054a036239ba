package dev.tern.netty.internal.io;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.unix.DomainSocketAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** Addresses in log lines read as a user would type them. */
class LogAddressTextTest {
  @Test
  void ipv4IsHostColonPort() {
    assertThat(NetworkFailures.addressText(new InetSocketAddress("127.0.0.1", 50051)))
        .isEqualTo("127.0.0.1:50051");
  }

  @Test
  void ipv6IsBracketed() {
    assertThat(NetworkFailures.addressText(new InetSocketAddress("::1", 50051)))
        .isEqualTo("[0:0:0:0:0:0:0:1]:50051");
  }

  @Test
  void domainSocketIsUnixPath() {
    assertThat(NetworkFailures.addressText(new DomainSocketAddress("/tmp/tern.sock")))
        .isEqualTo("unix:/tmp/tern.sock");
  }
}
