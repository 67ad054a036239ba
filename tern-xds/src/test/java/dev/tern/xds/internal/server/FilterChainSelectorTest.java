package dev.tern.xds.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.xds.XdsListener;
import dev.tern.xds.XdsRouteConfig;
import dev.tern.xds.XdsServerListener;
import dev.tern.xds.XdsServerListener.CidrRange;
import dev.tern.xds.XdsServerListener.FilterChain;
import dev.tern.xds.XdsServerListener.FilterChainMatch;
import dev.tern.xds.XdsServerListener.SourceType;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Filter chain matching (A36), one criterion at a time, in their order of precedence. */
class FilterChainSelectorTest {
  private static final XdsListener HCM =
      new XdsListener("h", null, new XdsRouteConfig("r", List.of()), List.of(), null);
  private static final FilterChain DEFAULT =
      chain("default", List.of(), SourceType.ANY, List.of(), List.of());

  private static InetAddress ip(String literal) throws Exception {
    return InetAddress.getByName(literal);
  }

  private static CidrRange range(String literal, int length) throws Exception {
    return new CidrRange(ip(literal), length);
  }

  private static FilterChain chain(
      String name,
      List<CidrRange> destinations,
      SourceType type,
      List<CidrRange> sources,
      List<Integer> ports) {
    return new FilterChain(
        name, new FilterChainMatch(destinations, type, sources, ports, false), HCM);
  }

  private static String select(
      FilterChain defaultChain, String destination, String source, int port, FilterChain... chains)
      throws Exception {
    XdsServerListener listener =
        new XdsServerListener("l", "0.0.0.0", 1, Arrays.asList(chains), defaultChain);
    FilterChain chosen = FilterChainSelector.select(listener, ip(destination), ip(source), port);
    return chosen == null ? null : chosen.name();
  }

  @Test
  void mostSpecificDestinationPrefixWins_beforeAnythingElse() throws Exception {
    FilterChain wide =
        chain("wide", List.of(range("10.0.0.0", 8)), SourceType.EXTERNAL, List.of(), List.of(5));
    FilterChain narrow =
        chain("narrow", List.of(range("10.1.0.0", 16)), SourceType.ANY, List.of(), List.of());
    assertThat(select(DEFAULT, "10.1.2.3", "192.168.0.9", 5, wide, narrow)).isEqualTo("narrow");
    assertThat(select(DEFAULT, "10.2.2.3", "192.168.0.9", 5, wide, narrow)).isEqualTo("wide");
    assertThat(select(DEFAULT, "11.0.0.1", "192.168.0.9", 5, wide, narrow)).isEqualTo("default");
  }

  @Test
  void sourceType_specificOverAny_loopbackOrSameIpVersusExternal() throws Exception {
    FilterChain any = chain("any", List.of(), SourceType.ANY, List.of(), List.of());
    FilterChain local =
        chain("local", List.of(), SourceType.SAME_IP_OR_LOOPBACK, List.of(), List.of());
    FilterChain external = chain("external", List.of(), SourceType.EXTERNAL, List.of(), List.of());
    assertThat(select(null, "10.0.0.1", "127.0.0.5", 1, any, local, external)).isEqualTo("local");
    assertThat(select(null, "10.0.0.1", "10.0.0.1", 1, any, local, external)).isEqualTo("local");
    assertThat(select(null, "10.0.0.1", "10.0.0.2", 1, any, local, external)).isEqualTo("external");
    assertThat(select(null, "10.0.0.1", "10.0.0.2", 1, any, local)).isEqualTo("any");
  }

  @Test
  void sourcePrefixThenSourcePort() throws Exception {
    FilterChain wide =
        chain("wide", List.of(), SourceType.ANY, List.of(range("192.168.0.0", 16)), List.of());
    FilterChain narrow =
        chain("narrow", List.of(), SourceType.ANY, List.of(range("192.168.7.0", 24)), List.of());
    FilterChain narrowPort =
        chain(
            "narrow-port",
            List.of(),
            SourceType.ANY,
            List.of(range("192.168.7.0", 24)),
            List.of(9999));
    assertThat(select(DEFAULT, "10.0.0.1", "192.168.7.7", 1, wide, narrow, narrowPort))
        .isEqualTo("narrow");
    assertThat(select(DEFAULT, "10.0.0.1", "192.168.7.7", 9999, wide, narrow, narrowPort))
        .isEqualTo("narrow-port");
    assertThat(select(DEFAULT, "10.0.0.1", "192.168.8.7", 9999, wide, narrow, narrowPort))
        .isEqualTo("wide");
    assertThat(select(DEFAULT, "10.0.0.1", "172.16.0.1", 9999, wide, narrow, narrowPort))
        .isEqualTo("default");
  }

  @Test
  void chainsThatNeverMatch_andAddressesOfTheOtherFamily_areSkipped() throws Exception {
    FilterChain sni =
        new FilterChain(
            "sni",
            new FilterChainMatch(List.of(), SourceType.ANY, List.of(), List.of(), true),
            HCM);
    FilterChain v6 = chain("v6", List.of(range("::", 0)), SourceType.ANY, List.of(), List.of());
    assertThat(select(null, "10.0.0.1", "10.0.0.2", 1, sni, v6)).isNull();
    assertThat(select(null, "::1", "::1", 1, sni, v6)).isEqualTo("v6");
  }
}
