package dev.tern.grpcjava;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Attributes;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerTransportFilter;
import io.grpc.testing.integration.EmptyProtos.Empty;
import io.grpc.testing.integration.TestServiceGrpc;
import io.grpc.testing.integration.TestServiceImpl;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A grpc-java {@code ServerTransportFilter} on a bridged server: it hears each connection start
 * with grpc-java's transport attributes, the attributes it returns (with a key of its own) are what
 * the connection's calls see, and it hears the connection end with them.
 */
class GrpcJavaTransportFilterTest {
  private static final Attributes.Key<Integer> CONNECTION = Attributes.Key.create("connection");

  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private final AtomicInteger connections = new AtomicInteger();
  private final List<InetSocketAddress> readyFrom = new CopyOnWriteArrayList<>();
  private final BlockingQueue<Attributes> terminated = new LinkedBlockingQueue<>();
  private final List<Integer> seenByCalls = new CopyOnWriteArrayList<>();
  private Server server;

  @AfterEach
  void stop() throws Exception {
    Peers.close(null, server, scheduler);
  }

  @Test
  void theFiltersAttributesReachTheCallsAndItHearsTheConnectionEnd() throws Exception {
    server =
        Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
            .addService(new TestServiceImpl(scheduler))
            .addTransportFilter(
                new ServerTransportFilter() {
                  @Override
                  public Attributes transportReady(Attributes attributes) {
                    readyFrom.add(
                        (InetSocketAddress) attributes.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
                    return attributes.toBuilder()
                        .set(CONNECTION, connections.incrementAndGet())
                        .build();
                  }

                  @Override
                  public void transportTerminated(Attributes attributes) {
                    terminated.add(attributes);
                  }
                })
            .intercept(
                new ServerInterceptor() {
                  @Override
                  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
                      ServerCall<ReqT, RespT> call,
                      Metadata headers,
                      ServerCallHandler<ReqT, RespT> next) {
                    seenByCalls.add(call.getAttributes().get(CONNECTION));
                    return next.startCall(call, headers);
                  }
                })
            .build()
            .start();

    for (int round = 1; round <= 2; round++) {
      ManagedChannel channel = Peers.channelTo(server);
      TestServiceGrpc.TestServiceBlockingStub stub = TestServiceGrpc.newBlockingStub(channel);
      stub.emptyCall(Empty.getDefaultInstance());
      stub.emptyCall(Empty.getDefaultInstance());
      Peers.close(channel);
      Attributes ended = terminated.poll(10, TimeUnit.SECONDS);
      assertThat(ended).as("connection " + round + " ended").isNotNull();
      assertThat(ended.get(CONNECTION)).isEqualTo(round);
    }
    // One connection per channel, each call seeing its connection's number.
    assertThat(seenByCalls).containsExactly(1, 1, 2, 2);
    assertThat(readyFrom)
        .hasSize(2)
        .allSatisfy(remote -> assertThat(remote.getAddress().isLoopbackAddress()).isTrue());
  }
}
