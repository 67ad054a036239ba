package dev.tern.testtools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * Runs the real dnsmasq: skipped where it is not installed, failed then under {@code CI=true}.
 * Start with {@code TERN_DNSMASQ=/nonexistent} to see either.
 */
class DnsmasqTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  private static final String SVC = "svc.tern.test";

  private final List<Dnsmasq> started = new ArrayList<>();

  @AfterEach
  void closeAll() {
    started.forEach(Dnsmasq::close);
  }

  @Test
  void answersEveryAddressOfANameWithTtlZero() throws IOException {
    Dnsmasq dns = start(Map.of(SVC, List.of("127.0.0.2", "127.0.0.3", "127.0.0.4", "fd00::2")));

    DnsLookup.Answer a = DnsLookup.query(dns.address(), SVC, DnsLookup.Type.A, TIMEOUT);
    DnsLookup.Answer aaaa = DnsLookup.query(dns.address(), SVC, DnsLookup.Type.AAAA, TIMEOUT);

    assertThat(a.rcode()).isZero();
    assertThat(a.addresses()).containsExactlyInAnyOrder(ips("127.0.0.2", "127.0.0.3", "127.0.0.4"));
    assertThat(a.maxTtl()).isZero();
    assertThat(aaaa.addresses()).containsExactly(ips("fd00::2"));
    assertThat(dns.address()).isEqualTo(new InetSocketAddress("127.0.0.1", dns.port()));
    assertThat(dns.queries())
        .containsExactly(
            "query[A] svc.tern.test from 127.0.0.1", "query[AAAA] svc.tern.test from 127.0.0.1");
  }

  @Test
  void namesItWasNotGivenAreRefused() throws IOException {
    Dnsmasq dns = start(Map.of(SVC, List.of("127.0.0.2")));

    DnsLookup.Answer answer =
        DnsLookup.query(dns.address(), "other.tern.test", DnsLookup.Type.A, TIMEOUT);

    assertThat(answer.rcode()).isEqualTo(5);
    assertThat(answer.addresses()).isEmpty();
  }

  @Test
  void setRecordsIsAnsweredWhenItReturns() throws IOException {
    Dnsmasq dns = start(Map.of(SVC, List.of("127.0.0.2", "127.0.0.3")));

    dns.setRecords(Map.of(SVC, List.of("127.0.0.4"), "new.tern.test", List.of("127.0.0.5")));

    assertThat(lookup(dns, SVC)).containsExactly(ips("127.0.0.4"));
    assertThat(lookup(dns, "new.tern.test")).containsExactly(ips("127.0.0.5"));

    dns.setRecords(Map.of(SVC, List.of("127.0.0.2", "127.0.0.3", "127.0.0.4")));

    assertThat(lookup(dns, SVC))
        .containsExactlyInAnyOrder(ips("127.0.0.2", "127.0.0.3", "127.0.0.4"));
    assertThat(DnsLookup.query(dns.address(), "new.tern.test", DnsLookup.Type.A, TIMEOUT).rcode())
        .isEqualTo(5);
  }

  @Test
  void closeStopsTheProcessAndDeletesItsFiles() throws IOException {
    Dnsmasq dns = start(Map.of(SVC, List.of("127.0.0.2")));
    ProcessHandle process = ProcessHandle.of(dns.pid()).orElseThrow();
    Path directory = dns.directory();
    assertThat(directory.resolve("hosts")).exists();
    assertThat(directory.resolve("dnsmasq.log")).exists();

    dns.close();

    assertThat(process.isAlive()).isFalse();
    assertThat(ProcessHandle.of(dns.pid()).filter(ProcessHandle::isAlive)).isEmpty();
    assertThat(Files.exists(directory)).isFalse();
    dns.close(); // idempotent
    assertThatThrownBy(() -> dns.setRecords(Map.of())).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void twoServersRunAtOnceOnTheirOwnPorts() throws IOException {
    Dnsmasq first = start(Map.of(SVC, List.of("127.0.0.2")));
    Dnsmasq second = start(Map.of(SVC, List.of("127.0.0.3")));

    assertThat(first.port()).isNotEqualTo(second.port());
    assertThat(first.pid()).isNotEqualTo(second.pid());
    assertThat(lookup(first, SVC)).containsExactly(ips("127.0.0.2"));
    assertThat(lookup(second, SVC)).containsExactly(ips("127.0.0.3"));
    assertThat(first.queries()).hasSize(1);
    assertThat(second.queries()).hasSize(1);
  }

  @Test
  void aTakenPortIsGivenUpForAnother() throws IOException {
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress("127.0.0.1", 0));
      AtomicInteger asked = new AtomicInteger();

      Dnsmasq dns =
          track(
              Dnsmasq.start(
                  Map.of(SVC, List.of("127.0.0.2")),
                  () -> asked.getAndIncrement() == 0 ? taken.getLocalPort() : Dnsmasq.freePort()));

      assertThat(asked.get()).isGreaterThanOrEqualTo(2);
      assertThat(dns.port()).isNotEqualTo(taken.getLocalPort());
      assertThat(lookup(dns, SVC)).containsExactly(ips("127.0.0.2"));
    }
  }

  @Test
  void recordsAreCheckedBeforeAnythingStarts() {
    assertThatThrownBy(() -> Dnsmasq.start(Map.of("bad name", List.of("127.0.0.2"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bad name");
    assertThatThrownBy(() -> Dnsmasq.start(Map.of(SVC, List.of("localhost"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("localhost");
    assertThatThrownBy(() -> Dnsmasq.start(Map.of(SVC, List.of("127.0.0.256"))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Dnsmasq.start(Map.of(SVC, List.of("::ffff:127.0.0.2"))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(Dnsmasq.hostsFileText(Map.of("svc.tern.test.", List.of("fd00::2", "127.0.0.2"))))
        .isEqualTo("fd00:0:0:0:0:0:0:2 svc.tern.test\n127.0.0.2 svc.tern.test\n");
  }

  @Test
  void txtRecordsAreQuotedForDnsmasqAndCheckedBeforeAnythingStarts() {
    assertThat(
            Dnsmasq.txtConfigText(
                Map.of("_grpc_config.svc.tern.test", List.of("a=[\"b, c\"]", "d\\e"))))
        .isEqualTo(
            "txt-record=_grpc_config.svc.tern.test,\"a=[\\\"b, c\\\"]\"\n"
                + "txt-record=_grpc_config.svc.tern.test,\"d\\\\e\"\n");
    assertThatThrownBy(() -> Dnsmasq.start(Map.of(), Map.of("bad name", List.of("x"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bad name");
    assertThatThrownBy(() -> Dnsmasq.start(Map.of(), Map.of(SVC, List.of("line\nbreak"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not printable ASCII");
  }

  @Test
  void missingDnsmasqSkipsOutsideCiAndFailsInCi() {
    Dnsmasq.requireInstalled(true, "true");

    assertThatThrownBy(() -> Dnsmasq.requireInstalled(false, null))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageContaining(Dnsmasq.NOT_INSTALLED);
    assertThatThrownBy(() -> Dnsmasq.requireInstalled(false, "false"))
        .isInstanceOf(TestAbortedException.class);
    assertThatThrownBy(() -> Dnsmasq.requireInstalled(false, "true"))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessageContaining(Dnsmasq.NOT_INSTALLED);
  }

  private Dnsmasq start(Map<String, List<String>> records) throws IOException {
    return track(Dnsmasq.start(records));
  }

  private Dnsmasq track(Dnsmasq dns) {
    started.add(dns);
    return dns;
  }

  private static List<InetAddress> lookup(Dnsmasq dns, String name) throws IOException {
    DnsLookup.Answer answer = DnsLookup.query(dns.address(), name, DnsLookup.Type.A, TIMEOUT);
    assertThat(answer.rcode()).as("rcode for %s", name).isZero();
    return answer.addresses();
  }

  private static InetAddress[] ips(String... literals) throws IOException {
    InetAddress[] addresses = new InetAddress[literals.length];
    for (int i = 0; i < literals.length; i++) {
      addresses[i] = InetAddress.getByName(literals[i]); // literals: parsed, not looked up
    }
    return addresses;
  }
}
