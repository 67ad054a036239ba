package dev.tern.testtools;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A DNS client for tests: sends one question (an A or AAAA record) over UDP in the format of RFC
 * 1035 and returns the addresses of the answer. It exists so that tests can ask a test DNS server
 * such as {@link Dnsmasq} directly, without the JDK's resolver and its cache in between.
 *
 * <pre>{@code
 * DnsLookup.Answer answer =
 *     DnsLookup.query(dns.address(), "svc.tern.test", DnsLookup.Type.A, Duration.ofSeconds(5));
 * assertThat(answer.addresses()).hasSize(3);
 * }</pre>
 *
 * <p>The question asks for recursion and has no EDNS section, so an answer is at most 512 bytes
 * (some thirty IPv4 addresses); a truncated answer is an error. Only answer records of the asked
 * type and class IN are returned (a CNAME on the way is skipped). Thread-safe: every query uses its
 * own socket.
 */
public final class DnsLookup {
  /** The largest answer over UDP without EDNS (RFC 1035, section 4.2.1). */
  private static final int MAX_UDP_MESSAGE = 512;

  private static final int CLASS_IN = 1;

  /** The record types this client asks for. */
  public enum Type {
    /** An IPv4 address (RFC 1035). */
    A(1, 4),
    /** An IPv6 address (RFC 3596). */
    AAAA(28, 16);

    final int code;
    final int addressLength;

    Type(int code, int addressLength) {
      this.code = code;
      this.addressLength = addressLength;
    }
  }

  /**
   * A server's answer.
   *
   * @param rcode the response code: 0 (NOERROR) when the name exists, 3 (NXDOMAIN) when it does
   *     not, 5 (REFUSED) when the server will not answer it (dnsmasq without upstream servers says
   *     so for names it does not know)
   * @param addresses the addresses of the answer records of the asked type, in the server's order
   * @param maxTtl the largest time-to-live among those records, in seconds; 0 when there are none
   */
  public record Answer(int rcode, List<InetAddress> addresses, long maxTtl) {
    public Answer {
      addresses = List.copyOf(addresses);
    }
  }

  private DnsLookup() {}

  /**
   * Asks {@code server} for the records of {@code type} of {@code name} and waits at most {@code
   * timeout} for the answer.
   *
   * @throws SocketTimeoutException when no answer came in time
   * @throws java.net.PortUnreachableException when the host said nothing listens on that port
   * @throws IOException when the answer is malformed or truncated, or the socket fails
   */
  public static Answer query(InetSocketAddress server, String name, Type type, Duration timeout)
      throws IOException {
    requireNonNull(server, "server");
    requireNonNull(type, "type");
    requireNonNull(timeout, "timeout");
    int id = ThreadLocalRandom.current().nextInt(0x10000);
    byte[] question = encodeQuery(id, name, type);
    long deadline = System.nanoTime() + timeout.toNanos();
    try (DatagramSocket socket = new DatagramSocket()) {
      // Connected: the kernel drops datagrams from anyone else and reports ICMP port unreachable.
      socket.connect(server);
      socket.send(new DatagramPacket(question, question.length));
      byte[] buffer = new byte[MAX_UDP_MESSAGE];
      while (true) {
        long remainingMillis = Duration.ofNanos(deadline - System.nanoTime()).toMillis();
        if (remainingMillis <= 0) {
          throw new SocketTimeoutException("no DNS answer from " + server + " within " + timeout);
        }
        socket.setSoTimeout((int) Math.min(remainingMillis, Integer.MAX_VALUE));
        DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
        socket.receive(packet);
        Answer answer = parseResponse(buffer, packet.getLength(), id, type);
        if (answer != null) {
          return answer;
        }
        // An answer to some other question (a late reply to an earlier one): keep waiting.
      }
    }
  }

