package dev.tern.http3.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.ServerTransportFilter;
import dev.tern.http3.ConnectionCounter;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import io.netty.channel.EventLoopGroup;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * QUIC address validation on Tern's server with Retry always on ({@link AddressValidation}'s
 * property): a new client gets a stateless Retry first, and its token opens a connection only from
 * the address it was issued to; an Initial from an address that never answers (a spoofed one) gets
 * one small Retry back, within QUIC's amplification limit. Packets are watched on the wire through
 * a {@link UdpRelay}. {@code AddressValidationTest} covers the default, Retry under load.
 */
class RetryTest {
  @BeforeAll
  static void retryAlways() {
    System.setProperty(AddressValidation.PROPERTY, "always");
  }

  @AfterAll
  static void retryByDefault() {
    System.clearProperty(AddressValidation.PROPERTY);
  }

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @TempDir Path dir;

  private InetSocketAddress server;

  private void start(NettyServerBuilder builder) throws Exception {
    Server started = cleanup.register(builder.build().start());
    server = new InetSocketAddress("127.0.0.1", started.getPort());
  }

  @Test
  void aClientCallsThroughRetry() throws Exception {
    start(QuicPeer.server(dir));
    try (UdpRelay relay = new UdpRelay(server, Integer.MAX_VALUE)) {
      ManagedChannel channel =
          cleanup.register(QuicPeer.channel(relay.address().getPort()).build());
      assertThat(
              ClientCalls.blockingUnaryCall(
                  channel, EchoService.UNARY, CallOptions.DEFAULT, "through retry"))
          .isEqualTo("through retry");
      assertThat(UdpRelay.packetType(relay.nextFromServer())).isEqualTo(UdpRelay.RETRY);
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  /** A client's first Initial (no token) and its Initial after the Retry (with the token). */
  record Initials(byte[] first, byte[] withToken) {}

  /**
   * Starts a handshake through a relay that forwards only the client's first datagram, so that the
   * server never sees the client's token.
   */
  static Initials capture(UdpRelay relay) throws Exception {
    EventLoopGroup group = QuicPeer.newGroup();
    try {
      QuicPeer.startConnect(group, relay.address());
      byte[] first = relay.nextFromClient();
      assertThat(UdpRelay.packetType(first)).isEqualTo(UdpRelay.INITIAL);
      assertThat(tokenLength(first)).isZero();
      assertThat(UdpRelay.packetType(relay.nextFromServer())).isEqualTo(UdpRelay.RETRY);
      byte[] withToken = relay.nextFromClient();
      while (tokenLength(withToken) == 0) { // a retransmission of the first, sent before the Retry
        withToken = relay.nextFromClient();
      }
      return new Initials(first, withToken);
    } finally {
      group.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
    }
  }

  @Test
  void aTokenOpensAConnectionOnlyFromTheAddressItWasIssuedTo() throws Exception {
    start(QuicPeer.server(dir));
    try (UdpRelay relay = new UdpRelay(server, 1);
        DatagramSocket spoofer = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
      Initials initials = capture(relay);
      spoofer.setSoTimeout(10_000);
      // The token from another address: dropped. The first Initial after it gets a Retry, which is
      // then the first datagram the spoofer hears (loopback keeps order; the server answers in
      // order), so the token got no answer.
      send(spoofer, initials.withToken());
      send(spoofer, initials.first());
      assertThat(UdpRelay.packetType(receive(spoofer))).isEqualTo(UdpRelay.RETRY);
      // The same token from the address it was issued to: the server's handshake answers.
      relay.serverSide().send(packet(initials.withToken()));
      assertThat(UdpRelay.packetType(relay.nextFromServer())).isEqualTo(UdpRelay.INITIAL);
    }
  }

  @Test
  void aConnectionStuckInItsHandshakeIsClosedAtTheHandshakeTimeout() throws Exception {
    LinkedBlockingQueue<Boolean> ended = new LinkedBlockingQueue<>();
    start(
        QuicPeer.server(dir)
            .handshakeTimeout(300, TimeUnit.MILLISECONDS)
            .addTransportFilter(
                new ServerTransportFilter() {
                  @Override
                  public void transportTerminated(Attributes attributes) {
                    ended.add(true);
                  }
                }));
    try (UdpRelay relay = new UdpRelay(server, 1)) {
      // The client's token reaches the server, and then nothing more from the client: the server
      // answers with its handshake, which never completes.
      relay.serverSide().send(packet(capture(relay).withToken()));
      assertThat(UdpRelay.packetType(relay.nextFromServer())).isEqualTo(UdpRelay.INITIAL);
      // Closed at the handshake timeout, long before QUIC's idle timeout (120 s).
      assertThat(ended.poll(10, TimeUnit.SECONDS)).isNotNull();
    }
  }

  @Test
  void anInitialFromASpoofedAddressGetsAtMostThreeTimesItsSizeBack() throws Exception {
    start(QuicPeer.server(dir));
    try (UdpRelay relay = new UdpRelay(server, 1);
        DatagramSocket spoofed = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
      byte[] initial = capture(relay).first();
      assertThat(initial.length).isGreaterThanOrEqualTo(1200); // clients pad Initials
      spoofed.setSoTimeout(10_000);
      // The spoofed address never answers. The server keeps no state for it: the same Initial again
      // gets the same answer, so everything between the two Retries is the first one's answer.
      send(spoofed, initial);
      send(spoofed, initial);
      byte[] answer = receive(spoofed);
      assertThat(UdpRelay.packetType(answer)).isEqualTo(UdpRelay.RETRY);
      assertThat(answer.length).isLessThanOrEqualTo(3 * initial.length);
      assertThat(UdpRelay.packetType(receive(spoofed))).isEqualTo(UdpRelay.RETRY);
    }
  }

  @Test
  void aFloodOfInitialsFromManyPortsMakesNoConnectionsAndAGoodClientIsServed() throws Exception {
    ConnectionCounter connections = new ConnectionCounter();
    start(QuicPeer.server(dir).addTransportFilter(connections));
    byte[] initial;
    try (UdpRelay relay = new UdpRelay(server, 1)) {
      initial = capture(relay).first();
    }
    // 50 source ports, each sending a client's Initial and never answering: each gets a Retry,
    // and the server makes no connection for any of them.
    List<DatagramSocket> flood = new ArrayList<>();
    try {
      for (int i = 0; i < 50; i++) {
        DatagramSocket socket = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0));
        flood.add(socket);
        socket.setSoTimeout(10_000);
        send(socket, initial);
      }
      for (DatagramSocket socket : flood) {
        assertThat(UdpRelay.packetType(receive(socket))).isEqualTo(UdpRelay.RETRY);
      }
    } finally {
      flood.forEach(DatagramSocket::close);
    }
    assertThat(connections.accepted()).isZero();
    ManagedChannel channel = cleanup.register(QuicPeer.channel(server.getPort()).build());
    assertThat(
            ClientCalls.blockingUnaryCall(
                channel, EchoService.UNARY, CallOptions.DEFAULT, "served"))
        .isEqualTo("served");
    assertThat(connections.accepted()).isEqualTo(1);
  }

  private DatagramPacket packet(byte[] datagram) {
    return new DatagramPacket(datagram, datagram.length, server);
  }

  private void send(DatagramSocket socket, byte[] datagram) throws Exception {
    socket.send(packet(datagram));
  }

  static byte[] receive(DatagramSocket socket) throws Exception {
    byte[] buffer = new byte[65_536];
    DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
    socket.receive(packet);
    return java.util.Arrays.copyOf(buffer, packet.getLength());
  }

  /**
   * The token length of a QUIC v1 Initial (RFC 9000 section 17.2.2): after the flags, version and
   * both connection ids, unprotected.
   */
  private static long tokenLength(byte[] initial) {
    int pos = 5;
    pos += 1 + (initial[pos] & 0xff); // destination connection id
    pos += 1 + (initial[pos] & 0xff); // source connection id
    int first = initial[pos] & 0xff;
    int length = 1 << (first >> 6);
    long value = first & 0x3f;
    for (int i = 1; i < length; i++) {
      value = (value << 8) | (initial[pos + i] & 0xff);
    }
    return value;
  }
}
