package dev.tern.http3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.TlsChannelCredentials;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.StreamObserver;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testtools.TestPems;
import java.io.ByteArrayInputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * QUIC connection migration: the client's address as the server sees it changes in the middle of a
 * call (a NAT rebinding, played by {@link RebindingUdpRelay}), and no call fails: the calls under
 * way go on and finish, new calls use the same connection, and the server answers at the new
 * address.
 */
class ConnectionMigrationTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @TempDir Path dir;

  private RebindingUdpRelay relay;

  @AfterEach
  void stopRelay() throws Exception {
    if (relay != null) {
      relay.close();
    }
  }

  @Test
  void callsSurviveTheClientsAddressChangingMidStream() throws Exception {
    TestPems pems = TestPems.generate("localhost", "dns:localhost,ip:127.0.0.1");
    Path cert = Files.writeString(dir.resolve("cert.pem"), pems.certificatePem);
    Path key = Files.writeString(dir.resolve("key.pem"), pems.keyPem);
    Server server =
        cleanup.register(
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .useTransportSecurity(cert.toFile(), key.toFile())
                .enableHttp3()
                .addService(EchoService.definition())
                .build()
                .start());
    relay = new RebindingUdpRelay(new InetSocketAddress("127.0.0.1", server.getPort()));
    ManagedChannel channel =
        cleanup.register(
            NettyChannelBuilder.forAddress("127.0.0.1", relay.address().getPort())
                .tlsCredentials(
                    TlsChannelCredentials.newBuilder()
                        .trustManager(
                            new ByteArrayInputStream(
                                pems.certificatePem.getBytes(StandardCharsets.US_ASCII)))
                        .build())
                .enableHttp3()
                .build());
    CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS);

    // Two bidirectional calls under way, each answered once before the address changes.
    Echoes first = new Echoes();
    Echoes second = new Echoes();
    StreamObserver<String> firstRequests =
        ClientCalls.asyncBidiStreamingCall(
            channel.newCall(EchoService.BIDI_STREAMING, options), first);
    StreamObserver<String> secondRequests =
        ClientCalls.asyncBidiStreamingCall(
            channel.newCall(EchoService.BIDI_STREAMING, options), second);
    firstRequests.onNext("before-1");
    secondRequests.onNext("before-2");
    assertThat(first.next()).isEqualTo("before-1");
    assertThat(second.next()).isEqualTo("before-2");

    InetSocketAddress newAddress = relay.rebind();
    assertThat(newAddress.getAddress().getHostAddress()).isEqualTo("127.0.0.2");

    for (int i = 0; i < 20; i++) {
      firstRequests.onNext("after-" + i);
      assertThat(first.next()).isEqualTo("after-" + i);
    }
    secondRequests.onNext("after");
    assertThat(second.next()).isEqualTo("after");
    firstRequests.onCompleted();
    secondRequests.onCompleted();
    assertThat(first.done.get(30, TimeUnit.SECONDS)).isNull();
    assertThat(second.done.get(30, TimeUnit.SECONDS)).isNull();

    // A new call after the change, on the same connection.
    assertThat(ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, options, "new call"))
        .isEqualTo("new call");
    assertThat(relay.packetsFromServerAtNewAddress()).isPositive();
  }

  /** A bidirectional call's responses as they arrive, and how it ended (null when OK). */
  private static final class Echoes implements StreamObserver<String> {
    final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    final CompletableFuture<Throwable> done = new CompletableFuture<>();

    String next() throws InterruptedException {
      String message = messages.poll(30, TimeUnit.SECONDS);
      if (message == null) {
        throw new AssertionError("no response in 30 s; call ended with " + done.getNow(null));
      }
      return message;
    }

    @Override
    public void onNext(String value) {
      messages.add(value);
    }

    @Override
    public void onError(Throwable t) {
      done.complete(t);
    }

    @Override
    public void onCompleted() {
      done.complete(null);
    }
  }
}