  /** The query message: a header with one question and recursion desired, then the question. */
  static byte[] encodeQuery(int id, String name, Type type) {
    requireNonNull(name, "name");
    String absolute = name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
    if (absolute.isEmpty() || !US_ASCII.newEncoder().canEncode(absolute)) {
      throw new IllegalArgumentException("name must be a non-empty ASCII domain name: " + name);
    }
    ByteBuffer out = ByteBuffer.allocate(12 + absolute.length() + 2 + 4);
    out.putShort((short) id);
    out.putShort((short) 0x0100); // QR=0 (query), OPCODE=0, RD=1
    out.putShort((short) 1); // QDCOUNT
    out.putShort((short) 0); // ANCOUNT
    out.putShort((short) 0); // NSCOUNT
    out.putShort((short) 0); // ARCOUNT
    for (String label : absolute.split("\\.", -1)) {
      byte[] bytes = label.getBytes(US_ASCII);
      if (bytes.length == 0 || bytes.length > 63) {
        throw new IllegalArgumentException("name has an empty label or one over 63 bytes: " + name);
      }
      out.put((byte) bytes.length).put(bytes);
    }
    out.put((byte) 0);
    if (out.position() > 255 + 12) {
      throw new IllegalArgumentException("name is longer than 255 bytes: " + name);
    }
    out.putShort((short) type.code);
    out.putShort((short) CLASS_IN);
    return out.array();
  }

  /**
   * Parses a response to the query {@code id}, or returns null when {@code message} answers another
   * query.
   *
   * @throws IOException when the message is malformed or truncated
   */
  static Answer parseResponse(byte[] message, int length, int id, Type type) throws IOException {
    ByteBuffer in = ByteBuffer.wrap(message, 0, length);
    try {
      if ((in.getShort() & 0xffff) != id) {
        return null;
      }
      int flags = in.getShort() & 0xffff;
      if ((flags & 0x8000) == 0) {
        return null; // a query, not a response
      }
      if ((flags & 0x0200) != 0) {
        throw new IOException("truncated DNS answer (TC set): too many records for 512 bytes");
      }
      int rcode = flags & 0xf;
      int questions = in.getShort() & 0xffff;
      int answers = in.getShort() & 0xffff;
      in.getShort(); // NSCOUNT: authority records are not read
      in.getShort(); // ARCOUNT
      for (int i = 0; i < questions; i++) {
        skipName(in);
        in.getInt(); // QTYPE, QCLASS
      }
      List<InetAddress> addresses = new ArrayList<>();
      long maxTtl = 0;
      for (int i = 0; i < answers; i++) {
        skipName(in);
        int recordType = in.getShort() & 0xffff;
        int recordClass = in.getShort() & 0xffff;
        long ttl = in.getInt() & 0xffffffffL;
        int dataLength = in.getShort() & 0xffff;
        byte[] data = new byte[dataLength];
        in.get(data);
        if (recordType == type.code && recordClass == CLASS_IN) {
          if (dataLength != type.addressLength) {
            throw new IOException(
                "malformed DNS answer: " + type + " record of " + dataLength + " bytes");
          }
          addresses.add(InetAddress.getByAddress(data));
          maxTtl = Math.max(maxTtl, ttl);
        }
      }
      return new Answer(rcode, addresses, maxTtl);
    } catch (BufferUnderflowException e) {
      throw new IOException("malformed DNS answer: it ends inside a record", e);
    }
  }

  /** Skips a name: labels up to the root label, or up to a compression pointer (RFC 1035 4.1.4). */
  private static void skipName(ByteBuffer in) throws IOException {
    while (true) {
      int length = in.get() & 0xff;
      if (length == 0) {
        return;
      }
      if ((length & 0xc0) == 0xc0) {
        in.get(); // the pointer's second byte; the name ends with the pointer
        return;
      }
      if ((length & 0xc0) != 0) {
        throw new IOException("malformed DNS answer: unknown label type " + (length >> 6));
      }
      if (length > in.remaining()) {
        throw new IOException("malformed DNS answer: a label runs past the end");
      }
      in.position(in.position() + length);
    }
  }
}
