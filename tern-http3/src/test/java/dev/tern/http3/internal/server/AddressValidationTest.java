package dev.tern.http3.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.http3.ConnectionCounter;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Address validation by default: a client on its own gets QUIC's one-round-trip handshake, with no
 * Retry, and once {@link AddressValidation#UNDER_LOAD_HANDSHAKES} handshakes are left unfinished on
 * the socket (Initials from addresses that never answer) new clients are sent a Retry first, so a
 * flood leaves the server no more connection state than that, and a good client is still served.
 */
class AddressValidationTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @TempDir Path dir;

  private final ConnectionCounter connections = new ConnectionCounter();

  private InetSocketAddress start() throws Exception {
    Server server =
        cleanup.register(QuicPeer.server(dir).addTransportFilter(connections).build().start());
    return new InetSocketAddress("127.0.0.1", server.getPort());
  }

  @Test
  void aClientOnItsOwnGetsTheHandshakeWithoutRetry() throws Exception {
    InetSocketAddress server = start();
    try (UdpRelay relay = new UdpRelay(server, Integer.MAX_VALUE)) {
      ManagedChannel channel =
          cleanup.register(QuicPeer.channel(relay.address().getPort()).build());
      assertThat(
              ClientCalls.blockingUnaryCall(
                  channel, EchoService.UNARY, CallOptions.DEFAULT, "no retry"))
          .isEqualTo("no retry");
      assertThat(UdpRelay.packetType(relay.nextFromServer())).isEqualTo(UdpRelay.INITIAL);
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void unfinishedHandshakesTurnRetryOnForNewClients() throws Exception {
    InetSocketAddress server = start();
    // Clients one after another, each behind a relay that passes on only its first Initial and
    // nothing after (as from an address that never answers): the first ones are answered with the
    // handshake and stay unfinished, then Retry takes over.
    List<Integer> answers = new ArrayList<>();
    List<UdpRelay> flood = new ArrayList<>();
    EventLoopGroup group = QuicPeer.newGroup();
    try {
      for (int i = 0; i < 40; i++) {
        UdpRelay relay = new UdpRelay(server, 1);
        flood.add(relay);
        QuicPeer.startConnect(group, relay.address());
        answers.add(UdpRelay.packetType(relay.nextFromServer()));
      }
    } finally {
      group.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
      for (UdpRelay relay : flood) {
        relay.close();
      }
    }
    long handshakes = answers.stream().filter(a -> a == UdpRelay.INITIAL).count();
    assertThat(handshakes).isGreaterThanOrEqualTo(AddressValidation.UNDER_LOAD_HANDSHAKES);
    assertThat(answers.subList(25, 40)).containsOnly(UdpRelay.RETRY);
    assertThat(connections.accepted()).isEqualTo((int) handshakes);
    ManagedChannel channel = cleanup.register(QuicPeer.channel(server.getPort()).build());
    assertThat(
            ClientCalls.blockingUnaryCall(
                channel, EchoService.UNARY, CallOptions.DEFAULT, "served"))
        .isEqualTo("served");
  }
}
