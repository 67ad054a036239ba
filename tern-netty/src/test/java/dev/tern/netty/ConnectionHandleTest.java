package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.ServerTransportFilter;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.StreamObserver;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * tern-core's per-connection handle ({@link ServerTransportFilter.Connection}) on real Netty
 * connections: a refused connection's calls fail with the filter's status; a drained one lets its
 * call in flight finish while the client takes a new connection for new calls.
 */
class ConnectionHandleTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private final BlockingQueue<ServerTransportFilter.Connection> connections =
      new LinkedBlockingQueue<>();
  private volatile Status refuseWith;

  private ManagedChannel start() throws IOException {
    Server server =
        cleanup.register(
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addTransportFilter(
                    new ServerTransportFilter() {
                      @Override
                      public Attributes transportReady(Attributes attrs, Connection connection) {
                        connections.add(connection);
                        Status refusal = refuseWith;
                        if (refusal != null) {
                          connection.refuse(refusal);
                        }
                        return attrs;
                      }
                    })
                .addService(EchoService.definition())
                .build()
                .start());
    return cleanup.register(
        NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build());
  }

  private static String unary(ManagedChannel channel, String message) {
    return ClientCalls.blockingUnaryCall(
        channel,
        EchoService.UNARY,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
        message);
  }

  @Test
  void refusedConnection_failsItsCallsWithTheFiltersStatus() throws Exception {
    refuseWith = Status.UNAVAILABLE.withDescription("not serving: test refusal");
    ManagedChannel channel = start();

    assertThatThrownBy(() -> unary(channel, "hi"))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    assertThat(connections).isNotEmpty();
  }

  @Test
  void drainedConnection_finishesItsCallInFlight_newCallsTakeANewConnection() throws Exception {
    ManagedChannel channel = start();
    BlockingQueue<String> echoed = new LinkedBlockingQueue<>();
    CompletableFuture<Void> done = new CompletableFuture<>();
    StreamObserver<String> requests =
        ClientCalls.asyncBidiStreamingCall(
            channel.newCall(
                EchoService.BIDI_STREAMING,
                CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS)),
            new StreamObserver<String>() {
              @Override
              public void onNext(String value) {
                echoed.add(value);
              }

              @Override
              public void onError(Throwable t) {
                done.completeExceptionally(t);
              }

              @Override
              public void onCompleted() {
                done.complete(null);
              }
            });
    requests.onNext("before");
    assertThat(echoed.poll(10, TimeUnit.SECONDS)).isEqualTo("before");
    ServerTransportFilter.Connection first = connections.poll(10, TimeUnit.SECONDS);

    first.drain(30, TimeUnit.SECONDS);

    // A new call goes to a new connection; the one in flight goes on on the drained one.
    assertThat(unary(channel, "new")).isEqualTo("new");
    assertThat(connections.poll(10, TimeUnit.SECONDS)).isNotNull().isNotSameAs(first);
    requests.onNext("after");
    assertThat(echoed.poll(10, TimeUnit.SECONDS)).isEqualTo("after");
    requests.onCompleted();
    done.get(10, TimeUnit.SECONDS);
  }
}
