package dev.tern.testtools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** The message format alone; {@code DnsmasqTest} queries a real server. */
class DnsLookupTest {
  private static final int ID = 0xbeef;

  @Test
  void queryIsOneQuestionWithRecursionDesired() {
    byte[] query = DnsLookup.encodeQuery(ID, "svc.tern.test.", DnsLookup.Type.AAAA);

    assertThat(query)
        .containsExactly(
            bytes(
                0xbe, 0xef, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, // header
                3, 's', 'v', 'c', 4, 't', 'e', 'r', 'n', 4, 't', 'e', 's', 't', 0, // name
                0, 28, 0, 1)); // AAAA, IN
  }

  @Test
  void badNamesAreRejected() {
    assertThatThrownBy(() -> DnsLookup.encodeQuery(ID, "a..b", DnsLookup.Type.A))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> DnsLookup.encodeQuery(ID, "", DnsLookup.Type.A))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> DnsLookup.encodeQuery(ID, "x".repeat(64) + ".test", DnsLookup.Type.A))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> DnsLookup.encodeQuery(ID, "caf\u00e9.test", DnsLookup.Type.A))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void answerAddressesOfTheAskedTypeAreReadThroughCompressedNames() throws IOException {
    byte[] response = response(ID, 0x8180);

    DnsLookup.Answer answer =
        DnsLookup.parseResponse(response, response.length, ID, DnsLookup.Type.A);

    assertThat(answer.rcode()).isZero();
    assertThat(answer.addresses())
        .containsExactly(
            InetAddress.getByAddress(bytes(127, 0, 0, 2)),
            InetAddress.getByAddress(bytes(127, 0, 0, 3)));
    assertThat(answer.maxTtl()).isEqualTo(300);
  }

  @Test
  void responseCodeIsReported() throws IOException {
    byte[] header = bytes(0xbe, 0xef, 0x81, 0x85, 0, 0, 0, 0, 0, 0, 0, 0);

    DnsLookup.Answer answer = DnsLookup.parseResponse(header, header.length, ID, DnsLookup.Type.A);

    assertThat(answer.rcode()).isEqualTo(5);
    assertThat(answer.addresses()).isEmpty();
    assertThat(answer.maxTtl()).isZero();
  }

  @Test
  void messagesForOtherQueriesAreIgnored() throws IOException {
    byte[] otherId = response(ID + 1, 0x8180);
    byte[] query = response(ID, 0x0100);

    assertThat(DnsLookup.parseResponse(otherId, otherId.length, ID, DnsLookup.Type.A)).isNull();
    assertThat(DnsLookup.parseResponse(query, query.length, ID, DnsLookup.Type.A)).isNull();
  }

  @Test
  void truncatedAnswerIsAnError() {
    byte[] response = response(ID, 0x8380);

    assertThatThrownBy(
            () -> DnsLookup.parseResponse(response, response.length, ID, DnsLookup.Type.A))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("truncated");
  }

  @Test
  void everyShortenedMessageFailsAsMalformed() {
    byte[] response = response(ID, 0x8180);

    for (int length = 0; length < response.length; length++) {
      int cut = length;
      assertThatThrownBy(() -> DnsLookup.parseResponse(response, cut, ID, DnsLookup.Type.A))
          .as("cut at %d bytes", cut)
          .isInstanceOf(IOException.class);
    }
  }

  /**
   * A response to "svc.tern.test A": a CNAME from the question's name to "lb.tern.test" (a name
   * that ends in a pointer), then two A records and an AAAA record named by pointers.
   */
  private static byte[] response(int id, int flags) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(bytes(id >> 8, id, flags >> 8, flags, 0, 1, 0, 4, 0, 0, 0, 0));
    // Question at offset 12: svc.tern.test, A, IN. "tern.test" starts at offset 16.
    out.writeBytes(bytes(3, 's', 'v', 'c', 4, 't', 'e', 'r', 'n', 4, 't', 'e', 's', 't', 0));
    out.writeBytes(bytes(0, 1, 0, 1));
    // CNAME svc.tern.test -> lb.tern.test, its data a label and a pointer to offset 16.
    out.writeBytes(bytes(0xc0, 12, 0, 5, 0, 1, 0, 0, 0, 60, 0, 5, 2, 'l', 'b', 0xc0, 16));
    out.writeBytes(bytes(0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 127, 0, 0, 2));
    out.writeBytes(bytes(0xc0, 12, 0, 1, 0, 1, 0, 0, 1, 44, 0, 4, 127, 0, 0, 3));
    byte[] ipv6 = new byte[16];
    ipv6[15] = 1;
    out.writeBytes(bytes(0xc0, 12, 0, 28, 0, 1, 0, 0, 0x0e, 0x10, 0, 16));
    out.writeBytes(ipv6);
    return out.toByteArray();
  }

  private static byte[] bytes(int... values) {
    byte[] bytes = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      bytes[i] = (byte) values[i];
    }
    return bytes;
  }
}
